"""WorkerSinkTask with a fake consumer: delivery order, commits, redelivery, rewinds, DLQ, pause."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from connect.api import RetriableError, SinkRecord, SinkRecordBatch, SinkTask, TopicPartition
from connect.api.converter import Converter
from connect.api.data import INT64_SCHEMA, OPTIONAL_BYTES_SCHEMA, OPTIONAL_STRING_SCHEMA, Schema, SchemaAndValue, Struct
from connect.api.records import Headers
from connect.converters import ByteArrayConverter, StringConverter
from connect.converters.schema_registry.avro import AvroConverter
from connect.runtime.config.connector import ErrorHandlingSettings, ErrorTolerance
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import KafkaMessage
from connect.runtime.pipeline.error_handling import DeadLetterQueueReporter, LogReporter
from connect.runtime.pipeline.record_transformer import RecordTransformer
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.tasks.worker_sink_task import POLL_TIMEOUT_S, WorkerSinkTask
from tests.support.pipelines import record_pipeline
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeConsumer, FakeProducer

TASK = ConnectorTaskId("snk", 1)
P0 = TopicPartition("in", 0)
P1 = TopicPartition("in", 1)


class RecordingSinkTask(SinkTask):
    def __init__(self) -> None:
        self.received: list[SinkRecord] = []
        self.puts = 0
        self.opened: list[list[TopicPartition]] = []
        self.closed: list[list[TopicPartition]] = []
        self.flushed: list[dict[TopicPartition, int]] = []
        self.fail_puts: list[BaseException] = []
        self.fail_pre_commit = False
        self.on_put: Any = None
        self.stopped = False

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def stop(self) -> None:
        self.stopped = True

    def open(self, partitions: Collection[TopicPartition]) -> None:
        self.opened.append(sorted(partitions))

    def close(self, partitions: Collection[TopicPartition]) -> None:
        self.closed.append(sorted(partitions))

    def put(self, records: Sequence[SinkRecord]) -> None:
        self.puts += 1
        if records and self.fail_puts:
            raise self.fail_puts.pop(0)
        if self.on_put is not None and records:
            self.on_put(self, records)
        self.received.extend(records)

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        if self.fail_pre_commit:
            raise RuntimeError("cannot flush")
        self.flushed.append(dict(offsets))
        return offsets


class BlockingConsumer(FakeConsumer):
    """Waits out the whole timeout when it has nothing to return (all paused, or idle), as librdkafka does."""

    def __init__(self) -> None:
        super().__init__([P0, P1])
        self.waiting = threading.Event()

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        out = super().consume(max_records, 0)
        if not out:
            self.waiting.set()
            time.sleep(timeout)
        return out


class Harness:
    def __init__(
        self,
        *,
        tolerance: ErrorTolerance = ErrorTolerance.NONE,
        dlq: bool = False,
        flush_interval_ms: int = 60_000,
        target: TargetState = TargetState.STARTED,
        consumer: FakeConsumer | None = None,
        converters: tuple[Converter, Converter] | None = None,
        task: RecordingSinkTask | None = None,
        transformer: RecordTransformer[SinkRecord] | None = None,
    ) -> None:
        self.task = task or RecordingSinkTask()
        self.status = MemoryStatusStore("worker-1")
        self.consumer = consumer or FakeConsumer([P0, P1])
        key, value = converters or (StringConverter(), StringConverter())
        settings = ErrorHandlingSettings(
            tolerance=tolerance, dlq_topic="dlq" if dlq else None, dlq_context_headers_enable=True
        )
        self.dlq_producer = FakeProducer()
        self.dlq = DeadLetterQueueReporter(settings, "snk", self.dlq_producer) if dlq else None
        reporters: list[Any] = [LogReporter(settings)] + ([self.dlq] if self.dlq else [])
        self.runner = WorkerSinkTask(
            TASK,
            self.task,
            {"topics": "in"},
            self.status,
            target,
            consumer=self.consumer,
            topics=["in"],
            topics_regex=None,
            pipeline=record_pipeline(
                TASK, key=key, value=value, transformer=transformer, settings=settings, reporters=reporters
            ),
            offset_flush_interval_ms=flush_interval_ms,
        )

    def state(self) -> State | None:
        status = self.status.task_status(TASK)
        return None if status is None else status.state

    def start(self) -> None:
        self.runner.start_thread()
        # Any state will do: a task that fails at its first record may be FAILED before RUNNING is seen.
        wait_until(lambda: self.state() is not None, what="started")

    def stop(self) -> None:
        self.runner.stop()
        assert self.runner.await_stop(10)

    def values(self) -> list[tuple[int, str]]:
        return [(r.kafka_partition, r.value) for r in self.task.received]


def test_records_arrive_converted_in_partition_order_and_offsets_are_committed() -> None:
    h = Harness(flush_interval_ms=20)
    for i in range(3):
        h.consumer.append("in", 0, f"a{i}".encode(), key=b"k", headers_=[("h", b"42")])
        h.consumer.append("in", 1, f"b{i}".encode())
    h.start()
    wait_until(lambda: len(h.task.received) == 6, what="all records")
    wait_until(lambda: h.consumer.committed_offsets == {P0: 3, P1: 3}, what="commit")
    assert [v for p, v in h.values() if p == 0] == ["a0", "a1", "a2"]
    assert [v for p, v in h.values() if p == 1] == ["b0", "b1", "b2"]
    first = h.task.received[0]
    assert (first.topic, first.key, first.kafka_offset, first.timestamp) == ("in", "k", 0, 1_700_000_000_000)
    assert first.headers[0].key == "h" and first.headers[0].value == 42
    assert h.task.opened == [[P0, P1]]
    h.stop()
    assert h.task.closed == [[P0, P1]] and h.task.stopped and h.consumer.closed
    assert h.state() is State.UNASSIGNED


class UpperCaseBytes(ByteArrayConverter):
    """A subclass that converts: the sink loop must call it, not pass the bytes through."""

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        return SchemaAndValue(OPTIONAL_STRING_SCHEMA, None if value is None else value.decode().upper())


def test_byte_array_converters_hand_the_raw_bytes_over_and_a_subclass_still_converts() -> None:
    h = Harness(converters=(ByteArrayConverter(), UpperCaseBytes()))
    h.consumer.append("in", 0, b"abc", key=b"\x00\xff")
    h.consumer.append("in", 0, None, key=None)
    h.start()
    wait_until(lambda: len(h.task.received) == 2, what="both records")
    h.stop()
    first, tombstone = h.task.received
    assert (first.key_schema, first.key) == (OPTIONAL_BYTES_SCHEMA, b"\x00\xff")
    assert (first.value_schema, first.value) == (OPTIONAL_STRING_SCHEMA, "ABC")
    assert (tombstone.key_schema, tombstone.key, tombstone.value) == (OPTIONAL_BYTES_SCHEMA, None, None)


def test_put_is_called_with_empty_batches_when_idle() -> None:
    h = Harness()
    h.start()
    wait_until(lambda: h.task.puts >= 3, what="empty puts")
    h.stop()


def test_a_sink_that_paused_all_its_partitions_keeps_getting_empty_puts_and_can_resume_in_one() -> None:
    h = Harness(consumer=BlockingConsumer(), flush_interval_ms=200)
    empty_puts_while_paused: list[float] = []
    record_put = h.task.put

    def put(records: Sequence[SinkRecord]) -> None:
        if records and not h.consumer.paused:
            h.task.context.pause(P0, P1)  # back-pressure: buffers full
        elif not records and h.consumer.paused:
            empty_puts_while_paused.append(time.monotonic())
            if len(empty_puts_while_paused) == 4:
                h.task.context.resume(P0, P1)  # drained, with no new record to trigger it
        record_put(records)

    h.task.put = put  # type: ignore[method-assign]
    h.consumer.append("in", 0, b"a")
    h.start()
    wait_until(lambda: h.consumer.paused == {P0, P1}, what="the sink pausing everything")
    h.consumer.append("in", 1, b"b")
    wait_until(lambda: [v for _, v in h.values()] == ["a", "b"], what="the record that waited for the resume")
    h.stop()
    gaps = [later - earlier for earlier, later in itertools.pairwise(empty_puts_while_paused)]
    assert len(empty_puts_while_paused) == 4
    assert max(gaps) < 0.2 + 0.15, f"empty puts at most offset.flush.interval.ms apart, got {gaps}"


def test_request_commit_from_another_thread_commits_promptly_while_the_loop_waits() -> None:
    consumer = BlockingConsumer()
    h = Harness(consumer=consumer)  # the periodic commit is a minute away
    h.consumer.append("in", 0, b"a")
    h.start()
    wait_until(lambda: len(h.task.received) == 1, what="the record")
    consumer.waiting.clear()
    wait_until(consumer.waiting.is_set, what="the loop waiting in consume")
    requested = time.monotonic()
    writer = threading.Thread(target=h.runner.context.request_commit, name="sink-writer")
    writer.start()
    wait_until(lambda: h.consumer.committed_offsets == {P0: 1}, what="the requested commit")
    elapsed = time.monotonic() - requested
    writer.join()
    h.stop()
    assert elapsed < POLL_TIMEOUT_S / 2, f"the commit came {elapsed:.2f} s after the request"


def test_a_retriable_put_error_redelivers_the_same_batch_with_partitions_paused() -> None:
    h = Harness()
    h.task.fail_puts = [RetriableError("db busy"), RetriableError("db busy")]
    pauses: list[bool] = []
    h.task.on_put = lambda task, records: pauses.append(h.consumer.pause_all)
    h.runner.context.timeout(10)
    for i in range(3):
        h.consumer.append("in", 0, f"v{i}".encode())
    h.start()
    wait_until(lambda: len(h.task.received) == 3, what="redelivered")
    assert h.values() == [(0, "v0"), (0, "v1"), (0, "v2")]
    assert pauses == [True]  # the successful redelivery happened while paused
    wait_until(lambda: not h.consumer.pause_all, what="resumed")
    h.consumer.append("in", 0, b"v3")
    wait_until(lambda: len(h.task.received) == 4, what="new records after resume")
    h.stop()
    assert h.consumer.committed_offsets == {P0: 4}


def test_a_fatal_put_error_fails_the_task_without_committing_that_batch() -> None:
    h = Harness()
    h.consumer.append("in", 0, b"ok")
    h.start()
    wait_until(lambda: len(h.task.received) == 1, what="first record")
    h.task.fail_puts = [ValueError("schema mismatch")]
    h.consumer.append("in", 0, b"breaks")
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and status.trace is not None
    assert "ValueError: schema mismatch" in status.trace
    assert h.runner.await_stop(5)
    assert h.consumer.committed_offsets == {P0: 1}


def test_pre_commit_failure_rewinds_to_the_last_committed_offsets() -> None:
    h = Harness()
    h.consumer.committed_offsets[P0] = 0
    h.consumer.append("in", 0, b"a")
    h.consumer.append("in", 0, b"b")
    h.start()
    wait_until(lambda: len(h.task.received) == 2, what="records")
    h.task.fail_pre_commit = True
    h.runner.context.request_commit()
    wait_until(lambda: (P0, 0) in h.consumer.seeks, what="rewind")
    wait_until(lambda: len(h.task.received) == 4, what="redelivered after rewind")
    assert h.values()[2:] == [(0, "a"), (0, "b")]
    h.task.fail_pre_commit = False
    h.stop()
    assert h.consumer.committed_offsets[P0] == 2


def test_pre_commit_can_hold_back_offsets_and_is_never_trusted_beyond_consumption() -> None:
    h = Harness()

    def partial(offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        return {P0: 1, P1: 99}

    h.task.pre_commit = partial  # type: ignore[method-assign]
    h.consumer.append("in", 0, b"a")
    h.consumer.append("in", 0, b"b")
    h.consumer.append("in", 1, b"c")
    h.start()
    wait_until(lambda: len(h.task.received) == 3, what="records")
    h.stop()
    assert h.consumer.committed_offsets == {P0: 1}


def test_context_offset_rewinds_the_consumer() -> None:
    h = Harness()

    def rewind_once(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        if len(task.received) == 0 and records[-1].value == "c":
            task.context.offset({P0: 1})

    h.task.on_put = rewind_once
    for value in (b"a", b"b", b"c"):
        h.consumer.append("in", 0, value)
    h.start()
    wait_until(lambda: len(h.task.received) == 5, what="re-read from offset 1")
    assert [v for _, v in h.values()] == ["a", "b", "c", "b", "c"]
    h.stop()


def test_a_rewind_requested_in_put_is_applied_before_any_commit_and_the_next_put() -> None:
    h = Harness()

    def rewind_and_commit(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        if len(task.received) == 0:
            task.context.offset({P0: 1})
            task.context.request_commit()

    h.task.on_put = rewind_and_commit
    for value in (b"a", b"b", b"c"):
        h.consumer.append("in", 0, value)
    h.start()
    wait_until(lambda: len(h.task.received) == 5, what="b and c again")
    h.stop()
    assert [v for _, v in h.values()] == ["a", "b", "c", "b", "c"]
    # The commit asked for in the same put covers only what stays accepted: a, not b and c.
    assert h.task.flushed[0] == {P0: 1}
    assert h.consumer.commits[0] == {P0: 1}


def test_a_rewind_requested_by_a_failing_put_drops_that_partitions_records_from_the_redelivery() -> None:
    h = Harness()

    def rewind_then_fail(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        if len(task.received) == 0 and any(r.kafka_partition == 0 for r in records):
            task.context.offset({P0: 2})
            raise RetriableError("db busy")

    h.task.on_put = rewind_then_fail
    for value in (b"a", b"b", b"c"):
        h.consumer.append("in", 0, value)
    h.consumer.append("in", 1, b"x")
    h.start()
    wait_until(lambda: len(h.task.received) == 2, what="x and c")
    h.stop()
    assert sorted(h.values()) == [(0, "c"), (1, "x")]
    assert [r.kafka_offset for r in h.task.received if r.kafka_partition == 0] == [2]


def test_rewinds_requested_in_open_start_the_partition_there() -> None:
    h = Harness()
    original_open = h.task.open

    def open_at_two(partitions: Any) -> None:
        original_open(partitions)
        h.task.context.offset({P0: 2})

    h.task.open = open_at_two  # type: ignore[method-assign]
    for value in (b"a", b"b", b"c"):
        h.consumer.append("in", 0, value)
    h.start()
    wait_until(lambda: len(h.task.received) == 1, what="record at offset 2")
    assert h.values() == [(0, "c")]
    h.stop()


def test_revocation_commits_then_closes_and_assignment_reopens() -> None:
    h = Harness()
    h.consumer.append("in", 0, b"a")
    h.start()
    wait_until(lambda: len(h.task.received) == 1, what="record")
    revoked: list[bool] = []

    def revoke_once(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        # A rebalance in the middle of this batch (really inside consume, but on the same thread).
        if not revoked:
            revoked.append(True)
            h.consumer.revoke()

    h.task.on_put = revoke_once
    h.consumer.append("in", 0, b"b")
    wait_until(lambda: len(h.task.received) == 3, what="b again after reassignment")
    assert h.task.closed == [[P0, P1]]
    assert h.task.opened == [[P0, P1], [P0, P1]]
    assert h.consumer.commits[0] == {P0: 1}  # b was not accepted when the partition was revoked
    assert [v for _, v in h.values()] == ["a", "b", "b"]  # at least once
    h.stop()


def test_conversion_errors_with_tolerance_all_go_to_the_dead_letter_queue_as_raw_bytes() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL, dlq=True)
    h.consumer.append("in", 0, b"good")
    h.consumer.append("in", 0, b"\xff\xfe not utf-8")
    h.consumer.append("in", 0, b"fine")
    h.start()
    wait_until(lambda: len(h.task.received) == 2, what="good records")
    h.stop()
    assert [v for _, v in h.values()] == ["good", "fine"]
    [dead] = h.dlq_producer.sent
    assert dead.value == b"\xff\xfe not utf-8"
    headers = dict(dead.headers)
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert headers["__connect.errors.offset"] == b"1"
    assert h.consumer.committed_offsets == {P0: 3}
    errors = {
        name: v for g in h.runner.metric_groups() if g.group == "task-error-metrics" for name, v in g.values.items()
    }
    assert errors["deadletterqueue-produce-requests"] == 1 and errors["deadletterqueue-produce-failures"] == 0
    assert errors["total-record-errors"] == 1 and errors["total-records-skipped"] == 1
    assert errors["last-error-timestamp"] > 0


def test_conversion_errors_fail_the_task_by_default() -> None:
    h = Harness()
    h.consumer.append("in", 0, b"\xff")
    h.start()
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and status.trace is not None and "Tolerance exceeded" in status.trace


def test_errant_record_reporter_sends_the_original_bytes_and_commits_wait_for_it() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL, dlq=True)
    futures: list[Future[None]] = []

    def report_odd(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        reporter = task.context.errant_record_reporter
        assert reporter is not None
        for record in records:
            if record.value == "odd":
                futures.append(reporter.report(record, ValueError("odd value")))

    h.task.on_put = report_odd
    h.consumer.append("in", 0, b"even")
    h.consumer.append("in", 0, b"odd", key=b"k")
    h.start()
    wait_until(lambda: len(h.task.received) == 2, what="records")
    h.stop()
    assert futures and futures[0].done() and futures[0].exception() is None
    [dead] = h.dlq_producer.sent
    assert (dead.key, dead.value) == (b"k", b"odd")
    assert dict(dead.headers)["__connect.errors.stage"] == b"TASK_PUT"


def test_without_dlq_or_error_log_there_is_no_errant_record_reporter() -> None:
    h = Harness()
    h.start()
    assert h.task.context.errant_record_reporter is None
    h.stop()


def test_pause_pauses_every_partition_and_keeps_polling() -> None:
    h = Harness()
    h.start()
    h.runner.transition_to(TargetState.PAUSED)
    wait_until(lambda: h.state() is State.PAUSED, what="PAUSED")
    assert h.consumer.pause_all
    h.consumer.append("in", 0, b"held back")
    puts = h.task.puts
    wait_until(lambda: h.task.puts > puts + 2, what="still polling")
    assert h.task.received == []
    h.runner.transition_to(TargetState.STARTED)
    wait_until(lambda: h.state() is State.RUNNING, what="RUNNING")
    wait_until(lambda: len(h.task.received) == 1, what="record after resume")
    h.stop()


def test_a_task_started_paused_reports_paused_and_reads_nothing() -> None:
    h = Harness(target=TargetState.PAUSED)
    h.consumer.append("in", 0, b"x")
    h.start()
    wait_until(lambda: h.state() is State.PAUSED, what="PAUSED")
    wait_until(lambda: h.task.puts > 2, what="polling")
    assert h.task.received == []
    h.stop()


# -- columnar delivery (put_batches) -----------------------------------------------------------


class BatchRecordingSinkTask(RecordingSinkTask):
    """Overrides put_batches: keeps the batches, and their records (built from them) in `received`."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[SinkRecordBatch] = []

    def put_batches(self, batches: Sequence[SinkRecordBatch]) -> None:
        self.batches.extend(batches)
        self.put([record for batch in batches for record in batch])


