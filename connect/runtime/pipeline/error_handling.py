"""Error handling with Kafka Connect's `errors.*` policy: retries, tolerance, error log and dead letter queue.

`ErrorHandler` is Kafka's RetryWithToleranceOperator: it runs one stage of one record (converter,
transform, put), retries a `RetriableError` with exponential back-off (300 ms doubling up to
`errors.retry.delay.max.ms`) for up to `errors.retry.timeout` ms (0 none, -1 forever), and then either
fails the task (`errors.tolerance=none`: `ToleranceExceededError`) or reports the failure to the
reporters and tells the caller to skip the record (`all`).

The task runners keep the hot path free of this machinery: they convert and transform whole batches
inside one `try`, and only when something raises do they redo that one record through
`ErrorHandler.execute`, stage by stage. Everything here runs on the task's thread.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeVar

from connect.api.errors import ConnectError, RetriableError
from connect.api.records import SinkRecord, SourceRecord
from connect.runtime.config.connector import ErrorHandlingSettings, ErrorTolerance
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import KafkaMessage, ProducerLike
from connect.runtime.metrics.error_counters import ErrorCounters
from connect.runtime.pipeline.closing import close_quietly

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_DELAY_MIN_S = 0.3


class Stage(enum.Enum):
    """Where in the data path a failure happened (the `__connect.errors.stage` header)."""

    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    TRANSFORMATION = "TRANSFORMATION"
    TASK_PUT = "TASK_PUT"
    TASK_POLL = "TASK_POLL"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


class ToleranceExceededError(ConnectError):
    """A record failed and `errors.tolerance=none`: the task fails with this (cause: the original error)."""

    def __init__(self, stage: Stage, error: BaseException) -> None:
        super().__init__(f"Tolerance exceeded in error handler (stage {stage.value}): {error!r}")
        self.stage = stage
        self.__cause__ = error


class Skip(enum.Enum):
    """What `ErrorHandler.execute` returns when the record failed and is tolerated: drop it.

    An enum member (not a plain sentinel object) so that `result is SKIP` narrows `T | Skip` to `T`.
    """

    SKIP = "SKIP"

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Final = Skip.SKIP


@dataclass(frozen=True)
class ProcessingFailure:
    """One tolerated (or fatal) failure: what the reporters get."""

    task: ConnectorTaskId
    stage: Stage
    executing_class: type | None
    error: BaseException
    consumed: KafkaMessage | None = None
    record: SourceRecord | SinkRecord | None = None


class ErrorReporter(Protocol):
    def report(self, failure: ProcessingFailure) -> Future[None] | None:
        """Record the failure; a Future when done asynchronously (the DLQ), else None."""
        ...

    def close(self) -> None: ...


class ErrorHandler:
    def __init__(
        self,
        settings: ErrorHandlingSettings,
        task: ConnectorTaskId,
        reporters: Sequence[ErrorReporter] = (),
        *,
        stopping: threading.Event | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.settings = settings
        self.task = task
        self.reporters = list(reporters)
        self.counters = ErrorCounters()
        for reporter in self.reporters:
            if isinstance(reporter, DeadLetterQueueReporter):
                reporter.counters = self.counters  # one task-error-metrics group for the whole task
        self._stopping = stopping or threading.Event()
        self._clock = clock
        self._sleep = sleep

    def stop_on(self, stopping: threading.Event) -> None:
        """Abandon retry back-offs when `stopping` is set (the task runner's stop signal)."""
        self._stopping = stopping

    @property
    def tolerates_all(self) -> bool:
        return self.settings.tolerance is ErrorTolerance.ALL

    def execute(
        self,
        stage: Stage,
        executing_class: type | None,
        operation: Callable[[], T],
        *,
        consumed: KafkaMessage | None = None,
        record: SourceRecord | SinkRecord | None = None,
    ) -> T | Literal[Skip.SKIP]:
        """Run `operation` with the retry and tolerance policy; SKIP when its record is to be dropped."""
        timeout_ms = self.settings.retry_timeout_ms
        deadline = None if timeout_ms < 0 else self._clock() + timeout_ms / 1000
        delay = RETRY_DELAY_MIN_S
        max_delay = max(self.settings.retry_delay_max_ms / 1000, 0.0)
        while True:
            try:
                return operation()
            except RetriableError as exc:
                self.counters.total_record_failures += 1
                remaining = None if deadline is None else deadline - self._clock()
                if (remaining is not None and remaining <= 0) or self._stopping.is_set():
                    return self.failed(stage, executing_class, exc, consumed=consumed, record=record)
                self.counters.total_retries += 1
                wait = min(delay, max_delay) if remaining is None else min(delay, max_delay, remaining)
                log.debug("Task %s: retrying stage %s in %.3f s after %r", self.task, stage.value, wait, exc)
                if self._sleep is not None:
                    self._sleep(wait)
                elif self._stopping.wait(wait):
                    return self.failed(stage, executing_class, exc, consumed=consumed, record=record)
                delay *= 2
            except Exception as exc:
                self.counters.total_record_failures += 1
                return self.failed(stage, executing_class, exc, consumed=consumed, record=record)

    def failed(
        self,
        stage: Stage,
        executing_class: type | None,
        error: BaseException,
        *,
        consumed: KafkaMessage | None = None,
        record: SourceRecord | SinkRecord | None = None,
    ) -> Literal[Skip.SKIP]:
        """A failure past retries: raise ToleranceExceededError, or report it and return SKIP."""
        self.report_failure(stage, executing_class, error, consumed=consumed, record=record)
        return SKIP

    def report_failure(
        self,
        stage: Stage,
        executing_class: type | None,
        error: BaseException,
        *,
        consumed: KafkaMessage | None = None,
        record: SourceRecord | SinkRecord | None = None,
    ) -> list[Future[None]]:
        """Like `failed`, returning the reporters' pending futures (the errant record reporter's path)."""
        self.counters.total_record_errors += 1
        self.counters.last_error_timestamp_ms = int(time.time() * 1000)
        failure = ProcessingFailure(self.task, stage, executing_class, error, consumed, record)
        if not self.tolerates_all:
            # Kafka reports to the log even when it fails the task, so the record shows up in the log.
            self._report(failure, only_log=True)
            raise ToleranceExceededError(stage, error)
        self.counters.total_records_skipped += 1
        return self._report(failure, only_log=False)

    def _report(self, failure: ProcessingFailure, *, only_log: bool) -> list[Future[None]]:
        futures: list[Future[None]] = []
        for reporter in self.reporters:
            if only_log and not isinstance(reporter, LogReporter):
                continue
            future = reporter.report(failure)
            if isinstance(reporter, LogReporter) and self.settings.log_enable:
                self.counters.total_errors_logged += 1
            if future is not None:
                futures.append(future)
        return futures

    @property
    def dead_letter_queue(self) -> DeadLetterQueueReporter | None:
        """The reporter that writes failed records to the dead letter queue (sinks), if there is one."""
        return next((r for r in self.reporters if isinstance(r, DeadLetterQueueReporter)), None)

    def close(self) -> None:
        close_quietly(self.reporters, f"Task {self.task}")


class LogReporter:
    """`errors.log.enable`: one ERROR line per failure, with the record when `errors.log.include.messages`."""

    def __init__(self, settings: ErrorHandlingSettings) -> None:
        self.settings = settings

    def report(self, failure: ProcessingFailure) -> Future[None] | None:
        if not self.settings.log_enable:
            return None
        where = ""
        consumed = failure.consumed
        if consumed is not None:
            where = (
                f", where consumed record is {{topic='{consumed.topic()}', partition={consumed.partition()}, "
                f"offset={consumed.offset()}, timestamp={consumed.timestamp()[1]}}}"
            )
            if self.settings.log_include_messages:
                where += f" with key={consumed.key()!r} value={consumed.value()!r} headers={consumed.headers()!r}"
        elif failure.record is not None:
            record = failure.record
            where = f", where source record is {record!r}" if self.settings.log_include_messages else ""
            if not where:
                where = f", for a record to topic '{record.topic}'"
        cls = failure.executing_class
        log.error(
            "Error encountered in task %s. Executing stage '%s' with class '%s'%s.",
            failure.task,
            failure.stage.value,
            f"{cls.__module__}.{cls.__qualname__}" if cls is not None else "unknown",
            where,
            exc_info=failure.error,
        )
        return None

    def close(self) -> None:
        pass


HEADER_PREFIX = "__connect.errors."


class DeadLetterQueueReporter:
    """`errors.deadletterqueue.topic.name` (sinks only): the consumed record's raw bytes go to the DLQ topic.

    The producer is served by `poll()`/`flush()` from the task thread; `flush` runs before offsets are
    committed, so a committed offset never refers to a failed record that is not in the DLQ yet.
    """

    def __init__(
        self,
        settings: ErrorHandlingSettings,
        connector: str,
        producer: ProducerLike,
        counters: ErrorCounters | None = None,
    ) -> None:
        if not settings.dlq_topic:
            raise ValueError("no dead letter queue topic configured")
        self.settings = settings
        self.topic: str = settings.dlq_topic
        self.connector = connector
        self.producer = producer
        self.counters = counters or ErrorCounters()

    def report(self, failure: ProcessingFailure) -> Future[None] | None:
        consumed = failure.consumed
        if consumed is None:
            return None  # source-side failures have no consumed record; Kafka's DLQ is sink-only
        headers = _message_headers(consumed)
        if self.settings.dlq_context_headers_enable:
            headers.extend(self._context_headers(failure, consumed))
        future: Future[None] = Future()
        future.set_running_or_notify_cancel()
        counters = self.counters

        def delivered(error: Any, _message: Any) -> None:
            if error is None:
                future.set_result(None)
            else:
                counters.dlq_produce_failures += 1
                future.set_exception(ConnectError(f"Could not write to the dead letter queue {self.topic}: {error}"))

        self.counters.dlq_produce_requests += 1
        while True:
            try:
                self.producer.produce(
                    self.topic, consumed.value(), consumed.key(), on_delivery=delivered, headers=headers or None
                )
                break
            except BufferError:
                self.producer.poll(0.1)
        self.producer.poll(0)
        return future

    def _context_headers(self, failure: ProcessingFailure, consumed: KafkaMessage) -> list[tuple[str, bytes | None]]:
        error = failure.error
        cls = failure.executing_class
        return [
            (HEADER_PREFIX + "topic", _utf8(consumed.topic())),
            (HEADER_PREFIX + "partition", _utf8(consumed.partition())),
            (HEADER_PREFIX + "offset", _utf8(consumed.offset())),
            (HEADER_PREFIX + "connector.name", _utf8(self.connector)),
            (HEADER_PREFIX + "task.id", _utf8(failure.task.task)),
            (HEADER_PREFIX + "stage", _utf8(failure.stage.value)),
            (HEADER_PREFIX + "class.name", _utf8(f"{cls.__module__}.{cls.__qualname__}" if cls else None)),
            (HEADER_PREFIX + "exception.class.name", _utf8(_qualified(type(error)))),
            (HEADER_PREFIX + "exception.message", _utf8(str(error))),
            (HEADER_PREFIX + "exception.stacktrace", _utf8("".join(traceback.format_exception(error)))),
        ]

    def flush(self, timeout: float) -> None:
        remaining = self.producer.flush(timeout)
        if remaining:
            raise ConnectError(f"{remaining} records were not written to the dead letter queue {self.topic} in time")

    def poll(self) -> None:
        self.producer.poll(0)

    def close(self) -> None:
        self.producer.flush(5.0)


def _message_headers(message: KafkaMessage) -> list[tuple[str, bytes | None]]:
    raw = message.headers()
    if not raw:
        return []
    items = raw.items() if isinstance(raw, Mapping) else raw
    return [(key, value.encode() if isinstance(value, str) else value) for key, value in items]


def _utf8(value: object) -> bytes | None:
    return None if value is None else str(value).encode()


def _qualified(cls: type) -> str:
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


class RebuiltMessage:
    """A KafkaMessage rebuilt from a SinkRecord the task buffered (its consumed bytes are gone), for the DLQ."""

    def __init__(
        self,
        topic: str,
        partition: int,
        offset: int,
        key: bytes | None,
        value: bytes | None,
        headers: list[tuple[str, bytes | None]],
        timestamp: int | None,
    ) -> None:
        self._topic, self._partition, self._offset = topic, partition, offset
        self._key, self._value, self._headers, self._timestamp = key, value, headers, timestamp

    def topic(self) -> str | None:
        return self._topic

    def partition(self) -> int | None:
        return self._partition

    def offset(self) -> int | None:
        return self._offset

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        return self._headers

    def timestamp(self) -> tuple[int, int]:
        return (0, -1) if self._timestamp is None else (1, self._timestamp)

    def error(self) -> Any:
        return None


def all_of(futures: list[Future[None]]) -> Future[None]:
    """One future for many: done when all are, failed with the first failure."""
    combined: Future[None] = Future()
    combined.set_running_or_notify_cancel()
    if not futures:
        combined.set_result(None)
        return combined
    remaining = [len(futures)]

    def done(future: Future[None]) -> None:
        if combined.done():
            return
        error = future.exception()
        if error is not None:
            combined.set_exception(error)
            return
        remaining[0] -= 1
        if remaining[0] == 0:
            combined.set_result(None)

    for future in futures:
        future.add_done_callback(done)
    return combined
