"""`SourceDeliveries`: what the producer reports back about a source task's records, on the task thread.

By default the producer reports failed deliveries only (`delivery.report.only.error`): a batch's callback
(`batch_callback`) counts the failure, marks the batch failed unless `errors.tolerance=all` (so its
offsets, and later ones of its source partitions, are never committed) and keeps the failure for
`collect`, which fails the task or reports it under the error policy. A task that overrides
`commit_record` gets a callback per record (`record_callback`) that hands it each record with its
`RecordMetadata` once acknowledged (Kafka's `SourceTask.commitRecord`); one that overrides `commit_batch` gets
a callback per batch (`offsets_callback`) that gathers the batch's Kafka offsets for it, or, with a gap-less
producer, callbacks on the first and last records of each run of one partition (`run_ends_callbacks`).

The producer calls these from `poll` and `flush`, which only the task thread calls: no lock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from connect.api.batch import SourceRecordBatch
from connect.api.context import RecordMetadata
from connect.api.errors import ConnectError
from connect.api.records import SourceRecord
from connect.api.task import OFFSET_NOT_REPORTED, OFFSET_NOT_WRITTEN
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.offsets import SubmittedBatch
from connect.runtime.pipeline.error_handling import ErrorHandler, Stage

log = logging.getLogger(__name__)

DeliveryCallback = Callable[[Any, Any], None]
"""librdkafka's `on_delivery(error, message)`."""


class SourceDeliveries:
    def __init__(
        self,
        task_id: ConnectorTaskId,
        errors: ErrorHandler,
        on_record_delivered: Callable[[SourceRecord, RecordMetadata | None], None],
    ) -> None:
        """`on_record_delivered`: with per-record callbacks, called with each acknowledged record (metadata
        None when its failure was tolerated)."""
        self.task_id = task_id
        self.failures: list[tuple[Any, Any]] = []
        """Delivery failures not collected yet, as (error, message)."""
        self._errors = errors
        self._on_record_delivered = on_record_delivered

    def batch_callback(self, batch: SubmittedBatch) -> DeliveryCallback:
        """The callback of every record of `batch`; with error-only reports it runs for failures alone,
        and `SubmittedRecords.acknowledge_all` completes the rest."""

        def on_delivery(error: Any, message: Any) -> None:
            if error is not None and not self._tolerated(error, message, batch):
                return
            batch.outstanding -= 1

        return on_delivery

    def _tolerated(self, error: Any, message: Any, batch: SubmittedBatch) -> bool:
        """Keep a failed delivery for `collect`; True if it counts as done (`errors.tolerance=all`), else the
        batch is marked failed: it never completes, so its offsets are never committed."""
        if self._errors.tolerates_all:
            self.failures.append((error, message))
            return True
        self._fail(error, message, batch)
        return False

    def _fail(self, error: Any, message: Any, batch: SubmittedBatch) -> None:
        self.failures.append((error, message))
        batch.failed = True

    def offsets_callback(
        self,
        submitted: SubmittedBatch,
        batch: SourceRecordBatch,
        on_complete: Callable[[SourceRecordBatch, Sequence[int]], None],
    ) -> DeliveryCallback:
        """The callback of every record of `batch`, for a task that overrides `commit_batch`: collects each
        acknowledged record's Kafka offset (`OFFSET_NOT_WRITTEN` for a tolerated failure) and calls
        `on_complete` with them once every record of the batch was reported. librdkafka reports a partition's
        records in the order they were produced, so for a batch of one partition the offsets are in the batch's
        order."""
        offsets: list[int] = []
        append = offsets.append
        expected = len(batch.values)

        def on_delivery(error: Any, message: Any) -> None:
            if error is None:
                append(message.offset())
            elif self._tolerated(error, message, submitted):
                append(OFFSET_NOT_WRITTEN)
            else:
                return
            submitted.outstanding -= 1
            if len(offsets) == expected:
                on_complete(batch, offsets)

        return on_delivery

    def run_ends_callbacks(
        self,
        submitted: SubmittedBatch,
        batch: SourceRecordBatch,
        on_complete: Callable[[SourceRecordBatch, Sequence[int]], None],
    ) -> tuple[DeliveryCallback, DeliveryCallback]:
        """`offsets_callback` for a run of two records or more of one Kafka partition sent by a gap-less
        producer (`kafka.gapless`), as the callbacks of its first and last records alone (the others are sent
        without one): the last one's acknowledgement vouches for the whole run. Its offsets are every one
        from the first's to the last's when they are as far apart as the run is long; else another producer
        wrote amid them, and the records between are `OFFSET_NOT_REPORTED`. For tasks whose error policy
        tolerates no failure (a gap-less producer's): a failed delivery fails the batch."""
        count = len(batch.values)
        first: list[int] = []

        def on_first(error: Any, message: Any) -> None:
            if error is not None:
                self._fail(error, message, submitted)
                return
            first.append(message.offset())
            submitted.outstanding -= 1

        def on_last(error: Any, message: Any) -> None:
            if error is not None:
                self._fail(error, message, submitted)
                return
            if not first:
                return  # the first record failed: the batch did already
            submitted.outstanding -= count - 1
            start, end = first[0], message.offset()
            if start >= 0 and end - start == count - 1:
                on_complete(batch, range(start, end + 1))
            else:
                on_complete(batch, [start, *[OFFSET_NOT_REPORTED] * (count - 2), end])

        return on_first, on_last

    def record_callback(self, batch: SubmittedBatch, record: SourceRecord) -> DeliveryCallback:
        """The callback of one record of a task that overrides `commit_record` (reported either way)."""

        def on_delivery(error: Any, message: Any) -> None:
            if error is not None:
                if not self._tolerated(error, message, batch):
                    return
                metadata = None
            else:
                metadata = RecordMetadata(
                    message.topic(), message.partition(), message.offset(), message.timestamp()[1]
                )
            batch.outstanding -= 1
            self._on_record_delivered(record, metadata)

        return on_delivery

    def collect(self, producer_class: type, *, raise_fatal: bool) -> None:
        """Act on the failures reported so far: under `errors.tolerance=all` report each to the error
        handler (`producer_class` names the stage's class); else raise (`raise_fatal`) or log them."""
        failures, self.failures[:] = list(self.failures), []
        errors = self._errors
        for error, message in failures:
            cause = ConnectError(f"Kafka did not accept a record for topic {message.topic()}: {error}")
            if errors.tolerates_all:
                errors.failed(Stage.KAFKA_PRODUCE, producer_class, cause)
            elif raise_fatal:
                raise ConnectError(f"Unrecoverable exception from producer send callback: {error}") from cause
            else:
                log.error("Source task %s: %s", self.task_id, cause)