class Identity:
    """A transformation chain that changes nothing: its presence alone means records, not batches."""

    def apply_batch(self, records: list[Any]) -> list[Any]:
        return records

    def close(self) -> None:
        pass


BYTES = (ByteArrayConverter(), ByteArrayConverter())


def test_a_task_that_takes_batches_gets_the_consumed_bytes_column_by_column() -> None:
    h = Harness(converters=BYTES, task=BatchRecordingSinkTask(), flush_interval_ms=20)
    h.consumer.append("in", 0, b"a0", key=b"k0", headers_=[("h", b"42")])
    h.consumer.append("in", 0, None, key=b"k1", timestamp_=(0, -1))
    h.consumer.append("in", 0, b"a2")
    h.consumer.append("in", 1, b"b0")
    h.start()
    wait_until(lambda: len(h.task.received) == 4, what="all records")
    wait_until(lambda: h.consumer.committed_offsets == {P0: 3, P1: 1}, what="commit")
    h.stop()
    batches: list[SinkRecordBatch] = h.task.batches  # type: ignore[attr-defined]
    assert [(b.topic_partition, list(b.offsets)) for b in batches] == [(P0, [0, 1, 2]), (P1, [0])]
    first = batches[0]
    assert list(first.values) == [b"a0", None, b"a2"]
    assert list(first.keys) == [b"k0", b"k1", None]
    assert list(first.timestamps) == [1_700_000_000_000, None, 1_700_000_000_000]
    assert first.value_schema == OPTIONAL_BYTES_SCHEMA
    # A record built from a batch is the one put would have been given.
    record = first[0]
    assert (record.topic, record.kafka_partition, record.kafka_offset, record.key, record.value) == (
        "in", 0, 0, b"k0", b"a0",
    )  # fmt: skip
    assert record.headers[0].key == "h" and record.headers[0].value == 42
    assert first[-1].value == b"a2" and first[1].timestamp is None
    assert h.runner.records_put == 4


