"""Which source topics a flow mirrors, and how its partitions are dealt to tasks (Java's
`MirrorSourceConnector.shouldReplicateTopic`, `isCycle` and `taskConfigs`).

A topic is mirrored when the topic filter accepts it (or it is a heartbeats topic and
`heartbeats.replication.enabled`), it is not internal, and it did not come from the target cluster at any
depth: `B.orders` on A is B's own data, so the flow A->B never copies it back (the cycle check that makes
active/active topologies safe). The identity policy cannot see cycles: a topic that names itself as its
own upstream ends the check.

Partitions are dealt round-robin in discovery order to `min(tasks.max, partitions)` tasks, each task's list
written as Java writes it (`orders-3`, comma-joined; read back at the last `-`, since topics may contain `-`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from connect.mirror.replication_policy import ReplicationPolicy

TopicPartitionKey = tuple[str, int]


def is_cycle(policy: ReplicationPolicy, target_alias: str, topic: str) -> bool:
    """Whether `topic` came from the target cluster, one or more hops upstream."""
    source = policy.topic_source(topic)
    if source is None:
        return False
    if source == target_alias:
        return True
    upstream = policy.upstream_topic(topic)
    if upstream is None or upstream == topic:
        return False
    return is_cycle(policy, target_alias, upstream)


def topic_selector(
    policy: ReplicationPolicy, target_alias: str, topic_accepted: Callable[[str], bool], heartbeats_replicated: bool
) -> Callable[[str], bool]:
    """The flow's decision for one source topic."""

    def should_replicate(topic: str) -> bool:
        wanted = topic_accepted(topic) or (heartbeats_replicated and policy.is_heartbeats_topic(topic))
        return wanted and not policy.is_internal_topic(topic) and not is_cycle(policy, target_alias, topic)

    return should_replicate


def deal_partitions(partitions: Sequence[TopicPartitionKey], max_tasks: int) -> list[list[TopicPartitionKey]]:
    """Round-robin in the given order over `min(max_tasks, len(partitions))` tasks; none without partitions."""
    count = min(max_tasks, len(partitions))
    return [list(partitions[index::count]) for index in range(count)]


def encode_partitions(partitions: Sequence[TopicPartitionKey]) -> str:
    return ",".join(f"{topic}-{partition}" for topic, partition in partitions)


def decode_partitions(encoded: str) -> list[TopicPartitionKey]:
    decoded: list[TopicPartitionKey] = []
    for item in encoded.split(","):
        if not item:
            continue
        topic, _, partition = item.rpartition("-")
        decoded.append((topic, int(partition)))
    return decoded
