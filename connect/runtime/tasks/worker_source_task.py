"""`WorkerSourceTask`: runs one SourceTask on its own thread and produces what it polls to Kafka.

Loop (Kafka's `AbstractWorkerSourceTask.execute`): paused → commit, then wait on the task's condition;
`poll()` (RetriableError → poll again) → transformation chain on the batch → header/key/value converters
(the task's `RecordPipeline`) → `producer.produce`. A task that overrides `poll_batches` is polled
through it instead; its `SourceRecordBatch`es are converted column by column and produced without a
`SourceRecord` each (`send_columns`, `source_batches`) unless something needs the records. The same
thread serves the producer's delivery reports (`poll(0)` after each batch, `flush` on commit, pause and
stop), so acknowledgements, `SubmittedRecords` and `commit_record` need no lock. The loop is written
once, here; the exactly-once runner (`WorkerEosSourceTask`) changes only its hooks: `_dispatch` (how a
poll batch is sent), `_after_iteration` (delivery failures, commits), `_interrupted` and the final
commit (`commit_offsets`).

The runner is the loop and the lifecycle; three parts of its own do the rest, each on the task thread:

- `RecordSender` (`record_sender`): converts and produces records and columns, owns the producer;
- `SourceDeliveries` (`source_deliveries`): the producer's delivery reports, and `commit_record`;
- `SourceOffsetCommitter` (`source_offset_committer`): acknowledgements, then offsets, then `task.commit()`.

A batch that an exception leaves partly unsent is marked failed, so none of its offsets (nor later ones
of its source partitions) is ever committed. Topic creation (KIP-158, `topic_creation`), if asked for: the
first record to each topic waits until the topic exists. A stop while Kafka does not answer abandons the
batch; any other failure fails the task.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect.api.batch import SourceRecordBatch
from connect.api.context import RecordMetadata
from connect.api.errors import RetriableError
from connect.api.records import SourceRecord
from connect.api.task import SourceTask
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.kafka import ProducerLike
from connect.runtime.metrics.groups import MetricGroup
from connect.runtime.metrics.task_metrics import SourceTaskMetrics
from connect.runtime.metrics.windows import Windows
from connect.runtime.offsets import OffsetStore, SubmittedRecords
from connect.runtime.offsets.reader import OffsetStorageReader
from connect.runtime.pipeline.closing import close_quietly
from connect.runtime.pipeline.record_pipeline import RecordPipeline
from connect.runtime.pipeline.source_batches import as_records, count_records, sends_columns
from connect.runtime.tasks.contexts import WorkerSourceTaskContext
from connect.runtime.tasks.record_sender import RecordSender
from connect.runtime.tasks.source_deliveries import SourceDeliveries
from connect.runtime.tasks.source_offset_committer import SourceOffsetCommitter
from connect.runtime.tasks.topic_creation import TopicCreation, TopicCreationInterrupted
from connect.runtime.tasks.worker_task import WorkerTask

log = logging.getLogger(__name__)

# An empty poll serves delivery reports for this long, so a task that never blocks does not spin a core.
IDLE_POLL_S = 0.01


class WorkerSourceTask(WorkerTask):
    @staticmethod
    def needs_record_reports(task_class: type[SourceTask]) -> bool:
        """Whether the producer must report successful deliveries too (else: failures only, faster)."""
        return (
            task_class.commit_record is not SourceTask.commit_record
            or task_class.commit_batch is not SourceTask.commit_batch
        )

    @staticmethod
    def commits_batches(task_class: type[SourceTask]) -> bool:
        """Whether the task takes each polled batch's Kafka offsets at once (`commit_batch`)."""
        return (
            task_class.commit_batch is not SourceTask.commit_batch
            and task_class.poll_batches is not SourceTask.poll_batches
        )

    @staticmethod
    def polls_batches(task_class: type[SourceTask]) -> bool:
        """Whether the task hands over `SourceRecordBatch`es (`poll_batches`) rather than records."""
        return task_class.poll_batches is not SourceTask.poll_batches

    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SourceTask,
        task_config: Mapping[str, str],
        status: StatusListener,
        target_state: TargetState,
        *,
        producer: ProducerLike,
        pipeline: RecordPipeline[SourceRecord],
        offset_store: OffsetStore,
        offset_flush_interval_ms: int,
        offset_flush_timeout_ms: int,
        on_topic_used: Callable[[str], None] | None = None,
        topic_creation: TopicCreation | None = None,
        clock: Callable[[], float] = time.monotonic,
        metrics_windows: Windows | None = None,
        record_producer: Callable[[], ProducerLike] | None = None,
        runs_confirmed_by_last: bool = False,
    ) -> None:
        """`topic_creation`: create topics before their first record (None: leave that to the broker).
        `record_producer`: with a producer that takes whole columns (`produce_values`), makes the producer
        the task switches to, once, when its batches carry timestamps or headers, which go one record at
        a time and cost that producer several times what confluent_kafka's costs.
        `runs_confirmed_by_last`: the producer is gap-less (`kafka.gapless.confirms_runs`), so a task that
        commits batches learns a batch's offsets from the reports of its first and last records alone."""
        super().__init__(
            task_id,
            task,
            task_config,
            status,
            target_state,
            on_topic_used=on_topic_used,
            metrics_windows=metrics_windows,
        )
        self.source_task = task
        self._pipeline = pipeline
        pipeline.errors.stop_on(self.stop_event)
        self.offset_store = offset_store
        self.topic_creation = topic_creation
        self.offset_reader = OffsetStorageReader(task_id.connector, offset_store)
        self.submitted = SubmittedRecords(task_id.connector)
        self.flush_interval_s = offset_flush_interval_ms / 1000
        self.flush_timeout_s = offset_flush_timeout_ms / 1000
        self._clock = clock
        self._next_commit = 0.0
        self._per_record_callbacks = self.needs_record_reports(type(task))
        self._polls_batches = self.polls_batches(type(task))
        self._commits_batches = self.commits_batches(type(task))
        self._runs_confirmed_by_last = runs_confirmed_by_last and self._commits_batches
        # task.stop() is called from the stopping thread (to unblock poll), but only once and only after start.
        self._stop_lock = threading.Lock()
        self._task_started = False
        self._task_stopped = False
        self.records_polled = 0
        self.deliveries = SourceDeliveries(task_id, pipeline.errors, self._commit_record)
        self.sender = RecordSender(
            task_id,
            producer,
            pipeline,
            self.deliveries,
            topics_seen=self._topics_seen,
            topic_used=self._topic_used,
            stopping=lambda: self.stopping,
            flush_timeout_s=self.flush_timeout_s,
            record_producer=record_producer,
        )
        self.offset_committer = SourceOffsetCommitter(
            task_id,
            task,
            self.sender,
            self.deliveries,
            self.submitted,
            offset_store,
            per_record_reports=self._per_record_callbacks,
            flush_timeout_s=self.flush_timeout_s,
            keep_waiting=lambda: not self.stopping and self.target_state is TargetState.STARTED,
            stopping=lambda: self.stopping,
        )
        self.metrics = SourceTaskMetrics(task_id, self, pipeline.errors.counters, self.metrics_windows, clock)

    # -- its parts, as tests and the exactly-once runner reach them ---------------------------------

    @property
    def producer(self) -> ProducerLike:
        """The producer records go through now (`RecordSender` may switch it once)."""
        return self.sender.producer

    @producer.setter
    def producer(self, producer: ProducerLike) -> None:
        self.sender.producer = producer

    @property
    def pipeline(self) -> RecordPipeline[SourceRecord]:
        return self._pipeline

    @pipeline.setter
    def pipeline(self, pipeline: RecordPipeline[SourceRecord]) -> None:
        self._pipeline = pipeline
        self.sender.pipeline = pipeline

    @property
    def records_sent(self) -> int:
        return self.sender.records_sent

    @property
    def offset_commits(self) -> int:
        """How many commits wrote offsets."""
        return self.offset_committer.offset_commits

    # -- metrics --------------------------------------------------------------------------------

    def metric_groups(self) -> list[MetricGroup]:
        return [*self.metrics.groups(), *self.plugin_metrics.groups()]

    def active_records(self) -> int:
        """Records sent whose delivery is not known yet (Kafka's source-record-active-count)."""
        return self.submitted.outstanding_records()

    # -- lifecycle ------------------------------------------------------------------------------

    def report_problem(self, message: str) -> None:
        """The task runs on with a problem an operator must see: its status is RUNNING with `message` as trace."""
        if not self.stopping:
            self.status.on_task_problem(self.id, message)

    def initialize_and_start(self) -> None:
        context = WorkerSourceTaskContext(
            self.task_config,
            self.offset_reader,
            plugin_metrics=self.plugin_metrics,
            report_problem=self.report_problem,
        )
        self.source_task.initialize(context)
        self.source_task.start(self.task_config)
        with self._stop_lock:
            self._task_started = True
        log.info("Source task %s started", self.id)

    def on_stop_requested(self) -> None:
        self._stop_task()

    def _stop_task(self) -> None:
        with self._stop_lock:
            if not self._task_started or self._task_stopped:
                return
            self._task_stopped = True
        try:
            self.source_task.stop()
        except Exception:
            log.exception("Source task %s: stop() failed", self.id)

    def close(self, started: bool) -> None:
        self._stop_task()
        try:
            # Safe even after a failure: a batch with a failed record never completes, so nothing at or
            # after it in its source partitions becomes committable.
            self.commit_offsets(final=True, raise_fatal=False)
        finally:
            close_quietly([self.topic_creation], f"Source task {self.id}")
            self.pipeline.close()

    # -- the loop -------------------------------------------------------------------------------

    def execute(self) -> None:
        if not self._ready_to_send():
            return
        self._next_commit = self._clock() + self.flush_interval_s
        try:
            self._send_loop()
        except TopicCreationInterrupted as exc:
            self._interrupted(exc)

    def _send_loop(self) -> None:
        poll: Callable[[], Any]
        count: Callable[[Any], int] = len
        if not self._polls_batches:
            poll = self.source_task.poll
        elif self._sends_columns():
            poll = self.source_task.poll_batches
            count = count_records
        else:
            poll_batches = self.source_task.poll_batches
            poll = lambda: as_records(poll_batches())  # noqa: E731 - the records path needs the records
        producer_poll = self.producer.poll
        dispatch = self._dispatch
        after_iteration = self._after_iteration
        clock = self._clock
        record_poll = self.metrics.record_poll
        records: Any  # a list of SourceRecords, or of SourceRecordBatches when sending columns
        while not self.stopping:
            if self.target_state is not TargetState.STARTED:
                self._pause()
                continue
            started = clock()
            try:
                records = poll()
            except RetriableError as exc:
                log.warning("Source task %s: poll failed, polling again: %s", self.id, exc)
                records = None
            if records:
                polled = count(records)
                self.records_polled += polled
                record_poll(started, polled)
                dispatch(records)
            elif not self.stopping:
                producer_poll(IDLE_POLL_S)
            after_iteration(bool(records))

    def _pause(self) -> None:
        # Make what was sent durable before idling: acks, then offsets. Exactly once, nothing may hang open
        # while paused: Kafka aborts a transaction older than its timeout, and the task would then look
        # fenced (`connector` boundaries: the task decides, as in Kafka).
        self.commit_offsets(final=True)
        self.status.on_task_pause(self.id)
        if self.await_unpaused():
            self.status.on_task_resume(self.id)
            self._next_commit = self._clock() + self.flush_interval_s

    # -- the loop's hooks (Kafka's AbstractWorkerSourceTask has the same ones) -------------------

    def _ready_to_send(self) -> bool:
        """Whether the loop may run at all (exactly-once: not when the start was refused or fenced)."""
        return True

    def _sends_columns(self) -> bool:
        """Whether a task's `poll_batches` may go to Kafka as columns (else: as the records they hold)."""
        return sends_columns(self.pipeline, self._per_record_callbacks and not self._commits_batches)

    def _dispatch(self, records: list[SourceRecord]) -> None:
        """Send one poll batch (`SourceRecordBatch`es, when the loop sends columns)."""
        self.send_batch(records)
        self.producer.poll(0)

    def _after_iteration(self, dispatched: bool) -> None:
        """After each poll (`dispatched`: it brought records): failed deliveries, then the periodic commit."""
        if self.deliveries.failures:
            self.deliveries.collect(type(self.producer), raise_fatal=True)
        if self._clock() >= self._next_commit:
            self.commit_offsets()
            self._next_commit = self._clock() + self.flush_interval_s

    def _interrupted(self, exc: TopicCreationInterrupted) -> None:
        """A stop came while a batch waited for its topic to be created."""
        log.info("Source task %s: stopping; the records of the last batch were not all sent: %s", self.id, exc)

    # -- sending --------------------------------------------------------------------------------

    def send_batch(self, polled: Sequence[SourceRecord]) -> None:
        """Transform, convert and produce one poll batch (public for tests and benchmarks)."""
        if polled and isinstance(polled[0], SourceRecordBatch):
            if self._sends_columns():
                self.send_columns(polled)  # a list of batches, as the loop polled them
                return
            polled = as_records(polled) or []  # transforms or commit_record need the records
        if self._per_record_callbacks:
            self._send_with_record_callbacks(polled)
            return
        records = self.pipeline.transform(polled if isinstance(polled, list) else list(polled))
        batch = self.submitted.submit(polled, len(records))
        if records:
            try:
                self.sender.produce_records(records, batch, self.deliveries.batch_callback(batch))
            except BaseException:
                batch.failed = True  # some records were never sent
                raise

    def send_columns(self, batches: Sequence[SourceRecordBatch]) -> None:
        """Convert and produce one poll's batches column by column, tracked as one submitted batch."""
        count = len(batches[0].values) if len(batches) == 1 else count_records(batches)
        submitted = self.submitted.submit_batches(batches, count)
        on_delivery = self.deliveries.batch_callback(submitted)
        try:
            for batch in batches:
                if batch.values:
                    run_ends = None
                    if self._commits_batches:
                        on_delivery = self.deliveries.offsets_callback(submitted, batch, self._commit_batch)
                        if self._runs_confirmed_by_last and batch.kafka_partition is not None and len(batch) > 1:
                            run_ends = self.deliveries.run_ends_callbacks(submitted, batch, self._commit_batch)
                    self.sender.produce_columns(batch, submitted, on_delivery, run_ends)
        except BaseException:
            submitted.failed = True  # some records were never sent
            raise

    def _send_with_record_callbacks(self, polled: Sequence[SourceRecord]) -> None:
        # The slow path for tasks that override commit_record: they get the record as polled (before
        # transforms, as in Kafka Connect), so each record is transformed and produced on its own.
        batch = self.submitted.submit(polled, len(polled))
        try:
            for record in polled:
                transformed = self.pipeline.transform_one(record)
                if transformed is None:
                    batch.ack()
                    self._commit_record(record, None)
                    continue
                callback = self.deliveries.record_callback(batch, record)
                if self.sender.send_one_carefully(transformed, batch, callback):
                    self.sender.records_sent += 1
                else:
                    self._commit_record(record, None)
        except BaseException:
            batch.failed = True  # some records were never sent
            raise

    def _commit_batch(self, batch: SourceRecordBatch, offsets: Sequence[int]) -> None:
        try:
            self.source_task.commit_batch(batch, offsets)
        except Exception:
            log.exception("Source task %s: commit_batch() failed (ignored)", self.id)

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        try:
            self.source_task.commit_record(record, metadata)
        except Exception:
            log.exception("Source task %s: commit_record() failed (ignored)", self.id)

    # -- topic creation -------------------------------------------------------------------------

    def _topic_used(self, topic: str) -> None:
        if topic in self._topics_seen:
            return
        if self.topic_creation is not None:
            self.topic_creation.ensure_exists(topic, stopping=lambda: self.stopping, wait=self.wait_for_change)
        super()._topic_used(topic)

    # -- offsets --------------------------------------------------------------------------------

    def commit_offsets(self, *, final: bool = False, raise_fatal: bool = True) -> bool:
        """Store the offsets of what Kafka acknowledged so far, then `task.commit()`.

        Error-only delivery reports: flush the producer, waiting on (while running and started) until
        it is empty, since only then are the batches known to be complete. Per-record reports: only
        serve pending reports, unless `final` (pause, stop), which flushes within the timeout.
        False if the offset store failed (what it did not take is retried next time).
        """
        started = self._clock()
        ok = self._commit_offsets(final, raise_fatal)
        self.metrics.record_commit(started, ok)
        return ok

    def _commit_offsets(self, final: bool, raise_fatal: bool) -> bool:
        return self.offset_committer.commit(final=final, raise_fatal=raise_fatal)