def test_converted_columns_reach_put_batches_and_transforms_mean_records_through_put() -> None:
    converting = Harness(task=BatchRecordingSinkTask())  # StringConverter
    transformed = Harness(converters=BYTES, task=BatchRecordingSinkTask(), transformer=Identity())
    for h in (converting, transformed):
        h.consumer.append("in", 0, b"a0")
        h.start()
        wait_until(lambda h=h: h.task.puts >= 1 and len(h.task.received) == 1, what="the record")  # type: ignore[misc]
        h.stop()
    [batch] = converting.task.batches  # type: ignore[attr-defined]
    assert list(batch.values) == ["a0"] and batch.value_schema == OPTIONAL_STRING_SCHEMA
    assert transformed.task.batches == []  # type: ignore[attr-defined]
    assert converting.task.received[0].value == "a0" and transformed.task.received[0].value == b"a0"


class ColumnsRecordingSinkTask(BatchRecordingSinkTask):
    takes_value_columns = True


class MockRegistryAvroConverter(AvroConverter):
    """An AvroConverter on confluent-kafka's in-memory registry, whatever it is configured with."""

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        super().configure({"schema.registry.url": "mock://sink-columns", **configs}, is_key)


def test_a_task_that_takes_value_columns_gets_avro_records_field_by_field_and_others_get_structs() -> None:
    order_schema = Schema.struct([("id", INT64_SCHEMA), ("name", OPTIONAL_STRING_SCHEMA)], name="shop.Order")
    received: dict[str, list[SinkRecordBatch]] = {}
    for name, task in (("columns", ColumnsRecordingSinkTask()), ("structs", BatchRecordingSinkTask())):
        avro = MockRegistryAvroConverter()
        h = Harness(converters=(ByteArrayConverter(), avro), task=task)  # configures the converter
        for n in (1, 2):
            h.consumer.append(
                "in", 0, avro.from_connect_data("in", order_schema, Struct(order_schema, {"id": n, "name": f"n{n}"}))
            )
        h.start()
        wait_until(lambda h=h: len(h.task.received) == 2, what="both records")  # type: ignore[misc]
        h.stop()
        received[name] = task.batches
        assert [r.value.get("name") for r in task.received] == ["n1", "n2"]
        assert all(r.value_schema == r.value.schema == h.task.received[0].value_schema for r in task.received)
        assert task.received[0].value.schema.name == "shop.Order"
    [columnar] = received["columns"]
    assert columnar.value_columns is not None and columnar.value_columns.columns == {"id": [1, 2], "name": ["n1", "n2"]}
    assert list(columnar.values) == list(received["structs"][0].values)
    assert received["structs"][0].value_columns is None


