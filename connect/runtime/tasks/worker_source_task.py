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

Acknowledgements (see `offsets.submitted`): by default the producer reports failed deliveries only
(`delivery.report.only.error`), and every `offset.flush.interval.ms` the task thread flushes the
producer; once it is empty, every batch sent before is complete unless a failure report marked it.
Then the committable offsets (in order per source partition) go to the offset store, and
`task.commit()` follows; once more on pause and stop. Tasks that override `commit_record` need to know
which record was acknowledged: their producer reports every delivery to a per-record callback.

Hot path: one `try` around a whole batch, methods bound to locals, one delivery callback object per
batch (called for failures only), no per-record logging or metrics (`metrics` records once per poll).
With a producer that takes columns (`kafka_clients.BatchProducer`, given to tasks that send columns), a
batch's values go to librdkafka in one call; the first batch with timestamps or headers, which that
producer would take one record at a time at several times the cost, makes the task flush it and go on
with `record_producer`'s.
A record that raises is redone alone through the `ErrorHandler` (retries, tolerance, error log). A
batch that an exception leaves partly unsent is marked failed, so none of its offsets (nor later ones
of its source partitions) is ever committed.

Topic creation (KIP-158, `topic_creation`), if asked for: the first record to each topic waits until
the topic exists. A stop while Kafka does not answer abandons the batch; any other failure fails the task.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect.api.batch import SourceRecordBatch
from connect.api.context import RecordMetadata
from connect.api.errors import ConnectError, RetriableError
from connect.api.records import SourceRecord
from connect.api.task import SourceTask
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.kafka import ColumnNotBytesError, ProducerLike
from connect.runtime.metrics.groups import MetricGroup
from connect.runtime.metrics.task_metrics import SourceTaskMetrics
from connect.runtime.metrics.windows import Windows
from connect.runtime.offsets import OffsetStore, SubmittedBatch, SubmittedRecords
from connect.runtime.offsets.reader import OffsetStorageReader
from connect.runtime.pipeline.closing import Closeable, close_quietly
from connect.runtime.pipeline.error_handling import SKIP, Stage
from connect.runtime.pipeline.record_pipeline import RecordPipeline
from connect.runtime.pipeline.source_batches import as_records, convert_columns, count_records, sends_columns
from connect.runtime.tasks.contexts import WorkerSourceTaskContext
from connect.runtime.tasks.topic_creation import TopicCreation, TopicCreationError, TopicCreationInterrupted
from connect.runtime.tasks.worker_task import WorkerTask

log = logging.getLogger(__name__)

# An empty poll serves delivery reports for this long, so a task that never blocks does not spin a core.
IDLE_POLL_S = 0.01
# How long produce waits for room when librdkafka's queue is full, per attempt. Only failures are reported,
# so `poll` finds no event to return early for and waits this long: at the 1.7 million 100 B records a
# second a task reaches, librdkafka's default 100,000-message queue is 60 ms of records, and waits of
# 100 ms left the producer idle between them (docs/performance.md, "Sources").
QUEUE_FULL_WAIT_S = 0.002


