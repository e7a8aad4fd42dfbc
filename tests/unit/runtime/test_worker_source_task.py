"""WorkerSourceTask with a fake producer: conversion, acks before offsets, errors.*, pause, failure."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from connect.api import Header, RecordMetadata, RetriableError, SourceRecord
from connect.runtime.config.connector import ErrorHandlingSettings, ErrorTolerance
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.offsets import OffsetStorageReader
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.tasks.worker_source_task import WorkerSourceTask
from tests.support.pipelines import record_pipeline
from tests.support.source_fakes import DropTransformer, PickyConverter, ScriptedSourceTask
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeProducer

TASK = ConnectorTaskId("src", 0)


class RecordCommittingTask(ScriptedSourceTask):
    def __init__(self) -> None:
        super().__init__()
        self.committed: list[tuple[Any, RecordMetadata | None]] = []

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.committed.append((record.value, metadata))


def rec(offset: int, value: str = "v", partition: str = "a", **kw: Any) -> SourceRecord:
    return SourceRecord({"file": partition}, {"line": offset}, "out", value=value, **kw)


class Harness:
    def __init__(
        self,
        task: ScriptedSourceTask | None = None,
        *,
        tolerance: ErrorTolerance = ErrorTolerance.NONE,
        transformer: Any = None,
        flush_interval_ms: int = 60_000,
    ) -> None:
        self.task = task or ScriptedSourceTask()
        self.status = MemoryStatusStore("worker-1")
        self.store = MemoryOffsetStore()
        self.producer = FakeProducer(failure_reports_only=not WorkerSourceTask.needs_record_reports(type(self.task)))
        self.topics: list[str] = []
        settings = ErrorHandlingSettings(tolerance=tolerance)
        self.runner = WorkerSourceTask(
            TASK,
            self.task,
            {"task.key": "x"},
            self.status,
            TargetState.STARTED,
            producer=self.producer,
            pipeline=record_pipeline(TASK, value=PickyConverter(), transformer=transformer, settings=settings),
            offset_store=self.store,
            offset_flush_interval_ms=flush_interval_ms,
            offset_flush_timeout_ms=50,
            on_topic_used=self.topics.append,
        )

    def offset(self, partition: str = "a") -> Any:
        return OffsetStorageReader("src", self.store).offset({"file": partition})

    def state(self) -> State | None:
        status = self.status.task_status(TASK)
        return None if status is None else status.state

    def start(self) -> None:
        self.runner.start_thread()
        wait_until(lambda: self.state() is State.RUNNING, what="RUNNING")

    def stop(self) -> None:
        self.runner.stop()
        assert self.runner.await_stop(10)


def test_records_are_converted_and_produced_with_their_kafka_fields() -> None:
    h = Harness()
    h.runner.send_batch(
        [
            SourceRecord(
                {"file": "a"},
                {"line": 1},
                "out",
                kafka_partition=2,
                key="k1",
                value="v1",
                timestamp=1234,
                headers=(Header("h", "x"),),
            ),
            SourceRecord({"file": "a"}, {"line": 2}, "other", value="v2"),
        ]
    )
    h.producer.flush()
    first, second = h.producer.sent
    assert (first.topic, first.key, first.value, first.partition, first.timestamp) == ("out", b"k1", b"v1", 2, 1234)
    assert first.headers == [("h", b"x")]
    assert (second.topic, second.key, second.value, second.partition, second.timestamp) == ("other", None, b"v2", -1, 0)
    assert h.topics == ["out", "other"]


def test_offsets_are_stored_only_after_kafka_acknowledged_the_records() -> None:
    h = Harness(flush_interval_ms=20)
    h.producer.hold = True
    h.start()
    h.task.script.put([rec(1), rec(2)])
    wait_until(lambda: h.producer.in_flight and h.producer.flushes > 3, what="flushes while in flight")
    assert h.offset() is None
    h.producer.hold = False
    wait_until(lambda: h.offset() == {"line": 2}, what="offset after ack")
    assert h.task.commits >= 1
    h.stop()
    assert h.state() is State.UNASSIGNED


def test_records_never_acknowledged_are_never_committed_even_at_stop() -> None:
    h = Harness()
    h.start()
    h.task.script.put([rec(1)])
    wait_until(lambda: h.producer.in_flight or h.producer.sent, what="send")
    h.producer.hold = True
    h.task.script.put([rec(2)])
    wait_until(lambda: h.producer.in_flight, what="second batch in flight")
    h.stop()
    assert h.offset() is None or h.offset() == {"line": 1}
    assert h.offset() != {"line": 2}


def test_stop_calls_task_stop_from_the_stopping_thread_and_flushes_offsets() -> None:
    h = Harness()
    h.start()
    h.task.script.put([rec(1), rec(2), rec(3)])
    wait_until(lambda: h.producer.in_flight or h.producer.sent, what="send")
    h.stop()
    assert h.task.stop_thread == threading.current_thread().name
    assert h.offset() == {"line": 3}


def test_a_failed_delivery_fails_the_task_and_keeps_its_offset_uncommitted() -> None:
    h = Harness()
    h.producer.fail_values.add(b"poison")
    h.start()
    h.task.script.put([rec(1), rec(2)])
    wait_until(lambda: len(h.producer.sent) == 2, what="first batch")
    h.task.script.put([rec(3), rec(4, "poison"), rec(5)])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and status.trace is not None
    assert "Unrecoverable exception from producer send callback" in status.trace
    assert h.offset() == {"line": 2}
    assert h.runner.await_stop(5)


def test_a_failed_delivery_with_tolerance_all_drops_the_record_and_moves_on() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL)
    h.producer.fail_values.add(b"poison")
    h.runner.send_batch([rec(1), rec(2, "poison"), rec(3)])
    assert h.runner.commit_offsets()
    assert [p.value for p in h.producer.sent] == [b"v", b"v"]
    assert h.offset() == {"line": 3}
    assert h.runner.pipeline.errors.counters.total_records_skipped == 1


def test_a_conversion_error_fails_the_task_by_default() -> None:
    h = Harness()
    h.start()
    h.task.script.put([rec(1), rec(2, "bad value")])
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and status.trace is not None
    assert "ToleranceExceededError" in status.trace and "cannot convert bad value" in status.trace


def test_a_conversion_error_with_tolerance_all_skips_only_that_record() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL)
    h.runner.send_batch([rec(1, "one"), rec(2, "bad"), rec(3, "three")])
    h.runner.commit_offsets()
    assert [p.value for p in h.producer.sent] == [b"one", b"three"]
    assert h.offset() == {"line": 3}


def test_commit_record_gets_each_acknowledgement_and_none_for_dropped_records() -> None:
    task = RecordCommittingTask()
    h = Harness(task, transformer=DropTransformer())
    h.producer.hold = True
    h.runner.send_batch([rec(1, "a"), rec(2, "drop"), rec(3, "c")])
    assert task.committed == [("drop", None)]
    # Kafka acknowledges the second produced record first: its callback says which record it was.
    h.producer.release(lambda produced: produced.value == b"C")
    assert task.committed[1][0] == "c"
    assert h.runner.commit_offsets() is True  # flush is held: nothing complete yet
    assert h.offset() is None
    h.producer.hold = False
    h.runner.commit_offsets()
    assert [value for value, _ in task.committed] == ["drop", "c", "a"]
    metadata = task.committed[2][1]
    assert metadata is not None and (metadata.topic, metadata.partition) == ("out", 0)
    assert h.offset() == {"line": 3}


def test_pause_stops_polling_until_resumed() -> None:
    h = Harness()
    h.start()
    h.runner.transition_to(TargetState.PAUSED)
    wait_until(lambda: h.state() is State.PAUSED, what="PAUSED")
    polls = h.task.polls
    h.task.script.put([rec(1)])
    assert not h.runner.await_stop(0.2)  # still alive, waiting
    assert h.task.polls == polls
    h.runner.transition_to(TargetState.STARTED)
    wait_until(lambda: h.state() is State.RUNNING, what="RUNNING again")
    wait_until(lambda: len(h.producer.sent) == 1 or bool(h.producer.in_flight), what="polling again")
    h.stop()


def test_a_stopped_task_waiting_in_pause_exits() -> None:
    h = Harness()
    h.start()
    h.runner.transition_to(TargetState.PAUSED)
    wait_until(lambda: h.state() is State.PAUSED, what="PAUSED")
    h.stop()
    assert h.state() is State.UNASSIGNED


def test_a_retriable_poll_error_is_followed_by_another_poll() -> None:
    h = Harness()
    h.start()
    h.task.script.put(RetriableError("source busy"))
    h.task.script.put([rec(1)])
    wait_until(lambda: len(h.producer.sent) + len(h.producer.in_flight) == 1, what="record after retry")
    assert h.state() is State.RUNNING
    h.stop()


def test_an_exception_from_poll_fails_the_task_with_its_trace() -> None:
    h = Harness()
    h.start()
    h.task.script.put([rec(1)])
    h.task.script.put(RuntimeError("the source is gone"))
    wait_until(lambda: h.state() is State.FAILED, what="FAILED")
    status = h.status.task_status(TASK)
    assert status is not None and status.trace is not None
    assert "RuntimeError: the source is gone" in status.trace
    assert "Traceback" in status.trace
    assert h.runner.await_stop(5)
    assert h.offset() == {"line": 1}  # what was acknowledged before the failure is kept


def test_transformer_output_is_produced_and_the_transformer_closed() -> None:
    transformer = DropTransformer()
    h = Harness(transformer=transformer)
    h.start()
    h.task.script.put([rec(1, "x"), rec(2, "drop")])
    wait_until(lambda: h.offset() is not None or len(h.producer.sent) == 1, what="sent")
    h.stop()
    assert [p.value for p in h.producer.sent] == [b"X"]
    assert h.offset() == {"line": 2}
    assert transformer.closed


def test_a_full_producer_queue_is_waited_out() -> None:
    h = Harness()
    h.producer.capacity = 2
    h.runner.send_batch([rec(i) for i in range(10)])
    h.runner.commit_offsets()
    assert len(h.producer.sent) == 10
    assert h.offset() == {"line": 9}


def test_task_start_receives_its_config_and_context() -> None:
    h = Harness()
    h.start()
    assert h.task.started == {"task.key": "x"}
    assert h.task.context.configs() == {"task.key": "x"}
    h.stop()


def _values(produced: Sequence[Any]) -> list[bytes | None]:
    return [p.value for p in produced]


def test_metrics_count_polls_writes_records_in_flight_and_skipped_errors() -> None:
    h = Harness(tolerance=ErrorTolerance.ALL, flush_interval_ms=20)
    h.producer.hold = True
    h.start()
    h.task.script.put([rec(1), rec(2, "bad"), rec(3)])
    wait_until(lambda: len(h.producer.in_flight) == 2, what="two records in flight")

    def values() -> dict[tuple[str, str], object]:
        return {(g.group, name): v for g in h.runner.metric_groups() for name, v in g.values.items()}

    in_flight = values()
    assert in_flight["source-task-metrics", "source-record-poll-total"] == 3
    assert in_flight["source-task-metrics", "source-record-active-count"] == 2
    assert in_flight["connector-task-metrics", "batch-size-max"] == 3
    assert in_flight["task-error-metrics", "total-record-errors"] == 1
    assert in_flight["task-error-metrics", "total-records-skipped"] == 1
    h.producer.hold = False
    wait_until(lambda: h.offset() == {"line": 3}, what="offset after ack")
    done = values()
    assert done["source-task-metrics", "source-record-write-total"] == 2
    assert done["source-task-metrics", "source-record-active-count"] == 0
    assert done["connector-task-metrics", "offset-commit-success-percentage"] == 1.0
    h.stop()