def test_a_retriable_error_from_put_batches_redelivers_the_batches_minus_a_rewound_partition() -> None:
    h = Harness(converters=BYTES, task=BatchRecordingSinkTask())
    attempts: list[list[TopicPartition]] = []

    def rewind_then_fail(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        attempts.append(sorted({r.topic_partition for r in records}))
        if len(attempts) == 1:
            task.context.offset({P0: 2})
            raise RetriableError("db busy")

    h.task.on_put = rewind_then_fail
    h.runner.context.timeout(10)
    for value in (b"a", b"b", b"c"):
        h.consumer.append("in", 0, value)
    h.consumer.append("in", 1, b"x")
    h.start()
    wait_until(lambda: len(h.task.received) == 2, what="x, then c from the rewound offset")
    h.stop()
    assert attempts[:2] == [[P0, P1], [P1]], "the redelivery holds P1's batch only"
    assert sorted((r.kafka_partition, r.kafka_offset, r.value) for r in h.task.received) == [(0, 2, b"c"), (1, 0, b"x")]


def test_a_record_of_a_batch_reported_as_errant_reaches_the_dead_letter_queue_with_its_bytes() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL, dlq=True, converters=BYTES, task=BatchRecordingSinkTask())

    def report_odd(task: RecordingSinkTask, records: Sequence[SinkRecord]) -> None:
        reporter = task.context.errant_record_reporter
        assert reporter is not None
        for record in records:
            if record.value == b"odd":
                reporter.report(record, ValueError("odd value"))

    h.task.on_put = report_odd
    h.consumer.append("in", 0, b"even")
    h.consumer.append("in", 0, b"odd", key=b"k")
    h.start()
    wait_until(lambda: len(h.dlq_producer.sent) == 1, what="the dead letter")
    h.stop()
    [dead] = h.dlq_producer.sent
    assert (dead.key, dead.value) == (b"k", b"odd")


