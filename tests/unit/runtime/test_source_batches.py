"""The batch path for sources: `poll_batches` sent as columns, and the fallbacks to records (transforms,
`commit_record`, a record that fails conversion or delivery), with a fake producer."""

from __future__ import annotations

import queue
import time
from collections.abc import Sequence
from typing import Any

from connect.api import OFFSET_NOT_REPORTED, Header, RecordMetadata, SourceRecord, SourceRecordBatch
from connect.api.converter import Converter
from connect.api.data import STRING_SCHEMA
from connect.converters import StringConverter
from connect.runtime.config.connector import ErrorHandlingSettings, ErrorTolerance
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.offsets import OffsetStorageReader
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.tasks.worker_source_task import WorkerSourceTask
from tests.support.pipelines import record_pipeline
from tests.support.source_fakes import DropTransformer, PickyConverter, ScriptedSourceTask
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeBatchProducer, FakeProducer, Produced

TASK = ConnectorTaskId("src", 0)


class BatchTask(ScriptedSourceTask):
    """Returns the batch lists put on `script`; `poll` must not be called."""

    def poll(self) -> list[SourceRecord] | None:
        raise AssertionError("the runtime polls a batch task through poll_batches")

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        self.polls += 1
        try:
            item = self.script.get(timeout=0.01)
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        return item  # type: ignore[return-value]


class RecordCommittingBatchTask(BatchTask):
    def __init__(self) -> None:
        super().__init__()
        self.committed: list[tuple[Any, RecordMetadata | None]] = []

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.committed.append((record.value, metadata))


class BatchCommittingTask(BatchTask):
    """Takes each batch's Kafka offsets at once; `commit_record` must not be needed."""

    def __init__(self) -> None:
        super().__init__()
        self.committed: list[tuple[list[Any], list[int]]] = []
        self.records_built: list[SourceRecordBatch] = []
        self.record_commits: list[SourceRecord] = []

    def commit_batch(self, batch: SourceRecordBatch, offsets: Sequence[int]) -> None:
        # The runtime swallows what a commit hook raises: what goes wrong is kept for the test to assert.
        if batch._records is not None:
            self.records_built.append(batch)
        self.committed.append((list(batch.values), list(offsets)))

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.record_commits.append(record)


def lines(first: int, *values: str, partition: str = "a") -> SourceRecordBatch:
    return SourceRecordBatch(
        "out",
        list(values),
        STRING_SCHEMA,
        source_partition={"file": partition},
        source_offsets=[{"line": first + i} for i in range(len(values))],
    )


class Harness:
    def __init__(
        self,
        task: BatchTask | None = None,
        *,
        value: Converter | None = None,
        tolerance: ErrorTolerance = ErrorTolerance.NONE,
        transformer: Any = None,
        producer: FakeProducer | None = None,
        runs_confirmed_by_last: bool = False,
    ) -> None:
        self.task = task or BatchTask()
        self.status = MemoryStatusStore("worker-1")
        self.store = MemoryOffsetStore()
        if producer is None:  # (a producer with nothing in flight is falsy: it has a length)
            producer = FakeProducer(failure_reports_only=not WorkerSourceTask.needs_record_reports(type(self.task)))
        self.producer = producer
        self.topics: list[str] = []
        pipeline = record_pipeline(
            TASK,
            value=value or StringConverter(),
            transformer=transformer,
            settings=ErrorHandlingSettings(tolerance=tolerance),
        )
        self.runner = WorkerSourceTask(
            TASK,
            self.task,
            {},
            self.status,
            TargetState.STARTED,
            producer=self.producer,
            pipeline=pipeline,
            offset_store=self.store,
            offset_flush_interval_ms=60_000,
            offset_flush_timeout_ms=50,
            on_topic_used=self.topics.append,
            runs_confirmed_by_last=runs_confirmed_by_last,
        )

    def offset(self, partition: str = "a") -> Any:
        return OffsetStorageReader("src", self.store).offset({"file": partition})

    def state(self) -> State | None:
        status = self.status.task_status(TASK)
        return None if status is None else status.state

    def run(self, *polls: Any) -> None:
        """Start, poll everything in `polls`, stop (which commits what was acknowledged)."""
        self.runner.start_thread()
        wait_until(lambda: self.state() is State.RUNNING, what="RUNNING")
        for item in polls:
            self.task.script.put(item)
        # One poll past the last item: everything before it was dispatched.
        wait_until(lambda: self.task.polls > len(polls) or self.state() is State.FAILED, what="all polled and sent")
        self.runner.stop()
        assert self.runner.await_stop(10)


