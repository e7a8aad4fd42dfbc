"""What an operator asks of a flow, from its connector config (Java's `MirrorClient` and `RemoteClusterUtils`):
a consumer group's offsets translated to the target cluster, written to the group there for a failover, and
how far behind the source the mirror is.

- Translation is the group's latest checkpoint per partition on `<source>.checkpoints.internal` (on the target),
  as `RemoteClusterUtils.translateOffsets` reads it: the downstream offsets a consumer of the remote topics
  resumes from. Checkpoints are written every `emit.checkpoints.interval.seconds`, so they may be that old.
- Writing them is refused while the group has active members on the target (Kafka refuses it anyway, and a
  running consumer would overwrite them): stop the consumers first, as the DR runbook says.
- Fail-back translation goes the other way, beyond Java: a group's offsets on a flow's remote topics (on its
  target) back to the topics they were mirrored from, with the flow's own offset syncs (`translated_back`).
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
from connect.mirror.client_configs import Side
from connect.mirror.records import Checkpoint, Heartbeat, OffsetSync
from connect.mirror.replication_policy import SOURCE_CLUSTER_ALIAS_CONFIG, load_replication_policy
from connect.mirror.source_task import offset_syncs_side, offset_syncs_topic

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


def translated_back(props: Mapping[str, str], group: str, timeout_s: float) -> list[Checkpoint]:
    """`group`'s committed offsets on the flow's remote topics (on its target: where the group failed over to)
    translated back to the topics they were mirrored from (on its source): where the group resumes when it fails
    back home. Java's MirrorMaker has none (the reverse flow never mirrors a remote topic back, so no sync covers
    it, KAFKA-12635): the group would resume from its last commit before the failover and read again all it read
    on the target since. This reads the flow's own offset syncs instead. From the newest sync at or before the
    group's position, the sync's upstream offset, plus one when the group is past that record: never ahead of
    what the group read, behind it by less than `offset.lag.max`. A partition no sync covers is left out.

    Each answer is a `Checkpoint` of the reverse direction: `topic`/`downstream_offset` on the flow's source,
    `upstream_offset` the group's offset on the target."""
    policy = load_replication_policy(props)
    source_alias = props[SOURCE_CLUSTER_ALIAS_CONFIG]
    admin = clusters.admin(props, "target", "mirror-client-admin")
    try:
        committed = admin.committed_offsets(group, timeout_s)
    finally:
        admin.close()
    remote = {key: value for key, value in committed.items() if policy.topic_source(key[0]) == source_alias}
    if not remote:
        return []
    syncs: dict[tuple[str, int], list[OffsetSync]] = {}

    def keep(key: bytes | None, value: bytes | None) -> None:
        if key is not None and value is not None:
            sync = OffsetSync.read(key, value)
            syncs.setdefault((sync.topic, sync.partition), []).append(sync)

    _read_whole(props, offset_syncs_topic(props), keep, timeout_s, offset_syncs_side(props))
    back = []
    for (topic, partition), (offset, metadata) in sorted(remote.items()):
        upstream_topic = policy.upstream_topic(topic)
        if upstream_topic is None:
            continue
        home = upstream_position(syncs.get((upstream_topic, partition), []), offset)
        if home is not None:
            back.append(Checkpoint(group, upstream_topic, partition, offset, home, metadata))
    return back


def upstream_position(syncs: list[OffsetSync], downstream: int) -> int | None:
    """The upstream position of a consumer at `downstream` on the remote partition these `syncs` describe: from
    the newest sync at or before it, the sync's upstream offset, plus one when the consumer is past that record
    (it read it). None when no sync is that old."""
    covering = [sync for sync in syncs if sync.downstream_offset <= downstream]
    if not covering:
        return None
    newest = max(covering, key=lambda sync: sync.downstream_offset)
    return newest.upstream_offset + (1 if downstream > newest.downstream_offset else 0)


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


def _read_whole(
    props: Mapping[str, str],
    topic: str,
    handle: clusters.RecordHandler,
    timeout_s: float,
    side: Side = "target",
) -> bool:
    """Read partition 0 of `topic` on `side` to its end; False if the topic does not exist."""
    admin = clusters.admin(props, side, "mirror-client-admin")
    try:
        if admin.partition_count(topic, timeout_s) is None:
            return False
    finally:
        admin.close()
    reader = clusters.PartitionReader(props, side, "mirror-client", topic, handle)
    try:
        reader.read_to_end(timeout_s)
    finally:
        reader.stop()
    return True