def _metric_values(runner: WorkerSinkTask) -> dict[tuple[str, str], Any]:
    return {(g.group, name): v for g in runner.metric_groups() for name, v in g.values.items()}


def test_metrics_count_what_was_read_put_and_committed_and_the_lag_left() -> None:
    h = Harness(flush_interval_ms=20, consumer=FakeConsumer([P0, P1], max_records=4))
    for i in range(5):
        h.consumer.append("in", 0, f"a{i}".encode())
    h.start()
    wait_until(lambda: h.consumer.committed_offsets == {P0: 5}, what="commit")
    values = _metric_values(h.runner)
    assert values["sink-task-metrics", "sink-record-read-total"] == 5
    assert values["sink-task-metrics", "sink-record-send-total"] == 5
    assert values["sink-task-metrics", "partition-count"] == 2
    assert values["sink-task-metrics", "offset-commit-completion-total"] >= 1
    assert values["sink-task-metrics", "sink-record-lag-max"] == 0
    assert values["connector-task-metrics", "batch-size-max"] == 4  # 4 then 1
    assert values["connector-task-metrics", "offset-commit-success-percentage"] == 1.0
    assert values["task-error-metrics", "total-record-errors"] == 0
    h.runner.transition_to(TargetState.PAUSED)
    wait_until(lambda: h.consumer.pause_all, what="paused")
    for i in range(3):
        h.consumer.append("in", 1, f"b{i}".encode())
    lags = {
        g.tag("partition"): g.values["lag"] for g in h.runner.metric_groups() if g.group.endswith("partition-metrics")
    }
    assert lags == {"0": 0, "1": 3}
    assert _metric_values(h.runner)["sink-task-metrics", "sink-record-lag-max"] == 3
    # Paused partitions are not fetched, so their lag is a question to the brokers: every scrape and every
    # open dashboard within a couple of seconds shares one answer.
    assert h.consumer.fresh_lag_queries == 1
    h.stop()