class WorkerSourceTask(WorkerTask):
    @staticmethod
    def needs_record_reports(task_class: type[SourceTask]) -> bool:
        """Whether the producer must report successful deliveries too (else: failures only, faster)."""
        return task_class.commit_record is not SourceTask.commit_record

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
    ) -> None:
        """`topic_creation`: create topics before their first record (None: leave that to the broker).
        `record_producer`: with a producer that takes whole columns (`produce_values`), makes the producer
        the task switches to, once, when its batches carry timestamps or headers, which go one record at
        a time and cost that producer several times what confluent_kafka's costs."""
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
        self.producer = producer
        # A producer that takes a batch's values in one call (kafka_clients.BatchProducer), else None.
        self._produce_values: Callable[..., list[tuple[int, Any]]] | None = getattr(producer, "produce_values", None)
        self._record_producer = record_producer
        self.pipeline = pipeline
        pipeline.errors.stop_on(self.stop_event)
        self.offset_store = offset_store
        self.topic_creation = topic_creation
        self.offset_reader = OffsetStorageReader(task_id.connector, offset_store)
        self.submitted = SubmittedRecords(task_id.connector)
        self.flush_interval_s = offset_flush_interval_ms / 1000
        self.flush_timeout_s = offset_flush_timeout_ms / 1000
        self._clock = clock
        self._next_commit = 0.0
        self._unflushed: dict[bytes, bytes | None] = {}
        self._delivery_errors: list[tuple[Any, Any]] = []
        self._per_record_callbacks = self.needs_record_reports(type(task))
        self._polls_batches = self.polls_batches(type(task))
        # task.stop() is called from the stopping thread (to unblock poll), but only once and only after start.
        self._stop_lock = threading.Lock()
        self._task_started = False
        self._task_stopped = False
        self.records_polled = 0
        self.records_sent = 0
        self.offset_commits = 0
        self.metrics = SourceTaskMetrics(task_id, self, pipeline.errors.counters, self.metrics_windows, clock)

    # -- metrics --------------------------------------------------------------------------------

    def metric_groups(self) -> list[MetricGroup]:
        return [*self.metrics.groups(), *self.plugin_metrics.groups()]

    def active_records(self) -> int:
        """Records sent whose delivery is not known yet (Kafka's source-record-active-count)."""
        return self.submitted.outstanding_records()

    # -- lifecycle ------------------------------------------------------------------------------

    def initialize_and_start(self) -> None:
        context = WorkerSourceTaskContext(self.task_config, self.offset_reader, plugin_metrics=self.plugin_metrics)
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
        return sends_columns(self.pipeline, self._per_record_callbacks)

    def _dispatch(self, records: list[SourceRecord]) -> None:
        """Send one poll batch (`SourceRecordBatch`es, when the loop sends columns)."""
        self.send_batch(records)
        self.producer.poll(0)

    def _after_iteration(self, dispatched: bool) -> None:
        """After each poll (`dispatched`: it brought records): failed deliveries, then the periodic commit."""
        if self._delivery_errors:
            self._collect_delivery_errors(raise_fatal=True)
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
                self._produce(records, batch, self._batch_callback(batch))
            except BaseException:
                batch.failed = True  # some records were never sent
                raise

    def _produce(self, records: list[SourceRecord], batch: SubmittedBatch, on_delivery: Callable[..., None]) -> None:
        produce = self.producer.produce
        pipeline = self.pipeline
        key_from = pipeline.key_converter.from_connect_data
        value_from = pipeline.value_converter.from_connect_data
        header_from = pipeline.header_converter.from_connect_header
        seen = self._topics_seen
        last_topic = None
        index = 0
        count = len(records)
        skipped = 0
        while index < count:
            try:
                while index < count:
                    record = records[index]
                    topic = record.topic
                    if topic is not last_topic:
                        last_topic = topic
                        if topic not in seen:
                            self._topic_used(topic)
                    headers = record.headers
                    kafka_headers = (
                        [(h.key, header_from(topic, h.key, h.schema, h.value)) for h in headers] if headers else None
                    )
                    key = record.key
                    key_schema = record.key_schema
                    # Converters map (None, None) to None (Kafka's JsonConverter does too): skip the call.
                    key_bytes = (
                        None if key is None and key_schema is None else key_from(topic, key_schema, key, headers)
                    )
                    value = record.value
                    value_schema = record.value_schema
                    value_bytes = (
                        None
                        if value is None and value_schema is None
                        else value_from(topic, value_schema, value, headers)
                    )
                    partition = record.kafka_partition
                    timestamp = record.timestamp
                    try:
                        # All positional (topic, value, key, partition, callback, on_delivery, timestamp,
                        # headers): keywords were measurably slower in this loop (docs/architecture.md, "Hot paths").
                        produce(
                            topic,
                            value_bytes,
                            key_bytes,
                            -1 if partition is None else partition,
                            on_delivery,
                            None,
                            0 if timestamp is None else timestamp,
                            kafka_headers,
                        )
                    except BufferError:
                        self._produce_when_room(
                            (topic, value_bytes, key_bytes, partition, timestamp, kafka_headers), on_delivery
                        )
                    index += 1
            except (TopicCreationError, TopicCreationInterrupted):
                raise  # the record cannot be sent at all: no point in the slow path
            except Exception:
                # Only the failing record takes the slow path; the loop resumes after it.
                if not self._send_one_carefully(records[index], batch, on_delivery):
                    skipped += 1
                index += 1
        self.records_sent += count - skipped

    def send_columns(self, batches: Sequence[SourceRecordBatch]) -> None:
        """Convert and produce one poll's batches column by column, tracked as one submitted batch."""
        count = len(batches[0].values) if len(batches) == 1 else count_records(batches)
        submitted = self.submitted.submit_batches(batches, count)
        on_delivery = self._batch_callback(submitted)
        try:
            for batch in batches:
                if batch.values:
                    self._produce_columns(batch, submitted, on_delivery)
        except BaseException:
            submitted.failed = True  # some records were never sent
            raise

    def _produce_columns(
        self, batch: SourceRecordBatch, submitted: SubmittedBatch, on_delivery: Callable[..., None]
    ) -> None:
        topic = batch.topic
        if topic not in self._topics_seen:
            self._topic_used(topic)
        try:
            keys, values, timestamps, headers = convert_columns(self.pipeline, batch)
        except Exception:
            # A value the converters refuse: the batch goes record by record, so that the error policy
            # applies to that record alone, as on the record path.
            self._produce(batch[:], submitted, on_delivery)
            return
        partition = -1 if batch.kafka_partition is None else batch.kafka_partition
        plain = batch.timestamps is None and batch.headers is None
        if self._produce_values is not None and not plain:
            self._switch_to_record_producer()
        if self._produce_values is not None and plain:
            key_column = None if batch.keys is None and batch.key_schema is None else keys
            if self._produce_value_column(batch, partition, values, key_column, on_delivery, submitted):  # type: ignore[arg-type]
                return
        produce = self.producer.produce
        rows = enumerate(zip(values, keys, timestamps, headers, strict=False))  # keys etc. may be endless
        index = -1
        skipped = 0
        while True:
            try:
                # One iterator across the retries: after a record that raised, the loop resumes past it.
                for index, (value_bytes, key_bytes, timestamp, kafka_headers) in rows:  # noqa: B007
                    try:
                        # Positional, as in _produce (docs/architecture.md, "Hot paths").
                        produce(topic, value_bytes, key_bytes, partition, on_delivery, None, timestamp, kafka_headers)
                    except BufferError:
                        produced = (topic, value_bytes, key_bytes, partition, timestamp, kafka_headers)
                        self._produce_when_room(produced, on_delivery)
                break
            except Exception:
                if not self._send_one_carefully(batch.record(index), submitted, on_delivery):
                    skipped += 1
        self.records_sent += len(values) - skipped

    def _produce_value_column(
        self,
        batch: SourceRecordBatch,
        partition: int,
        values: Sequence[bytes],
        keys: Sequence[bytes] | None,
        on_delivery: Callable[..., None],
        submitted: SubmittedBatch,
    ) -> bool:
        """Hand the converted values (and keys) to the producer in one call; False, with nothing sent,
        when a value or key is not bytes (a tombstone, a null key)."""
        assert self._produce_values is not None
        try:
            refused = self._produce_values(batch.topic, partition, values, keys, on_delivery, self._wait_for_room)
        except ColumnNotBytesError:
            return False
        skipped = 0
        for index, _error in refused:
            # Refused when enqueued (too large, unknown partition): the error policy decides, as on the
            # record path, though later records of the batch are already on their way.
            if not self._send_one_carefully(batch.record(index), submitted, on_delivery):
                skipped += 1
        self.records_sent += len(values) - skipped
        return True

    def _switch_to_record_producer(self) -> None:
        """Deliver everything sent so far (so that order holds), then produce through `record_producer`."""
        if self._record_producer is None:
            return
        log.info("Source task %s sends records with timestamps or headers: producing them one by one", self.id)
        while self.producer.flush(self.flush_timeout_s) > 0:
            if self.stopping:
                raise ConnectError(f"Source task {self.id} stopped before its records were delivered")
        self.producer.poll(0)  # the last failure reports
        if self._delivery_errors:
            self._collect_delivery_errors(raise_fatal=True)
        batch_producer = self.producer
        self.producer = self._record_producer()
        self._produce_values = None
        if isinstance(batch_producer, Closeable):
            close_quietly([batch_producer], f"Source task {self.id}")

    def _wait_for_room(self) -> None:
        # librdkafka's queue is full: serving reports frees room.
        self.producer.poll(QUEUE_FULL_WAIT_S)
        if self._delivery_errors:
            self._collect_delivery_errors(raise_fatal=True)

    def _produce_when_room(self, produced: tuple[Any, ...], on_delivery: Callable[..., None]) -> None:
        topic, value_bytes, key_bytes, partition, timestamp, headers = produced
        while True:
            self._wait_for_room()
            try:
                self.producer.produce(
                    topic,
                    value_bytes,
                    key_bytes,
                    -1 if partition is None else partition,
                    on_delivery=on_delivery,
                    timestamp=0 if timestamp is None else timestamp,
                    headers=headers,
                )
                return
            except BufferError:
                # Kafka Connect blocks here too (max.block.ms is infinite): a stop that cannot wait
                # this out ends with the task cancelled after task.shutdown.graceful.timeout.ms.
                continue

    def _send_one_carefully(
        self, record: SourceRecord, batch: SubmittedBatch, on_delivery: Callable[..., None]
    ) -> bool:
        """Convert and produce one record under the error policy; False (and acked) if it was skipped."""
        converted = self.pipeline.to_produced(record)
        if converted is None:
            batch.ack()
            return False
        topic, value_bytes, key_bytes, partition, timestamp, headers = converted
        self._topic_used(topic)
        produced = (topic, value_bytes, key_bytes, partition, timestamp, headers)
        result = self.pipeline.errors.execute(
            Stage.KAFKA_PRODUCE,
            type(self.producer),
            lambda: self._produce_blocking(produced, on_delivery),
            record=record,
        )
        if result is SKIP:
            batch.ack()
            return False
        return True

    def _produce_blocking(self, produced: tuple[Any, ...], on_delivery: Callable[..., None]) -> None:
        topic, value_bytes, key_bytes, partition, timestamp, headers = produced
        try:
            self.producer.produce(
                topic,
                value_bytes,
                key_bytes,
                partition,
                on_delivery=on_delivery,
                timestamp=timestamp,
                headers=headers,
            )
        except BufferError:
            self._produce_when_room(produced, on_delivery)

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
                callback = functools.partial(self._record_delivered, batch, record)
                if self._send_one_carefully(transformed, batch, callback):
                    self.records_sent += 1
                else:
                    self._commit_record(record, None)
        except BaseException:
            batch.failed = True  # some records were never sent
            raise

    # -- topic creation -------------------------------------------------------------------------

    def _topic_used(self, topic: str) -> None:
        if topic in self._topics_seen:
            return
        if self.topic_creation is not None:
            self.topic_creation.ensure_exists(topic, stopping=lambda: self.stopping, wait=self.wait_for_change)
        super()._topic_used(topic)

    # -- acknowledgements -----------------------------------------------------------------------

    def _batch_callback(self, batch: SubmittedBatch) -> Callable[[Any, Any], None]:
        errors = self._delivery_errors
        tolerate = self.pipeline.errors.tolerates_all

        def on_delivery(error: Any, message: Any) -> None:
            # With error-only reports this runs for failures alone; `acknowledge_all` completes the rest.
            if error is not None:
                errors.append((error, message))
                if not tolerate:
                    batch.failed = True  # never completes, so its offsets are never committed
                    return
            batch.outstanding -= 1

        return on_delivery

    def _record_delivered(self, batch: SubmittedBatch, record: SourceRecord, error: Any, message: Any) -> None:
        if error is not None:
            self._delivery_errors.append((error, message))
            if not self.pipeline.errors.tolerates_all:
                batch.failed = True
                return
            metadata = None
        else:
            metadata = RecordMetadata(message.topic(), message.partition(), message.offset(), message.timestamp()[1])
        batch.outstanding -= 1
        self._commit_record(record, metadata)

    def _commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        try:
            self.source_task.commit_record(record, metadata)
        except Exception:
            log.exception("Source task %s: commit_record() failed (ignored)", self.id)

    def _collect_delivery_errors(self, *, raise_fatal: bool) -> None:
        failures, self._delivery_errors[:] = list(self._delivery_errors), []
        errors = self.pipeline.errors
        for error, message in failures:
            cause = ConnectError(f"Kafka did not accept a record for topic {message.topic()}: {error}")
            if errors.tolerates_all:
                errors.failed(Stage.KAFKA_PRODUCE, type(self.producer), cause)
            elif raise_fatal:
                raise ConnectError(f"Unrecoverable exception from producer send callback: {error}") from cause
            else:
                log.error("Source task %s: %s", self.id, cause)

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
        producer = self.producer
        if self._per_record_callbacks:
            if final:
                producer.flush(self.flush_timeout_s)
            else:
                producer.poll(0)
            self._collect_delivery_errors(raise_fatal=raise_fatal)
        else:
            remaining = producer.flush(self.flush_timeout_s)
            if remaining and not final and not self.stopping:
                log.warning("Source task %s: waiting for Kafka to acknowledge %d records", self.id, remaining)
                # Nearly free when Kafka is the bottleneck (it keeps ingesting what is queued), and giving
                # up would leave offsets uncommitted for as long as the backlog lasts.
                while remaining and not self.stopping and self.target_state is TargetState.STARTED:
                    self._collect_delivery_errors(raise_fatal=raise_fatal)
                    remaining = producer.flush(self.flush_timeout_s)
            self._collect_delivery_errors(raise_fatal=raise_fatal)
            if remaining == 0:
                self.submitted.acknowledge_all()
            else:
                log.warning("Source task %s: %d records not acknowledged yet; their offsets wait", self.id, remaining)
        pending = self._unflushed
        pending.update(self.submitted.committable())
        if pending:
            try:
                self.offset_store.set(pending)
                self.offset_store.flush(self.flush_timeout_s)
            except Exception:
                log.exception("Source task %s: failed to flush offsets to the offset store", self.id)
                return False
            self._unflushed = {}
            self.offset_commits += 1
            log.debug("Source task %s: committed offsets of %d source partitions", self.id, len(pending))
        try:
            self.source_task.commit()
        except Exception:
            log.exception("Source task %s: commit() failed (ignored)", self.id)
        return True