def test_batches_are_produced_as_columns_and_only_the_last_offset_is_stored() -> None:
    h = Harness()
    batch = SourceRecordBatch(
        "out",
        ["v1", None],
        STRING_SCHEMA,
        keys=["k1", "k2"],
        key_schema=STRING_SCHEMA,
        source_partition={"file": "a"},
        source_offsets=[{"line": 1}, {"line": 2}],
        kafka_partition=2,
        timestamps=[1234, None],
        headers=[(Header("h", "x"),), ()],
    )
    h.run([batch, lines(1, "w", partition="b")])
    first, second, third = h.producer.sent
    assert (first.topic, first.key, first.value, first.partition, first.timestamp) == ("out", b"k1", b"v1", 2, 1234)
    assert first.headers == [("h", b"x")]
    assert (second.key, second.value, second.timestamp, second.headers) == (b"k2", None, 0, None)
    assert (third.key, third.value, third.partition) == (None, b"w", -1)
    assert h.offset("a") == {"line": 2} and h.offset("b") == {"line": 1}
    assert h.topics == ["out"]
    assert h.runner.records_polled == 3 and h.runner.records_sent == 3


def test_offsets_are_read_only_from_the_last_record_of_a_batch() -> None:
    class LastOnly(list[Any]):
        def __getitem__(self, index: Any) -> Any:
            assert index in (-1, len(self) - 1), "only the last offset is read"
            return super().__getitem__(index)

    h = Harness()
    batch = SourceRecordBatch(
        "out", ["x", "y"], source_partition={"file": "a"}, source_offsets=LastOnly([{"line": 1}, {"line": 2}])
    )
    h.run([batch])
    assert h.offset() == {"line": 2}


def test_with_a_transformation_chain_the_batches_become_records() -> None:
    h = Harness(transformer=DropTransformer())
    h.run([lines(1, "x", "drop", "z")])
    assert [p.value for p in h.producer.sent] == [b"X", b"Z"]
    assert h.offset() == {"line": 3}


def test_a_task_that_overrides_commit_record_gets_each_record_as_polled() -> None:
    task = RecordCommittingBatchTask()
    h = Harness(task)
    h.run([lines(1, "x", "y")])
    assert sorted(value for value, _ in task.committed) == ["x", "y"]
    assert all(metadata is not None and metadata.topic == "out" for _, metadata in task.committed)
    assert h.offset() == {"line": 2}


def test_a_task_that_overrides_commit_batch_keeps_columns_and_gets_each_batchs_kafka_offsets_in_order() -> None:
    task = BatchCommittingTask()
    h = Harness(task)
    first = lines(1, "x", "y")
    first.kafka_partition = 3
    second = lines(3, "z")
    second.kafka_partition = 3
    h.run([first, second], [lines(4, "w", partition="b")])
    assert task.committed == [(["x", "y"], [0, 1]), (["z"], [2]), (["w"], [0])]
    assert task.records_built == [] and task.record_commits == [], "batches sent as columns, no commit_record"
    assert h.offset() == {"line": 3}
    assert h.offset("b") == {"line": 4}


def test_a_batch_whose_delivery_failed_is_never_committed_to_the_task() -> None:
    task = BatchCommittingTask()
    h = Harness(task)
    h.producer.fail_values.add(b"poison")
    h.run([lines(1, "a")], [lines(2, "b", "poison")])
    assert task.committed == [(["a"], [0])]
    assert h.offset() == {"line": 1}


