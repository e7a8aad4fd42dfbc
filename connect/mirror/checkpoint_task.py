"""`MirrorCheckpointTask`: every `emit.checkpoints.interval.seconds`, translates its consumer groups' source
offsets to the target cluster and writes them as checkpoints; with `sync.group.offsets.enabled`, also writes
them to the target's groups that have no active member (Java's `MirrorCheckpointTask`).

Start-up, as in Java since Kafka 3.8: the task reads back the checkpoints topic (its groups' last checkpoints,
so checkpoints stay monotonic across restarts), then the offset-syncs topic to its end, and follows it from
then on. When the checkpoints could not be read, the sync store keeps only each partition's last sync from
that first read (translations older than it would not be monotonic with checkpoints it cannot see). Nothing
is emitted before both reads are done.

Checkpoints are raw bytes on partition 0 of the checkpoints topic; their Connect offsets are the constant
`{"offset": 0}` under `{"partition", "topic", "group"}` in Java's key order.

Thread rules: `poll` runs on the task thread, the group-offset sync on the task's scheduler thread, the
offset-sync reader on a thread of its own; one lock guards the sync store and the checkpoint decisions.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from connect.api import ConnectError, RecordMetadata, SourceRecord, SourceTask
from connect.api.data import BYTES_SCHEMA
from connect.api.metrics import Recorder
from connect.api.records import TopicPartition
from connect.api.version import distribution_version
from connect.mirror import clusters
from connect.mirror.checkpoints import CheckpointDecisions, CommittedOffset, downstream_topic
from connect.mirror.config import (
    ADMIN_TIMEOUT_MS_CONFIG,
    CHECKPOINT_CONFIG_DEF,
    CONSUMER_POLL_TIMEOUT_MS_CONFIG,
    EMIT_CHECKPOINTS_INTERVAL_SECONDS_CONFIG,
    OFFSET_SYNCS_HISTORY_SIZE_CONFIG,
    SYNC_GROUP_OFFSETS_ENABLED_CONFIG,
    SYNC_GROUP_OFFSETS_INTERVAL_SECONDS_CONFIG,
    TARGET_CLUSTER_ALIAS_CONFIG,
    TASK_ASSIGNED_GROUPS_CONFIG,
    TASK_INDEX_CONFIG,
)
from connect.mirror.filters import list_items, topic_filter
from connect.mirror.metrics import checkpoint_latency
from connect.mirror.offset_sync_store import OffsetSyncStore
from connect.mirror.records import Checkpoint, OffsetSync
from connect.mirror.replication_policy import SOURCE_CLUSTER_ALIAS_CONFIG, load_replication_policy
from connect.mirror.scheduler import Scheduler
from connect.mirror.source_task import offset_syncs_side, offset_syncs_topic

log = logging.getLogger(__name__)

_READ_BACK_RETRY_S = 0.2


def checkpoint_partition(checkpoint: Checkpoint) -> dict[str, Any]:
    """Connect's source partition of a checkpoint, keys in Java's order."""
    return {"partition": checkpoint.partition, "topic": checkpoint.topic, "group": checkpoint.group}


class MirrorCheckpointTask(SourceTask):
    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        values = CHECKPOINT_CONFIG_DEF.parse(props)
        source, target = str(values[SOURCE_CLUSTER_ALIAS_CONFIG]), str(values[TARGET_CLUSTER_ALIAS_CONFIG])
        policy = load_replication_policy(props)
        task_index = int(props.get(TASK_INDEX_CONFIG, "0"))
        self._groups = list_items(props.get(TASK_ASSIGNED_GROUPS_CONFIG, ""))
        self._topic = policy.checkpoints_topic(source)
        self._interval_s = float(values[EMIT_CHECKPOINTS_INTERVAL_SECONDS_CONFIG])
        self._step_s = values[CONSUMER_POLL_TIMEOUT_MS_CONFIG] / 1000
        self._timeout_s = values[ADMIN_TIMEOUT_MS_CONFIG] / 1000
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ready = threading.Event()
        self._store: OffsetSyncStore | None = None
        self._source_alias, self._target_alias = source, target
        self._latencies: dict[tuple[str, str, int], Recorder] = {}
        self._history = int(values[OFFSET_SYNCS_HISTORY_SIZE_CONFIG])
        self._decisions = CheckpointDecisions(
            translate=self._translate,
            rename=lambda topic: downstream_topic(policy, source, target, topic),
            topic_accepted=topic_filter(props).accepts,
        )
        self._source = clusters.admin(props, "source", "checkpoint-source-admin")
        self._target = clusters.admin(props, "target", "checkpoint-target-admin")
        side = offset_syncs_side(values)
        self._syncs_reader = clusters.PartitionReader(
            props, side, f"offset-syncs-{side}-consumer", offset_syncs_topic(props), self._on_sync, task_index
        )
        self._scheduler = Scheduler(f"mirror-checkpoint-{props.get('name')}-{task_index}")
        self._scheduler.once("reading the checkpoints and offset syncs", lambda: self._load(props, task_index))
        if values[SYNC_GROUP_OFFSETS_ENABLED_CONFIG]:
            self._scheduler.every(
                values[SYNC_GROUP_OFFSETS_INTERVAL_SECONDS_CONFIG],
                "writing group offsets on the target",
                self._sync_group_offsets,
                first_now=False,
            )
        log.info("Checkpointing %d consumer group(s) %s->%s: %s", len(self._groups), source, target, self._groups)

    def _load(self, props: Mapping[str, str], task_index: int) -> None:
        read_back: list[Checkpoint] = []

        def on_checkpoint(key: bytes | None, value: bytes | None) -> None:
            if key is None or value is None:
                return
            try:
                checkpoint = Checkpoint.read(key, value)
            except ConnectError:
                return  # Java's readers skip what they cannot parse
            if checkpoint.group in self._groups:
                read_back.append(checkpoint)

        reader = clusters.PartitionReader(
            props, "target", "checkpoints-target-consumer", self._topic, on_checkpoint, task_index
        )
        try:
            checkpoints_read = self._read_back(reader)
        finally:
            reader.stop()
        with self._lock:
            self._decisions.load(read_back)
            self._store = OffsetSyncStore(initialization_must_read_to_end=not checkpoints_read, history=self._history)
        self._syncs_reader.read_to_end(self._timeout_s)
        with self._lock:
            assert self._store is not None
            self._store.read_to_end_done()
        self._syncs_reader.follow(f"{self._topic}-offset-syncs-reader")
        self._ready.set()

    def _read_back(self, reader: clusters.PartitionReader) -> bool:
        """Read the checkpoints topic to its end; False if it cannot be read within the admin timeout. The
        connector creates the topic just before its tasks start, and a topic that new may not be known to
        every broker yet: that is waited for (as Java's KafkaBasedLog waits), not taken for a failed read,
        which would keep only the newest offset sync of each partition from before this start."""
        deadline = time.monotonic() + self._timeout_s
        while True:
            try:
                reader.read_to_end(max(deadline - time.monotonic(), 1.0))
                return True
            except ConnectError as exc:
                if time.monotonic() >= deadline or self._stopping.wait(_READ_BACK_RETRY_S):
                    log.warning("Could not read back %s; older offsets will not be translated: %s", self._topic, exc)
                    return False

    def _on_sync(self, key: bytes | None, value: bytes | None) -> None:
        if key is None or value is None:
            return
        try:
            sync = OffsetSync.read(key, value)
        except ConnectError:
            return
        with self._lock:
            if self._store is not None:
                self._store.handle(sync)

    def _translate(self, topic: str, partition: int, offset: int) -> int | None:
        # Called under the lock, from `emit`.
        return None if self._store is None else self._store.translate_downstream(topic, partition, offset)

    def poll(self) -> list[SourceRecord] | None:
        deadline = time.monotonic() + self._interval_s
        while not self._stopping.is_set() and time.monotonic() < deadline:
            self._stopping.wait(min(self._step_s, max(deadline - time.monotonic(), 0)))
        if self._stopping.is_set() or not self._ready.is_set():
            return None
        records: list[SourceRecord] = []
        timestamp = int(time.time() * 1000)
        for group in self._groups:
            try:
                committed = self._source.committed_offsets(group, self._timeout_s)
            except ConnectError as exc:
                log.error("Could not list the offsets of consumer group %s: %s", group, exc)
                continue
            offsets = {tp: CommittedOffset(offset, metadata) for tp, (offset, metadata) in committed.items()}
            with self._lock:
                checkpoints = self._decisions.emit(group, offsets)
            records += [self._record(c, timestamp) for c in checkpoints]
        return records or None

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        if metadata is None or record.timestamp is None:
            return
        partition = record.source_partition or {}
        key = (str(partition.get("group")), str(partition.get("topic")), int(partition.get("partition", 0)))
        latency = self._latencies.get(key)
        if latency is None:
            group, topic, number = key
            latency = checkpoint_latency(
                self.context.plugin_metrics, self._source_alias, self._target_alias, group, topic, number
            )
            self._latencies[key] = latency
        latency.record(time.time() * 1000 - record.timestamp)

    def _record(self, checkpoint: Checkpoint, timestamp: int) -> SourceRecord:
        return SourceRecord(
            checkpoint_partition(checkpoint),
            {"offset": 0},
            self._topic,
            0,
            BYTES_SCHEMA,
            checkpoint.key(),
            BYTES_SCHEMA,
            checkpoint.value(),
            timestamp,
        )

    def _sync_group_offsets(self) -> None:
        if not self._ready.is_set():
            return
        states = self._target.consumer_group_states(self._groups, self._timeout_s)
        for group in self._groups:
            idle = states.get(group) == "EMPTY"
            current = self._target.committed_offsets(group, self._timeout_s) if idle else None
            target_offsets = None if current is None else {tp: offset for tp, (offset, _) in current.items()}
            with self._lock:
                to_write = self._decisions.offsets_to_write(group, target_offsets)
            if not to_write:
                continue
            offsets = {TopicPartition(t, p): o.offset for (t, p), o in to_write.items()}
            metadata = {TopicPartition(t, p): o.metadata for (t, p), o in to_write.items()}
            try:
                self._target.alter_consumer_group_offsets(group, offsets, self._timeout_s, metadata=metadata)
            except ConnectError as exc:
                # An active group on the target is refused by Kafka: that is the rule, not a failure.
                log.warning("Could not write the offsets of consumer group %s on the target: %s", group, exc)

    def stop(self) -> None:
        self._stopping.set()
        self._scheduler.stop()
        self._syncs_reader.stop()
        self._source.close()
        self._target.close()
