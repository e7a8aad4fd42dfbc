"""The exactly-once source runner with a fake transactional producer: boundaries, offsets, aborts, fencing."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from connect.api import RecordMetadata, SourceRecord, SourceRecordBatch, SourceTask
from connect.api.data import STRING_SCHEMA
from connect.runtime.config.connector import ErrorHandlingSettings, ErrorTolerance
from connect.runtime.config.connector.keys import TransactionBoundary
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.offsets import OffsetStorageReader, decode_key, decode_offset
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.tasks.worker_eos_source_task import WorkerEosSourceTask
from connect.runtime.tasks.worker_source_task import WorkerSourceTask
from tests.support.pipelines import record_pipeline
from tests.support.source_fakes import PickyConverter
from tests.support.transaction_fakes import (
    OFFSETS_TOPIC,
    TRANSACTIONAL_ID,
    FakeTransactionalProducer,
    FakeTransactionLog,
)
from tests.support.waiting import wait_until
from tests.support.worker_fakes import Produced

TASK = ConnectorTaskId("src", 0)


class ScriptedSourceTask(SourceTask):
    """Returns the batches put on `script` (exceptions are raised, callables run with the task)."""

    def __init__(self) -> None:
        self.script: queue.Queue[Any] = queue.Queue()
        self.commits = 0
        self.started_from: Mapping[str, Any] | None = None
        self.committed_records: list[tuple[Any, RecordMetadata | None]] = []

    def start(self, props: Mapping[str, str]) -> None:
        self.started_from = self.context.offset_reader.offset({"file": "a"})

    def stop(self) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        try:
            item = self.script.get(timeout=0.01)
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            return item(self)  # type: ignore[no-any-return]
        return item  # type: ignore[no-any-return]

    def commit(self) -> None:
        self.commits += 1


class RecordCommittingTask(ScriptedSourceTask):
    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.committed_records.append((record.value, metadata))


def rec(line: int, value: str | None = None, topic: str = "out") -> SourceRecord:
    return SourceRecord({"file": "a"}, {"line": line}, topic, value=value if value is not None else f"v{line}")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Harness:
    def __init__(
        self,
        boundary: TransactionBoundary = TransactionBoundary.POLL,
        *,
        log: FakeTransactionLog | None = None,
        task: ScriptedSourceTask | None = None,
        tolerance: ErrorTolerance = ErrorTolerance.NONE,
        interval_ms: int = 60_000,
        clock: Callable[[], float] | None = None,
        ownership_check: Callable[[], None] | None = None,
    ) -> None:
        self.log = log or FakeTransactionLog()
        self.task = task or ScriptedSourceTask()
        self.status = MemoryStatusStore("worker-1")
        reports_only = not WorkerSourceTask.needs_record_reports(type(self.task))
        self.producer = FakeTransactionalProducer(self.log, failure_reports_only=reports_only)
        settings = ErrorHandlingSettings(tolerance=tolerance)
        self.runner = WorkerEosSourceTask(
            TASK,
            self.task,
            {},
            self.status,
            TargetState.STARTED,
            producer=self.producer,
            pipeline=record_pipeline(TASK, value=PickyConverter(), settings=settings),
            offset_store=self.log.offsets,
            transaction_boundary=boundary,
            transaction_boundary_interval_ms=interval_ms,
            ownership_check=ownership_check,
            clock=clock or time.monotonic,
        )

    def start(self) -> Harness:
        self.runner.start_thread()
        wait_until(lambda: self.state() is State.RUNNING, what="task RUNNING")
        return self

    def stop(self) -> None:
        self.runner.stop()
        assert self.runner.await_stop(5), "runner did not stop"

    def state(self) -> State | None:
        status = self.status.task_status(TASK)
        return None if status is None else status.state

    def stored_line(self) -> int | None:
        offset = OffsetStorageReader("src", self.log.offsets).offset({"file": "a"})
        return None if offset is None else int(offset["line"])


def offsets_in(transaction: list[Produced]) -> list[tuple[Any, Any]]:
    return [
        (decode_key(r.key)[1] if r.key else None, decode_offset(r.value))  # type: ignore[index]
        for r in transaction
        if r.topic == OFFSETS_TOPIC
    ]


# -- boundaries ----------------------------------------------------------------------------------------


def test_poll_boundary_commits_each_batch_with_its_offsets_in_the_same_transaction() -> None:
    h = Harness().start()
    h.task.script.put([rec(1), rec(2)])
    wait_until(lambda: len(h.log.committed) == 1, what="first commit")
    h.task.script.put([rec(3)])
    wait_until(lambda: len(h.log.committed) == 2, what="second commit")
    h.stop()
    first, second = h.log.committed
    assert [r.value for r in first if r.topic == "out"] == [b"v1", b"v2"]
    assert offsets_in(first) == [({"file": "a"}, {"line": 2})]
    # Offsets are written last, so a reader never sees them ahead of their records.
    assert first[-1].topic == OFFSETS_TOPIC
    assert offsets_in(second) == [({"file": "a"}, {"line": 3})]
    assert h.stored_line() == 3
    assert h.task.commits >= 2
    assert h.producer.calls[:5] == ["init", "begin", "commit", "begin", "commit"]
    assert h.state() is State.UNASSIGNED


def test_interval_boundary_commits_everything_polled_once_the_interval_passed() -> None:
    clock = Clock()
    h = Harness(TransactionBoundary.INTERVAL, interval_ms=1000, clock=clock).start()
    h.task.script.put([rec(1)])
    h.task.script.put([rec(2), rec(3)])
    wait_until(lambda: h.task.script.empty() and len(h.producer.transaction or []) == 3, what="records sent")
    assert h.log.committed == []
    assert h.stored_line() is None
    clock.now += 1.0
    wait_until(lambda: len(h.log.committed) == 1, what="interval commit")
    assert [r.value for r in h.log.committed[0] if r.topic == "out"] == [b"v1", b"v2", b"v3"]
    assert offsets_in(h.log.committed[0]) == [({"file": "a"}, {"line": 3})]
    assert h.task.commits == 1
    h.stop()


def test_stop_commits_the_open_interval_transaction() -> None:
    h = Harness(TransactionBoundary.INTERVAL, interval_ms=30_000).start()
    h.task.script.put([rec(1), rec(2)])
    wait_until(lambda: len(h.producer.transaction or []) == 2, what="records sent")
    h.stop()
    assert h.log.data() == ["v1", "v2"]
    assert h.stored_line() == 2


def test_pause_commits_the_open_transaction_before_idling() -> None:
    h = Harness(TransactionBoundary.INTERVAL, interval_ms=30_000).start()
    h.task.script.put([rec(1)])
    wait_until(lambda: len(h.producer.transaction or []) == 1, what="record sent")
    h.runner.transition_to(TargetState.PAUSED)
    wait_until(lambda: h.state() is State.PAUSED, what="PAUSED")
    assert h.log.data() == ["v1"]
    assert h.producer.transaction is None
    h.stop()


def test_connector_boundary_splits_the_batch_after_the_record_the_task_named() -> None:
    h = Harness(TransactionBoundary.CONNECTOR).start()
    context = h.task.context.transaction_context
    assert context is not None
    batch = [rec(1), rec(2), rec(3)]
    context.commit_transaction(batch[1])
    h.task.script.put(batch)
    wait_until(lambda: len(h.log.committed) == 1, what="commit after record 2")
    assert [r.value for r in h.log.committed[0] if r.topic == "out"] == [b"v1", b"v2"]
    assert offsets_in(h.log.committed[0]) == [({"file": "a"}, {"line": 2})]
    # Record 3 waits in an open transaction until the task asks again.
    wait_until(lambda: len(h.producer.transaction or []) == 1, what="record 3 sent")
    context.commit_transaction()
    wait_until(lambda: len(h.log.committed) == 2, what="batch commit")
    assert h.log.data() == ["v1", "v2", "v3"]
    assert h.stored_line() == 3
    h.stop()


def test_connector_abort_drops_the_records_but_commits_their_offsets() -> None:
    h = Harness(TransactionBoundary.CONNECTOR).start()
    context = h.task.context.transaction_context
    assert context is not None
    batch = [rec(1), rec(2)]
    context.abort_transaction(batch[1])
    h.task.script.put(batch)
    wait_until(lambda: len(h.log.committed) == 1, what="offsets commit after the abort")
    assert [[r.value for r in txn] for txn in h.log.aborted] == [[b"v1", b"v2"]]
    assert h.log.data() == []
    assert offsets_in(h.log.committed[0]) == [({"file": "a"}, {"line": 2})]
    assert h.runner.transactions_aborted == 1
    h.stop()


def test_connector_boundary_leaves_nothing_committed_that_the_task_did_not_ask_for() -> None:
    h = Harness(TransactionBoundary.CONNECTOR).start()
    h.task.script.put([rec(1)])
    wait_until(lambda: len(h.producer.transaction or []) == 1, what="record sent")
    h.stop()
    assert h.log.data() == []
    assert [[r.value for r in txn] for txn in h.log.aborted] == [[b"v1"]]
    assert h.stored_line() is None


def test_asking_to_commit_and_abort_the_same_record_fails_the_task() -> None:
    h = Harness(TransactionBoundary.CONNECTOR).start()
    context = h.task.context.transaction_context
    assert context is not None
    record = rec(1)
    context.commit_transaction(record)
    context.abort_transaction(record)
    h.task.script.put([record])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and "both commit and abort" in (status.trace or "")
    assert h.log.data() == []


def test_commit_record_comes_only_after_the_transaction_committed() -> None:
    task = RecordCommittingTask()
    h = Harness(TransactionBoundary.INTERVAL, task=task, interval_ms=30_000).start()
    task.script.put([rec(1), rec(2)])
    wait_until(lambda: len(h.producer.transaction or []) == 2 and not h.producer.in_flight, what="records acked")
    assert task.committed_records == []  # acknowledged, but the transaction is still open
    h.stop()
    assert [value for value, _ in task.committed_records] == ["v1", "v2"]
    assert all(metadata is not None and metadata.topic == "out" for _, metadata in task.committed_records)


# -- errors --------------------------------------------------------------------------------------------


def test_a_conversion_error_aborts_the_transaction_and_fails_the_task() -> None:
    h = Harness(TransactionBoundary.INTERVAL, interval_ms=30_000).start()
    h.task.script.put([rec(1)])
    wait_until(lambda: len(h.producer.transaction or []) == 1, what="record sent")
    h.task.script.put([rec(2, "bad value")])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    assert h.log.data() == []
    assert [[r.value for r in txn] for txn in h.log.aborted] == [[b"v1"]]
    assert h.stored_line() is None


def test_with_tolerance_all_a_bad_record_is_skipped_and_its_offset_committed() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL).start()
    h.task.script.put([rec(1), rec(2, "bad value"), rec(3)])
    wait_until(lambda: len(h.log.committed) == 1, what="commit")
    h.stop()
    assert h.log.data() == ["v1", "v3"]
    assert h.stored_line() == 3


def test_a_record_kafka_refuses_aborts_the_transaction_and_fails_the_task_whatever_the_tolerance() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL)
    h.producer.fail_values.add(b"v2")
    h.start()
    h.task.script.put([rec(1), rec(2), rec(3)])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    assert h.log.data() == []
    assert len(h.log.aborted) == 1
    assert h.stored_line() is None
    status = h.status.task_status(TASK)
    assert status is not None and "exactly-once transaction" in (status.trace or "")


def test_a_commit_kafka_refuses_is_aborted_and_fails_the_task() -> None:
    h = Harness().start()
    h.producer.fail_next_commit = True
    h.task.script.put([rec(1)])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    assert h.log.data() == []
    assert [[r.topic for r in txn] for txn in h.log.aborted] == [["out", OFFSETS_TOPIC]]


def test_records_for_the_offsets_topic_fail_the_task() -> None:
    h = Harness().start()
    h.task.script.put([rec(1, topic=OFFSETS_TOPIC)])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and "own offsets topics" in (status.trace or "")
    assert h.log.committed == []


# -- fencing and restarts ------------------------------------------------------------------------------


def test_a_fenced_runner_stops_without_failing_committing_or_making_a_new_producer() -> None:
    log = FakeTransactionLog()
    old = Harness(TransactionBoundary.INTERVAL, log=log, interval_ms=30_000).start()
    old.task.script.put([rec(1)])
    wait_until(lambda: len(old.producer.transaction or []) == 1, what="record sent")
    new = Harness(log=log).start()  # fences `old`
    old.task.script.put([rec(2)])
    wait_until(lambda: old.runner.fenced, what="old runner fenced")
    assert old.runner.await_stop(5)
    assert old.state() is State.UNASSIGNED
    assert "commit" not in old.producer.calls and "abort" not in old.producer.calls
    assert old.producer.calls.count("init") == 1
    assert log.data() == []
    new.task.script.put([rec(7, "new owner")])
    wait_until(lambda: log.data() == ["new owner"], what="new owner's commit")
    assert new.state() is State.RUNNING
    new.stop()


def test_a_restarted_task_resumes_from_committed_offsets_only() -> None:
    log = FakeTransactionLog()
    clock = Clock()
    first = Harness(TransactionBoundary.INTERVAL, log=log, interval_ms=1000, clock=clock).start()
    first.task.script.put([rec(1), rec(2)])
    wait_until(lambda: len(first.producer.transaction or []) == 2, what="records 1-2 sent")
    clock.now += 1
    wait_until(lambda: len(log.committed) == 1, what="first commit")
    # Record 3 is sent but never committed: the runner hangs mid-transaction (a crashed or stalled worker).
    release = threading.Event()

    def hang(task: ScriptedSourceTask) -> list[SourceRecord]:
        release.wait(10)
        return [rec(4)]

    first.task.script.put([rec(3)])
    first.task.script.put(hang)
    wait_until(lambda: first.task.script.empty() and len(first.producer.transaction or []) == 1, what="hang")
    second = Harness(log=log).start()
    assert second.task.started_from == {"line": 2}
    release.set()  # the zombie wakes up and carries on
    wait_until(lambda: first.runner.fenced, what="first runner fenced")
    assert first.runner.await_stop(5)
    assert first.state() is State.UNASSIGNED
    assert log.data() == ["v1", "v2"]
    second.task.script.put([rec(3), rec(4)])
    wait_until(lambda: log.data() == ["v1", "v2", "v3", "v4"], what="second owner's commit")
    second.stop()


def test_a_transaction_older_than_the_transaction_timeout_fails_with_kafkas_advice() -> None:
    clock = Clock()
    log = FakeTransactionLog()
    h = Harness(TransactionBoundary.INTERVAL, log=log, interval_ms=30_000, clock=clock).start()
    h.task.script.put([rec(1)])
    wait_until(lambda: len(h.producer.transaction or []) == 1, what="record sent")
    clock.now += 61  # past transaction.timeout.ms: Kafka aborted it and bumped the epoch
    log.epochs[TRANSACTIONAL_ID] += 1
    h.task.script.put([rec(2)])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and "before its producer transaction expired" in (status.trace or "")


def test_the_ownership_check_runs_around_init_transactions_and_can_refuse_the_start() -> None:
    calls: list[str] = []
    log = FakeTransactionLog()

    def check() -> None:
        calls.append("init" if log.epochs else "none")
        if len(calls) == 2:
            raise RuntimeError("task configs changed while fencing")

    h = Harness(log=log, ownership_check=check)
    h.runner.start_thread()
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    assert calls == ["none", "init"]
    assert h.task.started_from is None  # never started


@pytest.mark.parametrize("boundary", [TransactionBoundary.POLL, TransactionBoundary.INTERVAL])
def test_every_record_is_committed_once_in_order(boundary: TransactionBoundary) -> None:
    h = Harness(boundary, interval_ms=5).start()
    batches = [[rec(line)] if line % 3 else [rec(line, f"a{line}"), rec(line, f"b{line}")] for line in range(1, 41)]
    for batch in batches:
        h.task.script.put(batch)
    wait_until(lambda: h.task.script.empty(), what="batches taken")
    h.stop()
    assert h.log.data() == [record.value for batch in batches for record in batch]
    assert h.state() is State.UNASSIGNED
    assert h.stored_line() == 40


def test_a_bare_fatal_error_between_transactions_is_recognised_as_fencing() -> None:
    log = FakeTransactionLog()
    old = Harness(log=log)
    real_poll = old.producer.poll

    def poll(timeout: float = -1) -> int:
        if log.epochs.get(TRANSACTIONAL_ID) != old.producer.epoch:
            raise RuntimeError("Fatal error")  # librdkafka's _FATAL: says nothing about why
        return real_poll(timeout)

    old.producer.poll = poll  # type: ignore[method-assign]
    old.start()
    old.task.script.put([rec(1)])
    wait_until(lambda: log.data() == ["v1"], what="first commit")
    Harness(log=log).start()
    wait_until(lambda: old.runner.fenced, what="old runner fenced")
    assert old.runner.await_stop(5)
    assert old.state() is State.UNASSIGNED


# -- poll_batches: columns land in the transactions as records do; `connector` boundaries take the
# records, so a named record still splits the transaction --------------------------------------------


class BatchTask(ScriptedSourceTask):
    def poll(self) -> list[SourceRecord] | None:
        raise AssertionError("the runtime polls a batch task through poll_batches")

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        try:
            item = self.script.get(timeout=0.01)
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        return item(self) if callable(item) else item  # type: ignore[no-any-return]


def lines(first: int, *values: str) -> list[SourceRecordBatch]:
    offsets = [{"line": first + i} for i in range(len(values))]
    return [
        SourceRecordBatch("out", list(values), STRING_SCHEMA, source_partition={"file": "a"}, source_offsets=offsets)
    ]


def test_poll_boundary_commits_each_batch_with_its_last_offset_in_the_same_transaction() -> None:
    h = Harness(task=BatchTask()).start()
    h.task.script.put(lines(1, "v1", "v2"))
    wait_until(lambda: len(h.log.committed) == 1, what="first commit")
    h.task.script.put(lines(3, "v3"))
    wait_until(lambda: len(h.log.committed) == 2, what="second commit")
    h.stop()
    first, second = h.log.committed
    assert [r.value for r in first if r.topic == "out"] == [b"v1", b"v2"]
    assert offsets_in(first) == [({"file": "a"}, {"line": 2})]
    assert first[-1].topic == OFFSETS_TOPIC
    assert offsets_in(second) == [({"file": "a"}, {"line": 3})]
    assert h.stored_line() == 3


def test_with_tolerance_all_a_bad_record_is_skipped_and_the_batch_offset_committed() -> None:
    h = Harness(task=BatchTask(), tolerance=ErrorTolerance.ALL).start()
    h.task.script.put(lines(1, "v1", "bad value", "v3"))
    wait_until(lambda: len(h.log.committed) == 1, what="commit")
    h.stop()
    assert h.log.data() == ["v1", "v3"]
    assert h.stored_line() == 3


def test_a_conversion_error_in_a_batch_aborts_the_transaction_and_fails_the_task() -> None:
    h = Harness(TransactionBoundary.INTERVAL, task=BatchTask(), interval_ms=30_000).start()
    h.task.script.put(lines(1, "v1"))
    wait_until(lambda: len(h.producer.transaction or []) == 1, what="record sent")
    h.task.script.put(lines(2, "bad value"))
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    assert h.log.data() == []
    assert [[r.value for r in txn] for txn in h.log.aborted] == [[b"v1"]]
    assert h.stored_line() is None


def test_connector_boundary_splits_after_a_record_named_from_the_batch() -> None:
    h = Harness(TransactionBoundary.CONNECTOR, task=BatchTask()).start()
    context = h.task.context.transaction_context
    assert context is not None

    def poll(task: BatchTask) -> list[SourceRecordBatch]:
        # A task that names a record of a batch: the runtime must then send that very record object.
        batch = lines(1, "v1", "v2", "v3")[0]
        records = list(batch)
        context.commit_transaction(records[1])
        return SourceRecordBatch.of_records(records)

    h.task.script.put(poll)
    wait_until(lambda: h.state() is State.FAILED or len(h.log.committed) >= 1, what="a commit")
    assert h.state() is State.RUNNING
    assert [r.value for r in h.log.committed[0] if r.topic == "out"] == [b"v1", b"v2"]
    assert offsets_in(h.log.committed[0]) == [({"file": "a"}, {"line": 2})]
    h.stop()
