"""`MirrorSourceTask`: copies its assigned source partitions to the same partitions of their remote topics, and
records where each upstream offset landed (Java's `MirrorSourceTask`).

- Start: each partition resumes one past the upstream offset stored in Connect's offsets (the last record
  mirrored), or per the consumer's `auto.offset.reset` (earliest by default) when none is stored. The source
  partition key is `{"cluster", "partition", "topic"}` and the offset `{"offset"}`, in Java's key order, so
  a Java worker reading the same offsets topic finds them.
- Records keep key, value (tombstones too), headers, timestamp and partition, as raw bytes: the connector
  needs the ByteArrayConverter for keys, values and headers. A poll is one `SourceRecordBatch` per run of
  records of a partition, columns of what the consumer gave, so the runtime builds no record per record (it
  does where a transformation chain needs them, and then calls `commit_record`).
- When the target acknowledged a batch (`commit_batch`, with its downstream offsets) or a record
  (`commit_record`), the upstream and downstream offsets go to the offset-sync queue (`offset_sync_queue`),
  which decides per record, as Java does; after each offset commit the delayed syncs follow. The runtime gives
  this task a gap-less producer (`connect.runtime.kafka.gapless`) unless errors are tolerated or the user chose
  otherwise, and then learns a batch's offsets from the reports of its first and last records alone: offsets it
  could not derive (another producer wrote amid the run) come as `OFFSET_NOT_REPORTED` and make no sync.
  Syncs are sent by a producer of the cluster that holds the offset-syncs topic; a lost one only delays
  translation.
- Silent gaps are reported, never skipped quietly: when a partition's position is no longer on the source
  (records deleted by retention before they were mirrored, or the topic deleted and re-created), the consumer
  resets it per `auto.offset.reset` and says so; the first record read after it shows the gap. Records lost
  are logged at ERROR with their offsets and counted (`lost-record-count`), and every such reset is counted
  (`offset-reset-count`), in the partition's MirrorMaker metrics; the task's status trace says it too (it keeps
  RUNNING, with the newest such report as trace, until it restarts).
- Each partition's MirrorMaker metrics (`metrics.PartitionMetrics`): bytes and record age at poll, records and
  replication latency at acknowledgement, as Java records them (ages and latencies sampled on the first and last
  record of a batch), and the offset lag (records on the source not yet acknowledged by the target).

Thread rules: `poll` runs on the task thread, `commit_batch` and `commit_record` on the producer's delivery
thread, `commit` on the offset-commit thread, `stop` on another thread: it waits for a running poll (at most
`consumer.poll.timeout.ms`) before closing the consumer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from connect.api import OFFSET_NOT_WRITTEN, RecordMetadata, SourceRecord, SourceRecordBatch, SourceTask
from connect.api.batch import FieldOffsets
from connect.api.data import BYTES_SCHEMA, OPTIONAL_BYTES_SCHEMA
from connect.api.records import Header
from connect.api.version import distribution_version
from connect.mirror import clusters
from connect.mirror.client_configs import Side
from connect.mirror.config import (
    CONSUMER_POLL_TIMEOUT_MS_CONFIG,
    EMIT_OFFSET_SYNCS_ENABLED_CONFIG,
    OFFSET_LAG_MAX_CONFIG,
    OFFSET_SYNCS_TOPIC_LOCATION_CONFIG,
    SOURCE_CONFIG_DEF,
    TARGET_CLUSTER_ALIAS_CONFIG,
    TASK_ASSIGNED_PARTITIONS_CONFIG,
    TASK_INDEX_CONFIG,
)
from connect.mirror.metrics import PartitionMetrics
from connect.mirror.offset_sync_queue import OffsetSyncQueue
from connect.mirror.replication_policy import SOURCE_CLUSTER_ALIAS_CONFIG, load_replication_policy
from connect.mirror.topic_selection import decode_partitions

log = logging.getLogger(__name__)

MAX_RECORDS_PER_POLL = 500  # Kafka's max.poll.records default, which Java's task polls with


def offset_syncs_topic(props: Mapping[str, str]) -> str:
    """The flow's offset-syncs topic: on the source cluster (default) it is named after the target's alias,
    on the target after the source's (Java's `MirrorSourceConfig.offsetSyncsTopic`)."""
    policy = load_replication_policy(props)
    on_source = props.get(OFFSET_SYNCS_TOPIC_LOCATION_CONFIG, "source") == "source"
    other = props.get(TARGET_CLUSTER_ALIAS_CONFIG, "target") if on_source else props[SOURCE_CLUSTER_ALIAS_CONFIG]
    return policy.offset_syncs_topic(other)


def offset_syncs_side(values: Mapping[str, Any]) -> Side:
    """Which cluster holds the flow's offset-syncs topic (`offset-syncs.topic.location`)."""
    return "target" if values.get(OFFSET_SYNCS_TOPIC_LOCATION_CONFIG) == "target" else "source"