def numbered(first: int, *values: str, partition: int = 3) -> SourceRecordBatch:
    batch = lines(first, *values)
    batch.kafka_partition = partition
    return batch


def test_with_a_gap_less_producer_only_the_first_and_last_records_of_a_run_carry_a_delivery_report() -> None:
    task = BatchCommittingTask()
    h = Harness(task, producer=FakeProducer(gapless=True), runs_confirmed_by_last=True)
    unnamed = lines(7, "x", "y", "z", partition="b")  # no Kafka partition: the producer's partitioner picks
    h.run([numbered(1, "a", "b", "c", "d"), numbered(5, "e")], [unnamed])
    reported = [(p.value, p.callback is not None) for p in h.producer.sent]
    assert reported == [
        (b"a", True), (b"b", False), (b"c", False), (b"d", True),  # a run: its ends
        (b"e", True),  # a run of one
        (b"x", True), (b"y", True), (b"z", True),  # each record: its partition is not known before it is sent
    ]  # fmt: skip
    assert task.committed == [(["a", "b", "c", "d"], [0, 1, 2, 3]), (["e"], [4]), (["x", "y", "z"], [0, 1, 2])]
    assert h.offset() == {"line": 5} and h.offset("b") == {"line": 9}


def test_a_gap_less_run_amid_which_another_producer_wrote_has_exact_ends_and_unreported_offsets_between() -> None:
    task = BatchCommittingTask()
    h = Harness(task, producer=FakeProducer(gapless=True), runs_confirmed_by_last=True)
    h.producer.hold = True
    h.runner.start_thread()
    h.task.script.put([numbered(1, "a", "b", "c")])
    wait_until(lambda: len(h.producer.in_flight) == 3, what="the run sent")
    with h.producer.lock:  # another producer's record lands amid the run
        h.producer.in_flight.insert(1, Produced("out", b"theirs", None, 3, 0, None, None))
    h.producer.hold = False
    wait_until(lambda: task.committed, what="the run acknowledged")
    h.runner.stop()
    assert h.runner.await_stop(10)
    assert [p.value for p in h.producer.sent] == [b"a", b"theirs", b"b", b"c"]
    assert task.committed == [(["a", "b", "c"], [0, OFFSET_NOT_REPORTED, 3])]
    assert h.offset() == {"line": 3}


def test_a_gap_less_run_with_a_failed_record_fails_the_task_and_is_never_committed() -> None:
    task = BatchCommittingTask()
    h = Harness(task, producer=FakeProducer(gapless=True), runs_confirmed_by_last=True)
    h.producer.fail_values.add(b"poison")  # amid a run: its own report is not asked for, the last record's fails
    h.run([numbered(1, "a", "b")], [numbered(3, "c", "poison", "d")])
    assert task.committed == [(["a", "b"], [0, 1])]
    assert h.offset() == {"line": 2}
    assert h.state() is State.FAILED


def test_a_conversion_error_with_tolerance_all_skips_only_that_record() -> None:
    h = Harness(value=PickyConverter(), tolerance=ErrorTolerance.ALL)
    h.run([lines(1, "one", "bad", "three"), lines(4, "four")])
    assert [p.value for p in h.producer.sent] == [b"one", b"three", b"four"]
    assert h.offset() == {"line": 4}
    assert h.runner.pipeline.errors.counters.total_records_skipped == 1


def test_a_conversion_error_fails_the_task_by_default_and_keeps_the_batch_uncommitted() -> None:
    h = Harness(value=PickyConverter())
    h.runner.start_thread()
    h.task.script.put([lines(1, "one")])
    wait_until(lambda: h.offset() is not None or len(h.producer.sent) == 1, what="first batch sent")
    h.task.script.put([lines(2, "two", "bad value")])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and status.trace is not None
    assert "ToleranceExceededError" in status.trace and "cannot convert bad value" in status.trace
    assert h.runner.await_stop(5)
    assert h.offset() == {"line": 1}


