"""`WorkerEosSourceTask`: runs one SourceTask exactly once (KIP-618), on the task's own thread.

It runs `WorkerSourceTask`'s loop (same poll, transforms, converters and produce loop; `poll_batches`
sent as columns except with `connector` boundaries) with its own hooks (Kafka's
`ExactlyOnceWorkerSourceTask` to `AbstractWorkerSourceTask`), through a transactional producer, and each
transaction carries the records and, written last, the source offsets of everything polled into it (to
the offsets topic, partitioned as Kafka does: `offset_records`). A reader with `read_committed` (the
offset store; any downstream consumer) sees both or neither.

- Start: the herder's ownership check, `init_transactions` (fences the previous owner of this
  transactional id and settles what it left open, so the offsets read next include all it committed),
  the check again, then `task.start`.
- Boundaries (`transaction.boundary`): `poll` ends a transaction after each poll batch; `interval` every
  `transaction.boundary.interval.ms`; `connector` when the task asks through its TransactionContext:
  right after a named record (the batch is split there) or after the batch. A connector's abort drops
  the records but commits their offsets in a fresh transaction, so the task does not see them again.
- After a commit: `commit_record` for each record (metadata None for dropped or aborted ones), then
  `task.commit()`. Pause and stop commit what is open (`connector`: only what the task asked for).
- Errors: conversion and transform errors follow errors.tolerance before a record is sent. A record
  Kafka refuses poisons the whole transaction, so it is aborted and the task fails whatever the
  tolerance (as in Kafka); so does any other error.
- Topic creation (`topic_creation`) happens inside the open transaction, before a topic's first record; a
  stop while Kafka cannot create it aborts that transaction and stops without committing anything.
- Fenced: another worker runs this task now. The runner stops at once without committing, aborting or
  reporting FAILED; it reports UNASSIGNED, which the status store writes only if the new owner has not
  written a newer status, and it never builds another producer. librdkafka reports a transaction that
  outlived `transaction.timeout.ms` the same way; that one fails the task with Kafka's advice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

from connect.api.context import RecordMetadata
from connect.api.errors import ConnectError, RetriableError
from connect.api.records import SourceRecord
from connect.api.task import SourceTask
from connect.runtime.config.connector.keys import TransactionBoundary
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.kafka import TransactionalProducer, fencing_error, producer_fenced
from connect.runtime.metrics.windows import Windows
from connect.runtime.pipeline.record_pipeline import RecordPipeline
from connect.runtime.tasks.contexts import TransactionRequest, WorkerSourceTaskContext, WorkerTransactionContext
from connect.runtime.tasks.record_sender import QUEUE_FULL_WAIT_S
from connect.runtime.tasks.topic_creation import TopicCreation, TopicCreationInterrupted
from connect.runtime.tasks.transactions import TransactionalOffsetStore
from connect.runtime.tasks.worker_source_task import WorkerSourceTask

log = logging.getLogger(__name__)


class WorkerEosSourceTask(WorkerSourceTask):
    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        task_config: Mapping[str, str],
        status: StatusListener,
        target_state: TargetState,
        *,
        producer: TransactionalProducer,
        pipeline: RecordPipeline[SourceRecord],
        offset_store: TransactionalOffsetStore,
        transaction_boundary: TransactionBoundary,
        transaction_boundary_interval_ms: int,
        ownership_check: Callable[[], None] | None = None,
        on_topic_used: Callable[[str], None] | None = None,
        topic_creation: TopicCreation | None = None,
        clock: Callable[[], float] = time.monotonic,
        metrics_windows: Windows | None = None,
    ) -> None:
        """`ownership_check` runs on the task thread before and after `init_transactions`; it raises to
        refuse the start (the task fails), e.g. because the task configs changed or the task moved."""
        super().__init__(
            task_id,
            task,
            task_config,
            status,
            target_state,
            producer=producer,
            pipeline=pipeline,
            offset_store=offset_store,
            offset_flush_interval_ms=transaction_boundary_interval_ms,
            offset_flush_timeout_ms=producer.transaction_timeout_ms,
            on_topic_used=on_topic_used,
            topic_creation=topic_creation,
            clock=clock,
            metrics_windows=metrics_windows,
        )
        self.transactional_producer = producer
        self.transactional_offsets = offset_store
        self.boundary = transaction_boundary
        self.transaction_context = (
            WorkerTransactionContext() if transaction_boundary is TransactionBoundary.CONNECTOR else None
        )
        self.transaction_timeout_s = producer.transaction_timeout_ms / 1000
        self._ownership_check = ownership_check
        self._ready = False
        self._abandoned = False  # stopped mid-transaction: nothing may be committed any more
        self._transaction_open = False
        self._transaction_began = 0.0
        self._sent_before_transaction = 0
        self._uncommitted_records: list[tuple[SourceRecord, RecordMetadata | None]] = []
        self.fenced = False
        self.transactions_committed = 0
        self.transactions_aborted = 0
        if transaction_boundary is TransactionBoundary.INTERVAL and self.flush_interval_s >= self.transaction_timeout_s:
            log.warning(
                "Task %s: transaction.boundary.interval.ms (%d) is not below the producer's transaction.timeout.ms "
                "(%d): Kafka will abort its transactions",
                task_id,
                transaction_boundary_interval_ms,
                producer.transaction_timeout_ms,
            )

    # -- lifecycle ------------------------------------------------------------------------------

    def initialize_and_start(self) -> None:
        self._check_ownership()
        if self.stopping:
            return  # never fence a newer generation on the way out
        try:
            if not self._init_transactions():
                return
        except ConnectError as exc:
            if not producer_fenced(exc):
                raise
            self._fenced_out(exc)
            return
        self._check_ownership()
        self._ready = True
        context = WorkerSourceTaskContext(
            self.task_config,
            self.offset_reader,
            self.transaction_context,
            plugin_metrics=self.plugin_metrics,
            report_problem=self.report_problem,
        )
        self.source_task.initialize(context)
        self.source_task.start(self.task_config)
        with self._stop_lock:
            self._task_started = True
        log.info("Source task %s started exactly-once (%s boundaries)", self.id, self.boundary.value)

    def close(self, started: bool) -> None:
        try:
            super().close(started)  # stops the task, commits what may be committed (commit_offsets), closes
        finally:
            if self._transaction_open and not self.fenced:
                self._abort_after_failure()

    def commit_offsets(self, *, final: bool = False, raise_fatal: bool = True) -> bool:
        """End the open transaction where the boundary lets the runtime do so (pause, stop): commit it with
        its offsets (`connector`: only as the task asked). False if it could not (logged unless raised)."""
        if not self._ready or self.fenced or self.failed or self._cancelled or self._abandoned:
            return False
        try:
            self._end_by_runtime()
        except Exception as exc:
            if raise_fatal:
                raise
            if producer_fenced(exc):
                self.fenced = True
                log.warning("Source task %s: fenced out while committing on the way out; nothing committed", self.id)
            else:
                log.exception("Source task %s: the last transaction could not be committed", self.id)
            return False
        return True

    # -- the loop -------------------------------------------------------------------------------

    def execute(self) -> None:
        try:
            super().execute()
        except BaseException as exc:
            if producer_fenced(exc) or self._abort_after_failure():
                self._fenced_out(exc)
                return
            raise

    # -- the loop's hooks -----------------------------------------------------------------------

    def _ready_to_send(self) -> bool:
        return self._ready and not self.fenced

    def _sends_columns(self) -> bool:
        # `connector` boundaries may name a record to end a transaction after (found by identity), so the
        # batches are split into the records they hold; other boundaries take whole polls, columns included.
        return self.boundary is not TransactionBoundary.CONNECTOR and super()._sends_columns()

    def _dispatch(self, records: list[SourceRecord]) -> None:
        if self.boundary is TransactionBoundary.CONNECTOR:
            self._send_with_connector_boundaries(records)
        else:
            self._send(records)

    def _after_iteration(self, dispatched: bool) -> None:
        if self.deliveries.failures:
            raise self._delivery_failure()
        boundary = self.boundary
        if boundary is TransactionBoundary.POLL:
            if dispatched:
                self._commit_transaction()
        elif boundary is TransactionBoundary.INTERVAL:
            if self._clock() >= self._next_commit:
                self._commit_transaction()
                self._next_commit = self._clock() + self.flush_interval_s
        else:
            self._end_as_connector_asked()

    def _interrupted(self, exc: TopicCreationInterrupted) -> None:
        # The open transaction lacks records of its last batch: abort it rather than commit it on the way out.
        log.info("Source task %s: stopping; aborting the open transaction: %s", self.id, exc)
        self._abandoned = True
        if self._abort_after_failure():
            self.fenced = True

    # -- sending --------------------------------------------------------------------------------

    def _send(self, records: Sequence[SourceRecord]) -> None:
        if not self._transaction_open:
            self._begin_transaction()
        self.send_batch(records)
        self.producer.poll(0)

    def _send_with_connector_boundaries(self, records: list[SourceRecord]) -> None:
        context = self.transaction_context
        assert context is not None
        if not context.has_record_requests:
            self._send(records)
            return
        start = 0
        for index, record in enumerate(records):
            request = context.take_record_request(record)
            if request is None:
                continue
            self._send(records[start : index + 1])
            start = index + 1
            self._end_transaction(request)
        if start < len(records):
            self._send(records[start:])

    def _topic_used(self, topic: str) -> None:
        if topic == self.transactional_offsets.topic:
            # Kafka's rule: the task's next offset read would wait on its own open transaction forever.
            raise ConnectError(
                "Source tasks may not produce to their own offsets topics when exactly-once support is enabled"
            )
        super()._topic_used(topic)

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        # Acknowledged records are not committed until their transaction is.
        self._uncommitted_records.append((record, metadata))

    # -- transactions ---------------------------------------------------------------------------

    def _init_transactions(self) -> bool:
        """True once done; False if the task was asked to stop while Kafka kept saying "not yet"."""
        while True:
            try:
                self.transactional_producer.init_transactions(self.transaction_timeout_s)
                return True
            except RetriableError as exc:
                if self.stopping:
                    return False
                log.warning("Source task %s: could not initialize transactions yet, retrying: %s", self.id, exc)

    def _check_ownership(self) -> None:
        if self._ownership_check is not None:
            self._ownership_check()

    def _begin_transaction(self) -> None:
        self.transactional_producer.begin_transaction()
        self._transaction_open = True
        self._transaction_began = self._clock()
        self._sent_before_transaction = self.records_sent

    def _end_by_runtime(self) -> None:
        if self.boundary is TransactionBoundary.CONNECTOR:
            self._end_as_connector_asked()
        else:
            self._commit_transaction()

    def _end_as_connector_asked(self) -> None:
        assert self.transaction_context is not None
        request = self.transaction_context.take_batch_request()
        if request is not None:
            self._end_transaction(request)

    def _end_transaction(self, request: TransactionRequest) -> None:
        if request is TransactionRequest.ABORT:
            self._abort_transaction()
        self._commit_transaction()

    def _commit_transaction(self) -> None:
        """Flush, add the offsets of everything in the transaction to it, commit, then tell the task."""
        started = self._clock()
        try:
            committed = self._commit_open_transaction()
        except BaseException:
            self.metrics.record_commit(started, False)
            raise
        if committed:
            self.metrics.record_commit(started, True)

    def _commit_open_transaction(self) -> bool:
        """False if there was nothing to commit."""
        self._flush()
        self.submitted.acknowledge_all()  # flushed without a failure: every record sent is in the transaction
        offsets = self.submitted.committable()
        if not offsets and not self._transaction_open:
            return False
        if not self._transaction_open:
            self._begin_transaction()  # offsets only: what an aborted transaction or dropped records covered
        if offsets:
            self._produce_offsets(offsets)
        self._retrying(self.transactional_producer.commit_transaction)
        self._transaction_open = False
        self.transactions_committed += 1
        self.metrics.record_transaction(self.records_sent - self._sent_before_transaction)
        if offsets:
            self.offset_committer.offset_commits += 1
        committed, self._uncommitted_records = self._uncommitted_records, []
        for record, metadata in committed:
            super()._commit_record(record, metadata)
        try:
            self.source_task.commit()
        except Exception:
            log.exception("Source task %s: commit() failed (ignored)", self.id)
        return True

    def _abort_transaction(self) -> None:
        """A connector-requested abort: the records go, their offsets stay tracked for the next commit."""
        if not self._transaction_open:
            return
        self._flush()  # so that nothing is purged: a purged record would count as a failed delivery
        self._retrying(self.transactional_producer.abort_transaction)
        self._transaction_open = False
        self.transactions_aborted += 1
        self._uncommitted_records = [(record, None) for record, _ in self._uncommitted_records]
        log.info("Source task %s: aborted a transaction as the connector requested", self.id)

    def _produce_offsets(self, offsets: Mapping[bytes, bytes | None]) -> None:
        produce = self.producer.produce
        for record in self.transactional_offsets.offset_records(offsets):
            while True:
                try:
                    produce(record.topic, record.value, record.key, record.partition)
                    break
                except BufferError:
                    self.producer.poll(QUEUE_FULL_WAIT_S)

    def _flush(self) -> None:
        self.producer.flush(self.transaction_timeout_s)
        if self.deliveries.failures:
            raise self._delivery_failure()

    def _delivery_failure(self) -> ConnectError:
        failures, self.deliveries.failures[:] = list(self.deliveries.failures), []
        error, message = failures[0]
        return ConnectError(
            f"Kafka did not accept {len(failures)} record(s) of an exactly-once transaction, the first for topic "
            f"{message.topic()}: {error}; the transaction is aborted"
        )

    def _retrying(self, operation: Callable[[float], None]) -> None:
        # librdkafka: a transaction call that timed out or hit a retriable error may simply be called again.
        deadline = self._clock() + self.transaction_timeout_s
        while True:
            try:
                operation(self.transaction_timeout_s)
                return
            except RetriableError as exc:
                if self._clock() >= deadline:
                    raise
                log.warning("Source task %s: transaction call failed, retrying: %s", self.id, exc)

    def _abort_after_failure(self) -> bool:
        """Abort what a failing task left open; True if that showed the producer had been fenced.

        Called with nothing open too: librdkafka answers every transaction call of a fenced producer with the
        fencing error, so this also tells a produce or poll that failed with a bare fatal error apart.
        """
        if not self._ready:
            return False
        try:
            self.transactional_producer.abort_transaction(self.transaction_timeout_s)
        except Exception as exc:
            if producer_fenced(exc):
                return True
            if self._transaction_open:
                log.warning("Source task %s: could not abort the open transaction: %s", self.id, exc)
            return False
        if self._transaction_open:
            self._transaction_open = False
            self.transactions_aborted += 1
        return False

    def _fenced_out(self, cause: BaseException) -> None:
        if self._transaction_open and self._clock() - self._transaction_began >= self.transaction_timeout_s:
            raise ConnectError(
                f"The task {self.id} was unable to finish writing records to Kafka before its producer transaction "
                "expired. It may be necessary to reconfigure this connector in order for it to run healthily with "
                "exactly-once support. Options for this include: tune the connector's producer configuration for "
                "higher throughput, increase the transaction timeout for the connector's producers, decrease the "
                "offset commit interval (if using interval-based transaction boundaries), or use the 'poll' "
                "transaction boundary (if the connector is not already configured to use it)."
            ) from cause
        self.fenced = True
        self._transaction_open = False
        log.warning(
            "Source task %s was fenced out: a newer producer with transactional.id %s took over (the task runs "
            "elsewhere now); stopping without committing. %s",
            self.id,
            self.transactional_producer.transactional_id,
            fencing_error(cause) or cause,
        )
        self.stop()