def source_partition(cluster: str, topic: str, partition: int) -> dict[str, Any]:
    """Connect's source partition of an upstream partition, keys in Java's order."""
    return {"cluster": cluster, "partition": partition, "topic": topic}


class MirrorSourceTask(SourceTask):
    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        values = SOURCE_CONFIG_DEF.parse(props)
        self._policy = load_replication_policy(props)
        self._source_alias = str(values[SOURCE_CLUSTER_ALIAS_CONFIG])
        self._poll_timeout_s = values[CONSUMER_POLL_TIMEOUT_MS_CONFIG] / 1000
        task_index = int(props.get(TASK_INDEX_CONFIG, "0"))
        partitions = decode_partitions(props.get(TASK_ASSIGNED_PARTITIONS_CONFIG, ""))
        self._remote_topics = {
            topic: self._policy.format_remote_topic(self._source_alias, topic) for topic, _ in partitions
        }
        self._lock = threading.Lock()
        self._stopping = False
        self._consumer = clusters.consumer(props, "source", "replication-consumer", task_index)
        keys = [source_partition(self._source_alias, topic, partition) for topic, partition in partitions]
        stored = dict(zip(partitions, (o for _, o in self.context.offset_reader.offsets(keys)), strict=True))
        self._consumer.assign({tp: _resume_at(offset) for tp, offset in stored.items()})
        target_alias = str(values[TARGET_CLUSTER_ALIAS_CONFIG])
        self._metrics = {
            (topic, partition): PartitionMetrics(
                self.context.plugin_metrics, self._source_alias, target_alias, self._remote_topics[topic], partition
            )
            for topic, partition in partitions
        }
        self._source_partitions = dict(zip(partitions, keys, strict=True))  # the keys its offsets were read by
        self._reset_at: dict[tuple[str, int], int] = {}  # partition -> the position the source no longer had
        self._syncs: OffsetSyncQueue | None = None
        if values[EMIT_OFFSET_SYNCS_ENABLED_CONFIG]:
            side = offset_syncs_side(values)
            self._syncs = OffsetSyncQueue(int(values[OFFSET_LAG_MAX_CONFIG]))
            self._syncs_topic = offset_syncs_topic(props)
            self._syncs_producer = clusters.producer(props, side, f"offset-syncs-{side}-producer", task_index)
        log.info("Mirroring %d partition(s) from %s: %s", len(partitions), self._source_alias, partitions)

    def poll(self) -> list[SourceRecord] | None:
        # The runtime calls poll_batches; this is the same records one by one.
        batches = self.poll_batches()
        return [record for batch in batches for record in batch] if batches else None

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        """What the consumer has, as one batch per run of records of one partition: the values, keys,
        timestamps and headers as the source cluster gave them, no record object built per record."""
        with self._lock:
            if self._stopping:
                return None
            messages = self._consumer.consume(MAX_RECORDS_PER_POLL, self._poll_timeout_s)
            for reset in self._consumer.take_resets():
                self._reset_at[(reset.topic, reset.partition)] = reset.position
        if not messages:
            return None
        now_ms = time.time() * 1000
        return [
            self._batch_of(topic, partition, list(run), now_ms)
            for (topic, partition), run in groupby(messages, _topic_partition)
        ]

    def _batch_of(self, topic: str, partition: int, run: list[Any], now_ms: float) -> SourceRecordBatch:
        offsets = [message.offset() for message in run]
        if self._reset_at:
            self._report_gap(topic, partition, offsets[0])
        values = [message.value() for message in run]
        stamps = [message.timestamp() for message in run]
        timestamps = [timestamp if kind else None for kind, timestamp in stamps]
        raw_headers = [message.headers() for message in run]
        headers = [_headers(raw) for raw in raw_headers] if any(raw_headers) else None
        metrics = self._metrics.get((topic, partition))
        if metrics is not None:
            metrics.bytes.add(sum(len(value) for value in values if value))
            # Sampled: the first and the last record of each run (a record each would cost as much as mirroring it).
            for kind, timestamp in (stamps[0], stamps[-1]):
                if kind:
                    metrics.age.record(now_ms - timestamp)
        return SourceRecordBatch(
            self._remote_topics.get(topic) or self._policy.format_remote_topic(self._source_alias, topic),
            values,
            BYTES_SCHEMA,
            keys=[message.key() for message in run],
            key_schema=OPTIONAL_BYTES_SCHEMA,
            source_partition=self._source_partitions.get((topic, partition))
            or source_partition(self._source_alias, topic, partition),
            source_offsets=FieldOffsets("offset", offsets),
            kafka_partition=partition,
            timestamps=timestamps,
            headers=headers,
        )

    def _report_gap(self, topic: str, partition: int, offset: int) -> None:
        """The first record of a partition after its position was lost: what was skipped, said loudly."""
        position = self._reset_at.pop((topic, partition), None)
        if position is None:
            return
        metrics = self._metrics.get((topic, partition))
        if metrics is not None:
            metrics.resets.add()
        if offset > position:
            if metrics is not None:
                metrics.lost.add(offset - position)
            message = (
                f"Records {position} to {offset - 1} of {topic}-{partition} were deleted from cluster "
                f"{self._source_alias} before they were mirrored (retention, or deleted records): "
                f"{offset - position} record(s) are not on the target; mirroring goes on from offset {offset}"
            )
        else:
            message = (
                f"{topic}-{partition} of cluster {self._source_alias} went back from offset {position} to {offset} "
                "(the topic was deleted and re-created, or truncated): its new records are mirrored after the old "
                "ones on the target"
            )
        log.error("%s", message)
        self.context.report_problem(message)

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        if metadata is None or self._stopping:
            return  # a record a transform dropped, or a task on its way out
        upstream = record.source_partition or {}
        topic, partition = str(upstream.get("topic")), int(upstream.get("partition", -1))
        self._acknowledged(
            topic, partition, [(record.source_offset or {})["offset"]], [metadata.offset], record.timestamp
        )

    def commit_batch(self, batch: SourceRecordBatch, offsets: Sequence[int]) -> None:
        if self._stopping:
            return
        upstream = batch.source_partition or {}
        upstream_offsets = batch.source_offsets
        assert isinstance(upstream_offsets, FieldOffsets)  # as poll_batches made it
        timestamps = batch.timestamps
        last_timestamp = None if not timestamps else timestamps[-1]
        self._acknowledged(upstream["topic"], upstream["partition"], upstream_offsets.numbers, offsets, last_timestamp)

    def _acknowledged(
        self, topic: str, partition: int, upstream: Sequence[int], downstream: Sequence[int], timestamp: int | None
    ) -> None:
        """Records of one partition the target acknowledged, in order (downstream `OFFSET_NOT_WRITTEN`: not on the
        target; `OFFSET_NOT_REPORTED`: on it, at an offset not reported)."""
        metrics = self._metrics.get((topic, partition))
        if metrics is not None:
            metrics.records.add(len(downstream) - downstream.count(OFFSET_NOT_WRITTEN))
            if timestamp is not None:  # the run's last record: sampled, as at poll
                metrics.latency.record(time.time() * 1000 - timestamp)
            end = self._consumer.high_watermark(topic, partition)
            if end is not None:
                metrics.offset_lag.record(max(end - (upstream[-1] + 1), 0))
        syncs = self._syncs
        if syncs is None:
            return
        due = syncs.offer_run(topic, partition, upstream, downstream)
        # Mostly no sync is due: only then is there anything to send, or in-flight syncs to serve so that
        # waiting ones may go (a producer poll per acknowledgement would cost more than the mirroring).
        if due or syncs.waiting():
            self._send_syncs()

    def commit(self) -> None:
        if self._syncs is not None:
            self._syncs.promote_delayed()
            self._send_syncs()

    def _send_syncs(self) -> None:
        syncs = self._syncs
        assert syncs is not None
        self._syncs_producer.poll(0)  # delivery reports first: they free room for waiting syncs
        for sync in syncs.take_sendable():
            try:
                self._syncs_producer.produce(
                    self._syncs_topic, sync.value(), sync.key(), 0, on_delivery=lambda error, _: _sent(syncs, error)
                )
            except (BufferError, RuntimeError) as exc:
                syncs.sent()
                log.warning("Could not send an offset sync, a later one will do: %s", exc)

    def stop(self) -> None:
        self._stopping = True
        with self._lock:
            self._consumer.close()
        if self._syncs is not None:
            self._syncs_producer.flush(5)


def _sent(syncs: OffsetSyncQueue, error: Any) -> None:
    syncs.sent()
    if error is not None:
        log.warning("An offset sync was not delivered, a later one will do: %s", error)


def _resume_at(stored: Mapping[str, Any] | None) -> int | None:
    """One past the last mirrored offset; None (auto.offset.reset) without one, as Java does for < 0 too."""
    offset = None if stored is None else stored.get("offset")
    return offset + 1 if isinstance(offset, int) and offset >= 0 else None


def _topic_partition(message: Any) -> tuple[str, int]:
    return message.topic(), message.partition()


def _headers(raw: Any) -> tuple[Header, ...]:
    """A consumed record's headers (confluent_kafka's list of (key, bytes)) as Connect headers of raw bytes."""
    if not raw:
        return ()
    items = raw.items() if isinstance(raw, Mapping) else raw
    return tuple(Header(key, value, BYTES_SCHEMA) for key, value in items)
