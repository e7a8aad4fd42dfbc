"""`MirrorSourceTask`: copies its assigned source partitions to the same partitions of their remote topics, and
records where each upstream offset landed (Java's `MirrorSourceTask`).

- Start: each partition resumes one past the upstream offset stored in Connect's offsets (the last record
  mirrored), or per the consumer's `auto.offset.reset` (earliest by default) when none is stored. The source
  partition key is `{"cluster", "partition", "topic"}` and the offset `{"offset"}`, in Java's key order, so
  a Java worker reading the same offsets topic finds them.
- Records keep key, value (tombstones too), headers, timestamp and partition, as raw bytes: the connector
  needs the ByteArrayConverter for keys, values and headers.
- When the target acknowledged a record, its upstream and downstream offsets go to the offset-sync queue
  (`offset_sync_queue`); after each offset commit the delayed syncs follow. Syncs are sent by a producer of
  the cluster that holds the offset-syncs topic; a lost one only delays translation.
- Silent gaps are reported, never skipped quietly: when a partition's position is no longer on the source
  (records deleted by retention before they were mirrored, or the topic deleted and re-created), the consumer
  resets it per `auto.offset.reset` and says so; the first record read after it shows the gap. Records lost
  are logged at ERROR with their offsets and counted (`lost-record-count`), and every such reset is counted
  (`offset-reset-count`), in the partition's MirrorMaker metrics.
- Each partition's MirrorMaker metrics (`metrics.PartitionMetrics`): bytes and record age at poll, records and
  replication latency at acknowledgement, as Java records them.

Thread rules: `poll` runs on the task thread, `commit_record` on the producer's delivery thread, `commit` on
the offset-commit thread, `stop` on another thread: it waits for a running poll (at most
`consumer.poll.timeout.ms`) before closing the consumer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from connect.api import RecordMetadata, SourceRecord, SourceTask
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
        self._reset_at: dict[tuple[str, int], int] = {}  # partition -> the position the source no longer had
        self._syncs: OffsetSyncQueue | None = None
        if values[EMIT_OFFSET_SYNCS_ENABLED_CONFIG]:
            side = offset_syncs_side(values)
            self._syncs = OffsetSyncQueue(int(values[OFFSET_LAG_MAX_CONFIG]))
            self._syncs_topic = offset_syncs_topic(props)
            self._syncs_producer = clusters.producer(props, side, f"offset-syncs-{side}-producer", task_index)
        log.info("Mirroring %d partition(s) from %s: %s", len(partitions), self._source_alias, partitions)

    def poll(self) -> list[SourceRecord] | None:
        with self._lock:
            if self._stopping:
                return None
            messages = self._consumer.consume(MAX_RECORDS_PER_POLL, self._poll_timeout_s)
            for reset in self._consumer.take_resets():
                self._reset_at[(reset.topic, reset.partition)] = reset.position
        if not messages:
            return None
        records = []
        now_ms = time.time() * 1000
        for message in messages:
            topic, partition, offset = str(message.topic()), int(message.partition() or 0), int(message.offset() or 0)
            timestamp_type, timestamp = message.timestamp()
            if self._reset_at:
                self._report_gap(topic, partition, offset)
            metrics = self._metrics.get((topic, partition))
            if metrics is not None:
                value = message.value()
                metrics.bytes.add(len(value) if value else 0)
                if timestamp_type:
                    metrics.age.record(now_ms - timestamp)
            headers = tuple(Header(key, value, BYTES_SCHEMA) for key, value in _header_items(message.headers()))
            records.append(
                SourceRecord(
                    source_partition(self._source_alias, topic, partition),
                    {"offset": offset},
                    self._remote_topics.get(topic) or self._policy.format_remote_topic(self._source_alias, topic),
                    partition,
                    OPTIONAL_BYTES_SCHEMA,
                    message.key(),
                    BYTES_SCHEMA,
                    message.value(),
                    timestamp if timestamp_type else None,
                    headers,
                )
            )
        return records

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
            log.error(
                "Records %d to %d of %s-%d were deleted from cluster %s before they were mirrored (retention, or "
                "deleted records): %d record(s) are not on the target; mirroring goes on from offset %d",
                position,
                offset - 1,
                topic,
                partition,
                self._source_alias,
                offset - position,
                offset,
            )
        else:
            log.error(
                "%s-%d of cluster %s went back from offset %d to %d (the topic was deleted and re-created, or "
                "truncated): its new records are mirrored after the old ones on the target",
                topic,
                partition,
                self._source_alias,
                position,
                offset,
            )

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        if metadata is None or self._stopping:
            return  # a record a transform dropped, or a task on its way out
        upstream = record.source_partition or {}
        metrics = self._metrics.get((str(upstream.get("topic")), int(upstream.get("partition", -1))))
        if metrics is not None:
            metrics.records.add()
            if record.timestamp is not None:
                metrics.latency.record(time.time() * 1000 - record.timestamp)
        if self._syncs is None:
            return
        self._syncs.offer(
            upstream["topic"], upstream["partition"], (record.source_offset or {})["offset"], metadata.offset
        )
        self._send_syncs()

    def commit(self) -> None:
        if self._syncs is not None:
            self._syncs.promote_delayed()
            self._send_syncs()

    def _send_syncs(self) -> None:
        syncs = self._syncs
        assert syncs is not None
        for sync in syncs.take_sendable():
            try:
                self._syncs_producer.produce(
                    self._syncs_topic, sync.value(), sync.key(), 0, on_delivery=lambda error, _: _sent(syncs, error)
                )
            except (BufferError, RuntimeError) as exc:
                syncs.sent()
                log.warning("Could not send an offset sync, a later one will do: %s", exc)
        self._syncs_producer.poll(0)

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


def _header_items(headers: Any) -> list[tuple[str, Any]]:
    if not headers:
        return []
    return list(headers.items()) if isinstance(headers, Mapping) else list(headers)
