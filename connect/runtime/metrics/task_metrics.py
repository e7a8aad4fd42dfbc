"""What a task runner measures of its own work: Kafka's `connector-task-metrics` (batch sizes, offset
commits), `source-task-metrics` or `sink-task-metrics`, and `task-error-metrics`.

The runner keeps its running totals as plain attributes it increments once per batch
(`records_polled`, `records_sent`, `records_consumed`, `records_put`); these objects read them when
asked, and time what the runner times per batch (`poll`, `put`, a commit) in `WindowedValues`. Task
statuses and the running/paused time ratios are the worker's: it sees every status, wherever the task
runs (`worker_metrics`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.metrics.error_counters import ErrorCounters
from connect.runtime.metrics.groups import MetricGroup, Value, task_tags
from connect.runtime.metrics.windows import Clock, RateOfTotal, WindowedValues, Windows


class TaskMetrics:
    """The parts sources and sinks share: batch sizes, offset commits, errors."""

    def __init__(
        self, task_id: ConnectorTaskId, errors: ErrorCounters, windows: Windows, clock: Clock = time.monotonic
    ) -> None:
        self.task_id = task_id
        self.tags = task_tags(task_id.connector, task_id.task)
        self.windows = windows
        self.clock = clock
        self.errors = errors
        self.batch_sizes = WindowedValues(windows, clock)
        self.commit_times_ms = WindowedValues(windows, clock)
        self.commit_outcomes = WindowedValues(windows, clock)
        # Off, the runner's calls return at once; the totals the runner counts anyway are still served.
        self.recording = windows.recording

    def record_commit(self, started: float, ok: bool) -> None:
        """An offset commit that began at `started` (the clock's time) ended now."""
        if not self.recording:
            return
        now = self.clock()
        self.commit_times_ms.record((now - started) * 1000, now)
        self.commit_outcomes.record(1.0 if ok else 0.0, now)

    def groups(self) -> list[MetricGroup]:
        success = self.commit_outcomes.avg()
        task_values: dict[str, Value] = {
            "batch-size-max": self.batch_sizes.max(),
            "batch-size-avg": self.batch_sizes.avg(),
            "offset-commit-max-time-ms": self.commit_times_ms.max(),
            "offset-commit-avg-time-ms": self.commit_times_ms.avg(),
            "offset-commit-success-percentage": success,
            "offset-commit-failure-percentage": 1.0 - success,
        }
        errors = self.errors
        error_values: dict[str, Value] = {
            "total-record-failures": errors.total_record_failures,
            "total-record-errors": errors.total_record_errors,
            "total-records-skipped": errors.total_records_skipped,
            "total-retries": errors.total_retries,
            "total-errors-logged": errors.total_errors_logged,
            "deadletterqueue-produce-requests": errors.dlq_produce_requests,
            "deadletterqueue-produce-failures": errors.dlq_produce_failures,
            "last-error-timestamp": errors.last_error_timestamp_ms,
        }
        return [
            MetricGroup("connector-task-metrics", self.tags, task_values),
            MetricGroup("task-error-metrics", self.tags, error_values),
        ]

    def rate_of(self, read_total: Callable[[], float]) -> RateOfTotal:
        return RateOfTotal(read_total, self.windows, self.clock)


class SourceCounts(Protocol):
    """What a source task runner counts as it goes."""

    records_polled: int

    @property
    def records_sent(self) -> int: ...

    def active_records(self) -> int: ...


class SourceTaskMetrics(TaskMetrics):
    def __init__(
        self,
        task_id: ConnectorTaskId,
        counts: SourceCounts,
        errors: ErrorCounters,
        windows: Windows,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(task_id, errors, windows, clock)
        self.counts = counts
        self.poll_times_ms = WindowedValues(windows, clock)
        self.active = WindowedValues(windows, clock)
        self.transaction_sizes = WindowedValues(windows, clock)
        self._poll_rate = self.rate_of(lambda: counts.records_polled)
        self._write_rate = self.rate_of(lambda: counts.records_sent)

    def record_poll(self, started: float, count: int) -> None:
        """A `poll` that began at `started` returned `count` records (Kafka records polls that return some)."""
        if not self.recording:
            return
        now = self.clock()
        self.poll_times_ms.record((now - started) * 1000, now)
        self.batch_sizes.record(count, now)

    def record_transaction(self, size: int) -> None:
        """An exactly-once task committed a transaction of `size` records."""
        if self.recording:
            self.transaction_sizes.record(size)

    def groups(self) -> list[MetricGroup]:
        counts = self.counts
        active = counts.active_records()
        self.active.record(active)
        values: dict[str, Value] = {
            "source-record-poll-total": counts.records_polled,
            "source-record-poll-rate": self._poll_rate.rate(),
            "source-record-write-total": counts.records_sent,
            "source-record-write-rate": self._write_rate.rate(),
            "poll-batch-max-time-ms": self.poll_times_ms.max(),
            "poll-batch-avg-time-ms": self.poll_times_ms.avg(),
            "source-record-active-count": active,
            "source-record-active-count-max": self.active.max(),
            "source-record-active-count-avg": self.active.avg(),
            "transaction-size-min": self.transaction_sizes.min(),
            "transaction-size-max": self.transaction_sizes.max(),
            "transaction-size-avg": self.transaction_sizes.avg(),
        }
        return [*super().groups(), MetricGroup("source-task-metrics", self.tags, values)]


class SinkCounts(Protocol):
    """What a sink task runner counts as it goes."""

    records_consumed: int
    records_put: int
    commits: int
    commits_skipped: int

    def partition_count(self) -> int: ...
    def active_records(self) -> int: ...
    def partition_lags(self) -> dict[tuple[str, int], int]: ...


class SinkTaskMetrics(TaskMetrics):
    def __init__(
        self,
        task_id: ConnectorTaskId,
        counts: SinkCounts,
        errors: ErrorCounters,
        windows: Windows,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(task_id, errors, windows, clock)
        self.counts = counts
        self.put_times_ms = WindowedValues(windows, clock)
        self.active = WindowedValues(windows, clock)
        self._read_rate = self.rate_of(lambda: counts.records_consumed)
        self._send_rate = self.rate_of(lambda: counts.records_put)
        self._commit_rate = self.rate_of(lambda: counts.commits)
        self._skip_rate = self.rate_of(lambda: counts.commits_skipped)

    def record_put(self, started: float, count: int) -> None:
        """A `put` (or `put_batches`) of `count` records that began at `started` returned."""
        if not self.recording:
            return
        now = self.clock()
        self.put_times_ms.record((now - started) * 1000, now)
        if count:  # the empty puts of an idle task say nothing about batch sizes
            self.batch_sizes.record(count, now)

    def groups(self) -> list[MetricGroup]:
        counts = self.counts
        active = counts.active_records()
        self.active.record(active)
        lags = counts.partition_lags()
        values: dict[str, Value] = {
            "sink-record-read-total": counts.records_consumed,
            "sink-record-read-rate": self._read_rate.rate(),
            "sink-record-send-total": counts.records_put,
            "sink-record-send-rate": self._send_rate.rate(),
            "sink-record-lag-max": max(lags.values()) if lags else float("nan"),
            "partition-count": counts.partition_count(),
            "offset-commit-seq-no": counts.commits,
            "offset-commit-completion-total": counts.commits,
            "offset-commit-completion-rate": self._commit_rate.rate(),
            "offset-commit-skip-total": counts.commits_skipped,
            "offset-commit-skip-rate": self._skip_rate.rate(),
            "put-batch-max-time-ms": self.put_times_ms.max(),
            "put-batch-avg-time-ms": self.put_times_ms.avg(),
            "sink-record-active-count": active,
            "sink-record-active-count-max": self.active.max(),
            "sink-record-active-count-avg": self.active.avg(),
        }
        return [
            *super().groups(),
            MetricGroup("sink-task-metrics", self.tags, values),
            *_partition_lags(self.tags, lags.items()),
        ]


def _partition_lags(
    tags: tuple[tuple[str, str], ...], lags: Iterable[tuple[tuple[str, int], int]]
) -> list[MetricGroup]:
    """kconnect's own per-partition lag (Kafka has only the task's maximum): end offset - position."""
    return [
        MetricGroup(
            "sink-task-partition-metrics", (*tags, ("topic", topic), ("partition", str(partition))), {"lag": lag}
        )
        for (topic, partition), lag in sorted(lags)
    ]