def test_a_failed_delivery_keeps_the_batch_offset_uncommitted() -> None:
    h = Harness()
    h.producer.fail_values.add(b"poison")
    h.run([lines(1, "a")], [lines(2, "b", "poison", "c")])
    assert h.state() is State.FAILED
    assert h.offset() == {"line": 1}


def test_a_failed_delivery_with_tolerance_all_moves_on() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL)
    h.producer.fail_values.add(b"poison")
    h.runner.send_batch([lines(1, "a", "poison", "c")])  # type: ignore[list-item]
    assert h.runner.commit_offsets()
    assert [p.value for p in h.producer.sent] == [b"a", b"c"]
    assert h.offset() == {"line": 3}


def test_a_full_producer_queue_is_waited_out() -> None:
    h = Harness()
    h.producer.capacity = 2
    h.runner.send_columns([lines(0, *(f"v{i}" for i in range(10)))])
    h.runner.commit_offsets()
    assert len(h.producer.sent) == 10
    assert h.offset() == {"line": 9}


def test_a_batch_without_source_partition_stores_no_offset() -> None:
    h = Harness()
    h.run([SourceRecordBatch("out", ["x"], STRING_SCHEMA)])
    assert [p.value for p in h.producer.sent] == [b"x"]
    assert h.runner.submitted.pending_partitions() == 0
    assert h.runner.offset_commits == 0


class RefusingProducer(FakeProducer):
    """Raises (as librdkafka does for a message too large) on produce of one value."""

    def produce(self, topic: str, value: Any = None, *args: Any, **kwargs: Any) -> None:
        if value == b"too large":
            raise ValueError("Broker: Message size too large")
        super().produce(topic, value, *args, **kwargs)


def test_a_record_produce_refuses_is_redone_alone_under_the_error_policy() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL)
    h.producer = RefusingProducer(failure_reports_only=True)
    h.runner.producer = h.producer
    h.runner.send_columns([lines(1, "a", "too large", "c")])
    assert h.runner.commit_offsets()
    assert [p.value for p in h.producer.sent] == [b"a", b"c"]
    assert h.offset() == {"line": 3}
    assert h.runner.pipeline.errors.counters.total_records_skipped == 1


def test_batches_handed_to_send_batch_go_through_the_transformation_chain() -> None:
    h = Harness(transformer=DropTransformer())
    h.runner.send_batch([lines(1, "x", "drop")])  # type: ignore[list-item]
    h.runner.commit_offsets()
    assert [p.value for p in h.producer.sent] == [b"X"]
    assert h.offset() == {"line": 2}


def batch_harness(**kwargs: Any) -> tuple[Harness, FakeBatchProducer]:
    producer = FakeBatchProducer()
    return Harness(producer=producer, **kwargs), producer


def test_a_producer_that_takes_values_gets_each_batch_without_timestamps_or_headers_in_one_call() -> None:
    h, producer = batch_harness()
    keyed = SourceRecordBatch(
        "out",
        ["a", "b"],
        STRING_SCHEMA,
        keys=["k1", "k2"],
        key_schema=STRING_SCHEMA,
        source_partition={"file": "a"},
        source_offsets=[{"line": 1}, {"line": 2}],
        timestamp_at_send=True,
    )
    stamped = SourceRecordBatch("out", ["c"], STRING_SCHEMA, timestamps=[1234])
    h.run([keyed, stamped, lines(3, "d", "e", partition="b")])
    assert producer.batch_calls == [2, 2]  # the stamped record went by itself
    assert [(p.key, p.value, p.timestamp) for p in h.producer.sent] == [
        (b"k1", b"a", 0),
        (b"k2", b"b", 0),
        (None, b"c", 1234),
        (None, b"d", 0),
        (None, b"e", 0),
    ]
    assert h.offset("a") == {"line": 2} and h.offset("b") == {"line": 4}
    assert h.runner.records_sent == 5


def test_values_that_fill_the_producer_queue_wait_for_room_and_keep_their_order() -> None:
    h, producer = batch_harness()
    h.producer.capacity = 3
    h.runner.send_columns([lines(0, *(f"v{i}" for i in range(10)))])
    h.runner.commit_offsets()
    assert [p.value for p in h.producer.sent] == [f"v{i}".encode() for i in range(10)]
    assert producer.batch_calls == [10] and producer.room_waits > 0
    assert h.offset() == {"line": 9}


