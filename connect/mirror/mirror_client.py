"""What an operator asks of a flow, from its connector config (Java's `MirrorClient` and `RemoteClusterUtils`):
a consumer group's offsets translated to the target cluster, written to the group there for a failover, and
how far behind the source the mirror is.

- Translation is the group's latest checkpoint per partition on `<source>.checkpoints.internal` (on the target),
  as `RemoteClusterUtils.translateOffsets` reads it: the downstream offsets a consumer of the remote topics
  resumes from. Checkpoints are written every `emit.checkpoints.interval.seconds`, so they may be that old.
- Writing them is refused while the group has active members on the target (Kafka refuses it anyway, and a
  running consumer would overwrite them): stop the consumers first, as the DR runbook says.
- Replication lag is, per mirrored partition, the source's end offset minus the next offset the source
  connector will read (its Connect offsets): records on the source not yet on the target.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from connect.api.errors import ConnectError
from connect.api.records import TopicPartition
from connect.mirror import clusters
from connect.mirror.records import Checkpoint, Heartbeat
from connect.mirror.replication_policy import SOURCE_CLUSTER_ALIAS_CONFIG, load_replication_policy

# A group that has no member on the target: Kafka lets its offsets be written (a group never seen is DEAD).
IDLE_GROUP_STATES = frozenset({"EMPTY", "DEAD"})


class GroupActiveError(ConnectError):
    """The group has active members on the target: its offsets are not written."""


@dataclass(frozen=True)
class PartitionLag:
    topic: str
    partition: int
    next_offset: int  # the next source offset the mirror reads
    end_offset: int  # the source partition's end

    @property
    def records(self) -> int:
        return max(self.end_offset - self.next_offset, 0)


def translated_offsets(props: Mapping[str, str], group: str, timeout_s: float) -> list[Checkpoint]:
    """`group`'s latest checkpoint of each remote partition, by topic and partition; empty if none yet."""
    alias = props[SOURCE_CLUSTER_ALIAS_CONFIG]
    topic = load_replication_policy(props).checkpoints_topic(alias)
    latest: dict[tuple[str, int], Checkpoint] = {}

    def keep(key: bytes | None, value: bytes | None) -> None:
        if key is None or value is None:
            return
        checkpoint = Checkpoint.read(key, value)
        if checkpoint.group == group:
            latest[(checkpoint.topic, checkpoint.partition)] = checkpoint

    _read_whole(props, topic, keep, timeout_s)
    return [latest[key] for key in sorted(latest)]


def apply_to_idle_group(props: Mapping[str, str], group: str, checkpoints: list[Checkpoint], timeout_s: float) -> None:
    """Write `checkpoints`' downstream offsets (and their metadata) as `group`'s offsets on the target."""
    admin = clusters.admin(props, "target", "mirror-client-admin")
    try:
        state = admin.consumer_group_states([group], timeout_s).get(group, "DEAD")
        if state not in IDLE_GROUP_STATES:
            raise GroupActiveError(
                f"Consumer group {group} is {state} on the target cluster: stop its consumers, then write its "
                "translated offsets"
            )
        offsets = {TopicPartition(c.topic, c.partition): c.downstream_offset for c in checkpoints}
        metadata = {TopicPartition(c.topic, c.partition): c.metadata for c in checkpoints}
        admin.alter_consumer_group_offsets(group, offsets, timeout_s, metadata=metadata)
    finally:
        admin.close()


def replication_lag(
    props: Mapping[str, str], next_offsets: Mapping[tuple[str, int], int], timeout_s: float
) -> list[PartitionLag]:
    """Each mirrored source partition's lag, from the next offsets the source connector reads."""
    admin = clusters.admin(props, "source", "mirror-client-admin")
    try:
        ends = admin.end_offsets([TopicPartition(t, p) for t, p in next_offsets], timeout_s)
    finally:
        admin.close()
    return [
        PartitionLag(t, p, next_offsets[(t, p)], ends[TopicPartition(t, p)])
        for t, p in sorted(next_offsets)
        if TopicPartition(t, p) in ends
    ]


def heartbeat_age_ms(props: Mapping[str, str], timeout_s: float) -> int | None:
    """How old the newest heartbeat mirrored from the source cluster is on the target (`<source>.heartbeats`):
    the whole path, source to target, is that fresh. None if none has arrived."""
    policy = load_replication_policy(props)
    newest = _newest_record(
        props, policy.format_remote_topic(props[SOURCE_CLUSTER_ALIAS_CONFIG], policy.heartbeats_topic()), timeout_s
    )
    if newest is None or newest.key is None or newest.value is None:
        return None
    return int(time.time() * 1000) - Heartbeat.read(newest.key, newest.value).timestamp_ms


def checkpoint_age_ms(props: Mapping[str, str], timeout_s: float) -> int | None:
    """How long ago the newest checkpoint was written to the target (`<source>.checkpoints.internal`): translated
    offsets are at most that old, plus the checkpoint interval. None if none was written."""
    topic = load_replication_policy(props).checkpoints_topic(props[SOURCE_CLUSTER_ALIAS_CONFIG])
    newest = _newest_record(props, topic, timeout_s)
    if newest is None or newest.timestamp_ms is None:
        return None
    return max(int(time.time() * 1000) - newest.timestamp_ms, 0)


@dataclass(frozen=True)
class _Record:
    key: bytes | None
    value: bytes | None
    timestamp_ms: int | None


def _newest_record(props: Mapping[str, str], topic: str, timeout_s: float) -> _Record | None:
    """The last record of partition 0 of `topic` on the target, read alone; None if the topic is absent or empty."""
    admin = clusters.admin(props, "target", "mirror-client-admin")
    try:
        if admin.partition_count(topic, timeout_s) is None:
            return None
        end = admin.end_offsets([TopicPartition(topic, 0)], timeout_s).get(TopicPartition(topic, 0), 0)
    finally:
        admin.close()
    if end <= 0:
        return None
    consumer = clusters.consumer(props, "target", "mirror-client")
    try:
        consumer.assign({(topic, 0): end - 1})
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            messages = consumer.consume(1, min(1.0, max(deadline - time.monotonic(), 0.0)))
            if messages:
                kind, timestamp = messages[-1].timestamp()
                return _Record(messages[-1].key(), messages[-1].value(), timestamp if kind else None)
        raise ConnectError(f"Could not read the last record of {topic} within {timeout_s:.0f} s")
    finally:
        consumer.close()


def _read_whole(props: Mapping[str, str], topic: str, handle: clusters.RecordHandler, timeout_s: float) -> bool:
    """Read partition 0 of `topic` on the target to its end; False if the topic does not exist."""
    admin = clusters.admin(props, "target", "mirror-client-admin")
    try:
        if admin.partition_count(topic, timeout_s) is None:
            return False
    finally:
        admin.close()
    reader = clusters.PartitionReader(props, "target", "mirror-client", topic, handle)
    try:
        reader.read_to_end(timeout_s)
    finally:
        reader.stop()
    return True
