"""`ErrorCounters`: the counters of Kafka's `task-error-metrics` group, kept by a task's error handler and
dead letter queue reporter (`connect.runtime.pipeline.error_handling`) and read by the task's metrics.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ErrorCounters:
    """Kafka's task-error-metrics counters."""

    total_record_failures: int = 0
    total_record_errors: int = 0
    total_records_skipped: int = 0
    total_retries: int = 0
    total_errors_logged: int = 0
    dlq_produce_requests: int = 0
    dlq_produce_failures: int = 0
    last_error_timestamp_ms: int = 0