def test_a_value_the_producer_refuses_is_redone_alone_under_the_error_policy() -> None:
    h, producer = batch_harness(tolerance=ErrorTolerance.ALL)
    producer.refuse_values.add(b"too large")
    h.runner.send_columns([lines(1, "a", "too large", "c")])
    assert h.runner.commit_offsets()
    assert [p.value for p in h.producer.sent] == [b"a", b"c"]
    assert h.offset() == {"line": 3}
    assert h.runner.records_sent == 2
    assert h.runner.pipeline.errors.counters.total_records_skipped == 1


def test_a_tombstone_sends_the_batch_record_by_record() -> None:
    h, producer = batch_harness()
    h.runner.send_columns(
        [
            SourceRecordBatch(
                "out",
                ["a", None],
                STRING_SCHEMA,
                source_partition={"file": "a"},
                source_offsets=[{"line": 1}, {"line": 2}],
            )
        ]
    )
    h.runner.commit_offsets()
    assert producer.batch_calls == []
    assert [p.value for p in h.producer.sent] == [b"a", None]
    assert h.offset() == {"line": 2}


def test_a_batch_stamped_at_send_gives_records_built_from_it_the_time_they_were_built() -> None:
    before = time.time_ns() // 1_000_000
    batch = SourceRecordBatch("out", ["a", "b"], STRING_SCHEMA, timestamp_at_send=True)
    first, second = batch
    assert batch.timestamps is None
    assert first.timestamp is not None and before <= first.timestamp <= time.time_ns() // 1_000_000
    assert second.timestamp == first.timestamp


def test_batches_with_timestamps_switch_the_task_once_to_a_producer_for_records_after_delivering_the_rest() -> None:
    h, batch_producer = batch_harness()
    record_producer = FakeProducer(failure_reports_only=True)
    h.runner.sender.record_producer = lambda: record_producer
    batch_producer.hold = True  # the first batch is still in flight when the switch comes
    h.runner.start_thread()
    wait_until(lambda: h.state() is State.RUNNING, what="RUNNING")
    h.task.script.put([lines(1, "a", "b")])
    wait_until(lambda: len(batch_producer.in_flight) == 2, what="the first batch sent")
    h.task.script.put([SourceRecordBatch("out", ["c"], STRING_SCHEMA, timestamps=[1234])])
    wait_until(lambda: batch_producer.flushes > 0, what="the switch waiting for the first batch")
    assert record_producer.in_flight == [] and record_producer.sent == []
    batch_producer.hold = False  # delivered: the stamped record may go now, after them
    h.task.script.put([lines(3, "d")])
    wait_until(
        lambda: len(record_producer.sent) + len(record_producer.in_flight) == 2, what="records via the new producer"
    )
    h.runner.stop()
    assert h.runner.await_stop(10)
    assert [p.value for p in batch_producer.sent] == [b"a", b"b"]
    assert [(p.value, p.timestamp) for p in record_producer.sent] == [(b"c", 1234), (b"d", 0)]
    assert batch_producer.batch_calls == [2] and h.runner.producer is record_producer
    assert h.offset() == {"line": 3}


class ProblemReportingTask(BatchTask):
    def poll_batches(self) -> list[SourceRecordBatch] | None:
        self.context.report_problem("records 1 to 5 were deleted before they were read")
        return super().poll_batches()


def test_a_task_that_reports_a_problem_keeps_running_with_it_as_its_status_trace() -> None:
    h = Harness(ProblemReportingTask())
    h.runner.start_thread()

    def reported() -> bool:
        status = h.status.task_status(TASK)
        return status is not None and status.trace == "records 1 to 5 were deleted before they were read"

    wait_until(reported, what="the problem in the task's status")
    status = h.status.task_status(TASK)
    assert status is not None and status.state is State.RUNNING
    h.runner.stop()
    assert h.runner.await_stop(10)
