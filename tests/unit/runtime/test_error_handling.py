"""errors.* policy: retries with back-off, tolerance none/all, the error log and the dead letter queue."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from connect.api.errors import DataError, RetriableError
from connect.runtime.config.connector import ErrorHandlingSettings, ErrorTolerance
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.pipeline.error_handling import (
    SKIP,
    DeadLetterQueueReporter,
    ErrorHandler,
    LogReporter,
    ProcessingFailure,
    Stage,
    ToleranceExceededError,
)
from tests.support.worker_fakes import FakeMessage, FakeProducer

TASK = ConnectorTaskId("conn", 3)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def handler(clock: FakeClock | None = None, **settings: Any) -> ErrorHandler:
    clock = clock or FakeClock()
    parsed = ErrorHandlingSettings(**settings)
    return ErrorHandler(parsed, TASK, [LogReporter(parsed)], clock=clock, sleep=clock.sleep)


def flaky(failures: int, result: str = "ok") -> Callable[[], str]:
    calls = {"n": 0}

    def operation() -> str:
        calls["n"] += 1
        if calls["n"] <= failures:
            raise RetriableError(f"attempt {calls['n']}")
        return result

    return operation


def test_without_retry_timeout_the_first_retriable_failure_fails_the_task() -> None:
    with pytest.raises(ToleranceExceededError) as caught:
        handler().execute(Stage.VALUE_CONVERTER, None, flaky(1))
    assert isinstance(caught.value.__cause__, RetriableError)
    assert "Tolerance exceeded in error handler" in str(caught.value)


def test_retriable_failures_are_retried_with_exponential_backoff_capped() -> None:
    clock = FakeClock()
    errors = handler(clock, retry_timeout_ms=60_000, retry_delay_max_ms=1000)
    assert errors.execute(Stage.TRANSFORMATION, None, flaky(4)) == "ok"
    assert clock.sleeps == [0.3, 0.6, 1.0, 1.0]
    assert errors.counters.total_retries == 4


def test_retries_stop_at_the_retry_timeout() -> None:
    clock = FakeClock()
    errors = handler(clock, retry_timeout_ms=1000, retry_delay_max_ms=60_000, tolerance=ErrorTolerance.ALL)
    assert errors.execute(Stage.TASK_PUT, None, flaky(100)) is SKIP
    assert sum(clock.sleeps) == pytest.approx(1.0)


def test_infinite_retry_timeout_retries_until_success() -> None:
    clock = FakeClock()
    errors = handler(clock, retry_timeout_ms=-1, retry_delay_max_ms=10)
    assert errors.execute(Stage.KEY_CONVERTER, None, flaky(50)) == "ok"


def test_tolerance_all_skips_and_logs_with_the_record_when_asked(caplog: pytest.LogCaptureFixture) -> None:
    errors = handler(tolerance=ErrorTolerance.ALL, log_enable=True, log_include_messages=True)
    message = FakeMessage("in", 2, 40, b"k", b"not json")

    def bad() -> None:
        raise DataError("Converting byte[] to Kafka Connect data failed")

    with caplog.at_level(logging.ERROR, logger="connect.runtime.pipeline.error_handling"):
        assert errors.execute(Stage.VALUE_CONVERTER, DataError, bad, consumed=message) is SKIP
    assert errors.counters.total_records_skipped == 1
    assert errors.counters.total_errors_logged == 1
    text = caplog.text
    assert "Error encountered in task conn-3. Executing stage 'VALUE_CONVERTER'" in text
    assert "topic='in', partition=2, offset=40" in text
    assert "not json" in text


def test_tolerance_all_without_error_log_is_silent(caplog: pytest.LogCaptureFixture) -> None:
    errors = handler(tolerance=ErrorTolerance.ALL)
    with caplog.at_level(logging.DEBUG, logger="connect.runtime.pipeline.error_handling"):
        errors.failed(Stage.TRANSFORMATION, None, ValueError("x"))
    assert caplog.records == []


def test_non_retriable_errors_are_not_retried() -> None:
    clock = FakeClock()
    errors = handler(clock, retry_timeout_ms=60_000, tolerance=ErrorTolerance.ALL)

    def broken() -> None:
        raise ValueError("bad")

    assert errors.execute(Stage.TRANSFORMATION, None, broken) is SKIP
    assert clock.sleeps == []


def test_dead_letter_queue_gets_the_raw_record_and_context_headers() -> None:
    producer = FakeProducer()
    settings = ErrorHandlingSettings(
        tolerance=ErrorTolerance.ALL, dlq_topic="dlq", dlq_context_headers_enable=True, dlq_replication_factor=1
    )
    reporter = DeadLetterQueueReporter(settings, "conn", producer)
    message = FakeMessage("orders", 1, 17, b"key", b"\x00raw", headers_=[("trace", b"abc")])
    future = reporter.report(ProcessingFailure(TASK, Stage.VALUE_CONVERTER, DataError, DataError("boom"), message))
    assert future is not None
    reporter.flush(1.0)
    assert future.result(timeout=1) is None
    [sent] = producer.sent
    assert (sent.topic, sent.key, sent.value) == ("dlq", b"key", b"\x00raw")
    headers = dict(sent.headers)
    assert headers["trace"] == b"abc"
    assert headers["__connect.errors.topic"] == b"orders"
    assert headers["__connect.errors.partition"] == b"1"
    assert headers["__connect.errors.offset"] == b"17"
    assert headers["__connect.errors.connector.name"] == b"conn"
    assert headers["__connect.errors.task.id"] == b"3"
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert headers["__connect.errors.exception.class.name"] == b"connect.api.errors.DataError"
    assert headers["__connect.errors.exception.message"] == b"boom"
    assert b"DataError: boom" in headers["__connect.errors.exception.stacktrace"]


def test_dead_letter_queue_without_context_headers_keeps_only_the_originals() -> None:
    producer = FakeProducer()
    settings = ErrorHandlingSettings(tolerance=ErrorTolerance.ALL, dlq_topic="dlq")
    reporter = DeadLetterQueueReporter(settings, "conn", producer)
    reporter.report(ProcessingFailure(TASK, Stage.TASK_PUT, None, ValueError("x"), FakeMessage("t", 0, 0, None, b"v")))
    reporter.flush(1.0)
    assert producer.sent[0].headers is None


def test_a_failed_dead_letter_queue_write_fails_the_future() -> None:
    producer = FakeProducer()
    producer.fail_values.add(b"v")
    reporter = DeadLetterQueueReporter(ErrorHandlingSettings(dlq_topic="dlq"), "conn", producer)
    future = reporter.report(
        ProcessingFailure(TASK, Stage.TASK_PUT, None, ValueError("x"), FakeMessage("t", 0, 0, None, b"v"))
    )
    assert future is not None
    reporter.poll()
    with pytest.raises(Exception, match="dead letter queue dlq"):
        future.result(timeout=1)
    assert reporter.counters.dlq_produce_failures == 1
