"""The mirror source task resumes after the last mirrored record, keeps each record as it was (bytes, headers,
timestamp, partition), stores offsets under Java's keys, and sends offset syncs as Java's task does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from connect.api import RecordMetadata, SourceRecord
from connect.mirror import clusters
from connect.mirror.records import OffsetSync
from connect.mirror.source_task import MirrorSourceTask, offset_syncs_topic
from connect.runtime.kafka.assigned_consumer import OffsetReset
from connect.runtime.metrics.prometheus import render
from connect.testing import FakeOffsetReader, FakeSourceTaskContext

PROPS = {
    "name": "mirror",
    "source.cluster.alias": "A",
    "target.cluster.alias": "B",
    "task.assigned.partitions": "orders-0,orders-1,my-topic-0",
    "task.index": "2",
    "offset.lag.max": "10",
}


@dataclass
class FakeMessage:
    _topic: str
    _partition: int
    _offset: int
    _key: bytes | None
    _value: bytes | None
    _headers: list[tuple[str, bytes | None]] = field(default_factory=list)
    _timestamp: tuple[int, int] = (1, 1_700_000_000_123)

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def headers(self) -> list[tuple[str, bytes | None]]:
        return self._headers

    def timestamp(self) -> tuple[int, int]:
        return self._timestamp

    def error(self) -> None:
        return None


class FakeConsumer:
    def __init__(self) -> None:
        self.starts: dict[tuple[str, int], int | None] = {}
        self.queued: list[FakeMessage] = []
        self.resets: list[OffsetReset] = []
        self.closed = False
        self.ends: dict[tuple[str, int], int] = {}

    def take_resets(self) -> list[OffsetReset]:
        resets, self.resets = self.resets, []
        return resets

    def assign(self, starts: Mapping[tuple[str, int], int | None]) -> None:
        self.starts = dict(starts)

    def consume(self, max_records: int, timeout: float) -> list[FakeMessage]:
        assert not self.closed
        taken, self.queued = self.queued[:max_records], self.queued[max_records:]
        return taken

    def close(self) -> None:
        self.closed = True

    def high_watermark(self, topic: str, partition: int) -> int | None:
        return self.ends.get((topic, partition))


class FakeProducer:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes, bytes, int]] = []
        self.callbacks: list[Any] = []

    def produce(self, topic: str, value: bytes, key: bytes, partition: int, on_delivery: Any) -> None:
        self.sent.append((topic, key, value, partition))
        self.callbacks.append(on_delivery)

    def poll(self, timeout: float = 0) -> int:
        return 0

    def flush(self, timeout: float = -1) -> int:
        return 0


@dataclass
class Started:
    task: MirrorSourceTask
    consumer: FakeConsumer
    producer: FakeProducer
    reader: FakeOffsetReader


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Started:
    consumer, producer = FakeConsumer(), FakeProducer()
    monkeypatch.setattr(clusters, "consumer", lambda *args: consumer)
    monkeypatch.setattr(clusters, "producer", lambda *args: producer)
    context = FakeSourceTaskContext(offsets=[({"cluster": "A", "partition": 1, "topic": "orders"}, {"offset": 41})])
    task = MirrorSourceTask()
    task.initialize(context)
    task.start(PROPS)
    return Started(task, consumer, producer, context.offset_reader)


def test_each_partition_resumes_after_its_last_mirrored_record(started: Started) -> None:
    assert started.consumer.starts == {("orders", 0): None, ("orders", 1): 42, ("my-topic", 0): None}
    assert [list(p) for p in started.reader.asked] == [["cluster", "partition", "topic"]] * 3  # Java's key order


def test_records_keep_their_bytes_headers_timestamp_and_partition_under_the_remote_name(started: Started) -> None:
    started.consumer.queued = [
        FakeMessage("orders", 1, 42, b"k", b"v", [("h", b"1"), ("h", None)]),
        FakeMessage("orders", 0, 7, None, None, _timestamp=(0, -1)),  # a tombstone without a timestamp
    ]
    first, tombstone = started.task.poll() or []
    assert (first.topic, first.kafka_partition, first.key, first.value) == ("A.orders", 1, b"k", b"v")
    assert first.timestamp == 1_700_000_000_123
    assert [(h.key, h.value) for h in first.headers] == [("h", b"1"), ("h", None)]
    assert first.source_partition == {"cluster": "A", "partition": 1, "topic": "orders"}
    assert first.source_offset == {"offset": 42}
    assert (tombstone.key, tombstone.value, tombstone.timestamp) == (None, None, None)
    assert started.task.poll() is None


def acked(task: MirrorSourceTask, topic: str, partition: int, upstream: int, downstream: int) -> None:
    record = SourceRecord({"cluster": "A", "partition": partition, "topic": topic}, {"offset": upstream}, "A." + topic)
    task.commit_record(record, RecordMetadata("A." + topic, partition, downstream))


def test_offset_syncs_go_to_partition_0_of_the_syncs_topic_as_java_writes_them(started: Started) -> None:
    acked(started.task, "orders", 1, 42, 100)
    acked(started.task, "orders", 1, 43, 101)  # not due: at the next commit
    assert started.producer.sent == [
        (
            "mm2-offset-syncs.B.internal",
            OffsetSync("orders", 1, 42, 100).key(),
            OffsetSync("orders", 1, 42, 100).value(),
            0,
        )
    ]
    started.producer.callbacks[0](None, None)
    started.task.commit()
    assert started.producer.sent[-1][1:3] == (
        OffsetSync("orders", 1, 43, 101).key(),
        OffsetSync("orders", 1, 43, 101).value(),
    )


def test_a_record_dropped_by_a_transform_gives_no_sync(started: Started) -> None:
    record = SourceRecord({"cluster": "A", "partition": 0, "topic": "orders"}, {"offset": 1}, "A.orders")
    started.task.commit_record(record, None)
    assert started.producer.sent == []


def test_stop_closes_the_consumer_and_later_polls_return_nothing(started: Started) -> None:
    started.task.stop()
    assert started.consumer.closed
    assert started.task.poll() is None


def test_the_offset_syncs_topic_is_named_after_the_other_cluster() -> None:
    assert offset_syncs_topic(PROPS) == "mm2-offset-syncs.B.internal"
    assert offset_syncs_topic({**PROPS, "offset-syncs.topic.location": "target"}) == "mm2-offset-syncs.A.internal"


def test_each_partition_has_mirrormakers_metrics_under_strimzis_names(started: Started) -> None:
    started.consumer.queued = [
        FakeMessage("orders", 1, 42, b"k", b"12345"),
        FakeMessage("orders", 1, 43, b"k", b"678"),
    ]
    records = started.task.poll() or []
    for downstream, record in enumerate(records):
        started.task.commit_record(record, RecordMetadata("A.orders", 1, downstream))

    context = started.task.context
    assert isinstance(context, FakeSourceTaskContext)
    text = render(context.plugin_metrics.groups()).decode()
    labels = '{source="A",target="B",topic="A.orders",partition="1"}'
    assert f"kafka_connect_mirror_mirrorsourceconnector_record_count{labels} 2" in text
    assert f"kafka_connect_mirror_mirrorsourceconnector_byte_count{labels} 8" in text
    assert "# TYPE kafka_connect_mirror_mirrorsourceconnector_record_count gauge" in text

    def value(name: str) -> float:
        return float(next(line for line in text.splitlines() if line.startswith(name + labels)).rsplit(" ", 1)[1])

    # The records' timestamps are from 2023: both ages are years.
    a_year_ms = 365 * 24 * 3600 * 1000
    assert value("kafka_connect_mirror_mirrorsourceconnector_record_age_ms") > a_year_ms
    assert value("kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms_max") > a_year_ms
    # A partition with nothing mirrored yet shows zero counts.
    idle = '{source="A",target="B",topic="A.orders",partition="0"}'
    assert f"kafka_connect_mirror_mirrorsourceconnector_record_count{idle} 0" in text


def test_records_deleted_before_they_were_mirrored_are_counted_and_logged_never_skipped_quietly(
    started: Started, caplog: pytest.LogCaptureFixture
) -> None:
    # orders-1 resumes at 42, but the source deleted up to 60; my-topic-0 was re-created (back to 0).
    started.consumer.resets = [OffsetReset("orders", 1, 42), OffsetReset("my-topic", 0, 500)]
    started.consumer.queued = [FakeMessage("orders", 1, 60, b"k", b"v"), FakeMessage("my-topic", 0, 0, b"k", b"v")]
    assert len(started.task.poll() or []) == 2

    context = started.task.context
    assert isinstance(context, FakeSourceTaskContext)
    text = render(context.plugin_metrics.groups()).decode()
    orders = '{source="A",target="B",topic="A.orders",partition="1"}'
    recreated = '{source="A",target="B",topic="A.my-topic",partition="0"}'
    assert f"kafka_connect_mirror_mirrorsourceconnector_lost_record_count{orders} 18" in text
    assert f"kafka_connect_mirror_mirrorsourceconnector_offset_reset_count{orders} 1" in text
    assert f"kafka_connect_mirror_mirrorsourceconnector_lost_record_count{recreated} 0" in text
    assert f"kafka_connect_mirror_mirrorsourceconnector_offset_reset_count{recreated} 1" in text
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any("Records 42 to 59 of orders-1" in e and "18 record(s) are not on the target" in e for e in errors)
    assert any("my-topic-0 of cluster A went back from offset 500 to 0" in e for e in errors)
    # And the task's status trace says the same, while it keeps running.
    assert context.problems == errors


def test_a_poll_is_one_batch_per_partition_run_and_its_acknowledgement_gives_the_same_syncs(started: Started) -> None:
    started.consumer.queued = [FakeMessage("orders", 1, offset, b"k", b"v") for offset in range(42, 61)]
    started.consumer.queued.append(FakeMessage("orders", 0, 7, None, b"w", [("h", b"1")]))
    batches = started.task.poll_batches() or []
    assert [(b.topic, b.kafka_partition, len(b.values)) for b in batches] == [("A.orders", 1, 19), ("A.orders", 0, 1)]
    assert batches[0].headers is None and batches[1].headers is not None
    assert batches[0].source_offsets is not None and batches[0].source_offsets[-1] == {"offset": 60}

    started.consumer.ends[("orders", 1)] = 70  # the source had 9 more records when the batch was acknowledged
    started.task.commit_batch(batches[0], list(range(100, 119)))
    syncs = [OffsetSync("orders", 1, 42, 100), OffsetSync("orders", 1, 53, 111)]  # offset.lag.max=10
    assert [(key, value) for _, key, value, _ in started.producer.sent] == [(s.key(), s.value()) for s in syncs]
    for callback in started.producer.callbacks:
        callback(None, None)
    started.task.commit()
    last = OffsetSync("orders", 1, 60, 118)
    assert started.producer.sent[-1][1:3] == (last.key(), last.value())

    context = started.task.context
    assert isinstance(context, FakeSourceTaskContext)
    labels = '{source="A",target="B",topic="A.orders",partition="1"}'
    text = render(context.plugin_metrics.groups()).decode()
    assert f"kafka_connect_mirror_mirrorsourceconnector_record_count{labels} 19" in text
    assert f"kafka_connect_mirror_mirrorsourceconnector_replication_offset_lag{labels} 9" in text
