"""Exactly once with `poll_batches`: columns land in the transactions as records do; `connector` boundaries
take the records, so a named record still splits the transaction."""

from __future__ import annotations

import queue

from connect.api import SourceRecord, SourceRecordBatch
from connect.api.data import STRING_SCHEMA
from connect.runtime.connector_config import ErrorTolerance
from connect.runtime.connector_config.keys import TransactionBoundary
from connect.runtime.states import State
from tests.support.transaction_fakes import OFFSETS_TOPIC
from tests.support.waiting import wait_until
from tests.unit.runtime.test_eos_source_task import Harness, ScriptedSourceTask, offsets_in


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


def test_a_conversion_error_aborts_the_transaction_and_fails_the_task() -> None:
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
