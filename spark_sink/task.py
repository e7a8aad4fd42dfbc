"""SparkParquetSinkTask: buffers records per topic partition and hands closed files to its writer thread.

Lifecycle (all on the task thread, as the runtime calls it): `start` parses settings, deletes the
hand-off files of dead processes and starts the writer thread (Spark itself starts lazily on the
first flush, which also decides the hand-off). `open` recovers each assigned
partition from its manifests and rewinds the consumer to the first unpublished offset. `put_batches`
(or `put`, when the connector has transforms and the runtime has SinkRecords to give)
decodes (raw bytes after gathering a few polls: `spark_sink.gathering`; Avro records from their value
columns, `takes_value_columns`) and buffers, closes files as rotation says and submits them to the
writer without waiting.
`pre_commit` returns the published offsets only (what the manifests cover), so Kafka's group
offsets trail the files and are for monitoring. `close` forgets revoked partitions: their buffered
records are dropped and re-read by the next owner. `stop` ends the writer and releases Spark.
Wall-clock rotations and back-pressure are evaluated on every `put`/`pre_commit`; the writer thread
asks for a commit when one is due, so they happen without new records too.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Collection, Mapping, Sequence

from connect.api import (
    ConnectError,
    DataError,
    RecordListBatch,
    SinkRecord,
    SinkRecordBatch,
    SinkTask,
    TopicPartition,
)
from connect.api.version import distribution_version
from spark_sink.buffers import ClosedBatch, PartitionBuffer
from spark_sink.commit import CommitSettings, EpochCommitter, EpochOutcome
from spark_sink.config import SinkSettings
from spark_sink.faults import CommitStep, FaultInjector, no_faults
from spark_sink.handoff import Handoff, local_parent, sweep_local, sweep_storage
from spark_sink.intake import PartitionState, RecordIntake, ReportErrant
from spark_sink.layout import STAGING_DIR
from spark_sink.ledger import Ledgers
from spark_sink.partitioners import load_partitioner, load_timestamp_extractor
from spark_sink.recovery import recover_partition
from spark_sink.rotation import BackPressure, early_flushes
from spark_sink.spark_resources import SparkResources
from spark_sink.staging import sweep_staging
from spark_sink.storage import Storage
from spark_sink.task_metrics import SparkSinkMetrics
from spark_sink.timezones import LocalClock, resolve
from spark_sink.writer import WriterThread

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 30.0
ERRANT_REPORT_TIMEOUT_S = 30.0
# How often a task looks at staging again while a sweep left something there (a listing and a few
# manifest reads; dead groups are decided by manifests that arrive after the assignment's sweep).
STAGING_RESWEEP_MS = 60_000


class SparkParquetSinkTask(SinkTask):
    takes_value_columns = True
    """Struct values come as one list per field where the converter decodes them so (AvroConverter): the
    intake turns each list into an Arrow column, with the type the Connect (hence Avro) schema maps to,
    without a Struct per record."""

    def __init__(self) -> None:
        self._fault_injector: FaultInjector = no_faults
        self._settings: SinkSettings | None = None
        self._states: dict[TopicPartition, PartitionState] = {}
        self._ledgers = Ledgers()
        self._resources: SparkResources | None = None
        self._committer: EpochCommitter | None = None
        self._writer: WriterThread | None = None
        self._intake: RecordIntake | None = None
        self._backpressure = BackPressure(1)
        self._metrics: SparkSinkMetrics | None = None
        self._handed_over: dict[TopicPartition, int] = {}
        self._next_sweep_ms: int | None = None
        self.staging_resweep_ms = STAGING_RESWEEP_MS
        self.writer_id = uuid.uuid4().hex[:12]

    def version(self) -> str:
        return distribution_version("kconnect")

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self, props: Mapping[str, str]) -> None:
        settings = SinkSettings.from_props(props)
        self._settings = settings
        self._resources = SparkResources(settings, self.writer_id)
        try:
            sweep_local(local_parent())
        except OSError:
            log.warning("Could not clean up hand-off files under %s", local_parent(), exc_info=True)
        config = settings.raw
        extractor = load_timestamp_extractor(config) if settings.rotate_interval_ms > 0 else None
        clock = LocalClock(resolve(settings.timezone) if settings.timezone else resolve("UTC"))
        self._intake = RecordIntake(settings, load_partitioner(config), extractor, clock, self._errant_reporting())
        self._backpressure = BackPressure(settings.flush_max_bytes)
        self._metrics = SparkSinkMetrics(self.context.plugin_metrics)
        self._committer = EpochCommitter(
            CommitSettings(settings.topics_dir, settings.codec, settings.parquet_block_size, self.writer_id),
            self._ledgers,
            self._resources,
            self._fault_injector,
        )
        self._writer = WriterThread(
            f"spark-sink-writer-{self.writer_id}", self._committer, self._request_commit, self._resources.cancel_jobs
        )
        log.info("Spark Parquet sink task %s writes to %s", self.writer_id, settings.root)

    def open(self, partitions: Collection[TopicPartition]) -> None:
        storage = self._require_storage()
        for tp in partitions:
            self._recover(tp, storage)
        self._sweep(storage, int(time.time() * 1000))
        self._end_call()

    def put(self, records: Sequence[SinkRecord]) -> None:
        self.put_batches(RecordListBatch.of_records(records))

    def put_batches(self, batches: Sequence[SinkRecordBatch]) -> None:
        writer = self._require_writer()
        self._absorb_outcomes(writer)
        intake = self._require_intake()
        now = int(time.time() * 1000)
        for batch in batches:
            tp = batch.topic_partition
            state = self._states.get(tp) or self._recover(tp, self._require_storage())
            intake.offer(state, batch, now)
        if not batches:
            for state in self._states.values():  # the poll came back empty: waiting would gather nothing
                intake.add_gathered(state)
        self._after_call(writer, now, add_gathered=True)

    def pre_commit(self, offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        writer = self._require_writer()
        self._absorb_outcomes(writer)
        now = int(time.time() * 1000)
        self._after_call(writer, now, add_gathered=False)
        if self._next_sweep_ms is not None and now >= self._next_sweep_ms:
            self._sweep(self._require_storage(), now)
        published = {tp: end + 1 for tp, end in self._ledgers.published().items()}
        if published != self._handed_over:
            self.fault_injector(CommitStep.PRE_COMMIT, None)
            self._handed_over = published
        return published

    def close(self, partitions: Collection[TopicPartition]) -> None:
        for tp in partitions:
            self._ledgers.remove(tp)  # from here on the writer cannot commit for tp
            self._states.pop(tp, None)
            self._handed_over.pop(tp, None)
        self._backpressure.paused -= set(partitions)

    def stop(self) -> None:
        if self._writer is not None:
            self._writer.stop(STOP_TIMEOUT_S)
            self._writer = None
        self._ledgers.clear()
        self._states.clear()
        if self._resources is not None:
            self._resources.release()

    # -- for tests and benchmarks ----------------------------------------------------------------

    def wait_until_written(self, timeout_s: float) -> bool:
        """Blocks until every closed file is written and committed (or failed); True when all went well."""
        return self._require_writer().wait_idle(timeout_s)

    @property
    def handoff(self) -> Handoff | None:
        """How batches reach Spark (`batch.handoff` as this session resolves it); None before the first flush."""
        return self._resources.handoff if self._resources is not None else None

    @property
    def spark_resources(self) -> SparkResources:
        """The task's session, storage and hand-off, shared with its writer thread."""
        if self._resources is None:
            raise ConnectError("The task was not started")
        return self._resources

    @property
    def fault_injector(self) -> FaultInjector:
        """Called at each step of the commit protocol (`spark_sink.faults.CommitStep`): a seam where a
        subclass or a harness observes or interrupts the protocol; it does nothing by default."""
        return self._fault_injector

    @fault_injector.setter
    def fault_injector(self, injector: FaultInjector) -> None:
        self._fault_injector = injector
        if self._committer is not None:
            self._committer.fault_injector = injector

    @property
    def settings(self) -> SinkSettings:
        if self._settings is None:
            raise ConnectError("The task was not started")
        return self._settings

    # -- internals -------------------------------------------------------------------------------

    def _recover(self, tp: TopicPartition, storage: Storage) -> PartitionState:
        recovered = recover_partition(storage, tp)
        ledger = self._ledgers.install(tp, recovered.next_seq, recovered.published_end)
        state = PartitionState(tp, PartitionBuffer(tp, ledger.generation))
        # Offsets published before this task owned tp are not news for the PRE_COMMIT step.
        self._handed_over.pop(tp, None)
        if recovered.published_end is not None:
            self._handed_over[tp] = recovered.published_end + 1
            state.next_expected = recovered.published_end + 1
            state.rewinding = True
            self.context.offset({tp: recovered.published_end + 1})
        self._states[tp] = state
        log.debug("%s resumes at %s (next commit %d)", tp, state.next_expected, recovered.next_seq)
        return state

    def _errant_reporting(self) -> ReportErrant | None:
        """Undecodable records to the runtime's error handling (`errors.tolerance`, the dead letter queue)
        when the connector has error reporting configured; None: such a record fails the task."""
        context = getattr(self, "context", None)
        reporter = context.errant_record_reporter if context is not None else None
        if reporter is None:
            return None

        def report(record: SinkRecord, error: DataError) -> None:
            log.warning(
                "%s-%d offset %d cannot be written and is reported as an errant record: %s",
                record.original_topic, record.original_kafka_partition, record.original_kafka_offset, error,
            )  # fmt: skip
            # Its offset will be covered by the next manifest: the report must be out before that.
            reporter.report(record, error).result(ERRANT_REPORT_TIMEOUT_S)

        return report

    def _absorb_outcomes(self, writer: WriterThread) -> None:
        if writer.error is not None:
            raise ConnectError(f"The Spark sink's writer failed: {writer.error}") from writer.error
        for outcome in writer.take_outcomes():
            self._absorb(outcome)

    def _absorb(self, outcome: EpochOutcome) -> None:
        if outcome.epoch_id and self._metrics is not None:
            self._metrics.committed(outcome)
        if outcome.epoch_id:
            log.debug(
                "Epoch %s: %d rows, %d files, %d partitions committed, Spark %.3f s, publish %.3f s",
                outcome.epoch_id, outcome.rows, outcome.files, len(outcome.committed),
                outcome.spark_seconds, outcome.publish_seconds,
            )  # fmt: skip
        for tp, generation in outcome.fenced.items():
            ledger = self._ledgers.get(tp)
            if ledger is not None and ledger.generation == generation:
                log.warning("%s: another writer committed ahead of this task; recovering from its manifests", tp)
                self._recover(tp, self._require_storage())

    def _after_call(self, writer: WriterThread, now_ms: int, add_gathered: bool) -> None:
        """Rotations by time and memory, hand-off to the writer, back-pressure, the next timer.

        `add_gathered` (from `put` only): decode what partitions gathered when it is due or their files
        close. Never from `pre_commit`, where a value that cannot be decoded would not fail the task (the
        runtime rewinds after a failed pre_commit): the runtime's polls, empty ones included, come often
        enough."""
        settings = self.settings
        intake = self._require_intake()
        closed: list[ClosedBatch] = []
        for state in self._states.values():
            gathered = state.gathered if add_gathered else None
            if gathered is not None and (now_ms >= gathered.due_ms or self._time_rotation(state.buffer, now_ms)):
                intake.add_gathered(state)
            closed.extend(state.closed)
            state.closed.clear()
            reason = self._time_rotation(state.buffer, now_ms)
            if reason is not None:
                closed.append(state.buffer.close(reason))
        sizes = {tp: s.buffered_bytes for tp, s in self._states.items()}
        for tp in early_flushes(sizes, settings.flush_max_bytes):
            state = self._states[tp]
            if add_gathered:
                intake.add_gathered(state)
            closed.extend(state.closed)
            state.closed.clear()
            if not state.buffer.empty:
                closed.append(state.buffer.close("flush.max.bytes"))
        writer.submit(closed)
        buffered = sum(s.buffered_bytes for s in self._states.values())
        unwritten = writer.pending_bytes
        to_pause, to_resume = self._backpressure.decide(buffered + unwritten, set(self._states))
        if to_pause:
            log.info(
                "Pausing %d partition(s): %d bytes buffered, %d handed to the writer and not yet written",
                len(to_pause),
                buffered,
                unwritten,
            )
            self.context.pause(*sorted(to_pause))
        if to_resume:
            self.context.resume(*sorted(to_resume))
        if self._metrics is not None:
            self._metrics.buffered_bytes = buffered
            self._metrics.back_pressure(bool(self._backpressure.paused))
        writer.due_ms = self._next_due()
        self._end_call()

    def _time_rotation(self, buffer: PartitionBuffer, now_ms: int) -> str | None:
        if buffer.empty:
            return None
        if buffer.scheduled_rotation_ms is not None and now_ms >= buffer.scheduled_rotation_ms:
            return "rotate.schedule.interval.ms"
        extractor = self._require_intake().rotation_extractor
        wallclock = extractor is not None and extractor.is_wallclock and buffer.base_time_ms is not None
        if wallclock and now_ms - (buffer.base_time_ms or 0) >= self.settings.rotate_interval_ms:
            return "rotate.interval.ms"
        return None

    def _next_due(self) -> float | None:
        extractor = self._require_intake().rotation_extractor
        due: list[int] = []
        for state in self._states.values():
            buffer = state.buffer
            if buffer.empty:
                continue
            if buffer.scheduled_rotation_ms is not None:
                due.append(buffer.scheduled_rotation_ms)
            if extractor is not None and extractor.is_wallclock and buffer.base_time_ms is not None:
                due.append(buffer.base_time_ms + self.settings.rotate_interval_ms)
        return float(min(due)) if due else None

    def _sweep(self, storage: Storage, now_ms: int) -> None:
        """Deletes dead staging and hand-off files. A crashed writer's staged groups are undecided until
        their partitions' next manifests exist, which the new owners write after this assignment: while
        anything is left in staging, sweep again every `staging_resweep_ms` rather than leave it until
        the next rebalance."""
        try:
            sweep_staging(storage, now_ms)
            sweep_storage(storage, now_ms)
            left = bool(storage.list_dir(STAGING_DIR))
        except Exception:
            log.warning("Could not clean up staging under %s", storage.root, exc_info=True)
            left = True
        self._next_sweep_ms = now_ms + self.staging_resweep_ms if left else None

    def _end_call(self) -> None:
        for state in self._states.values():
            state.rewinding = False

    def _request_commit(self) -> None:
        # From the writer thread: the runtime's request_commit only sets a flag its loop reads.
        context = getattr(self, "context", None)
        if context is not None:
            context.request_commit()

    def _require_storage(self) -> Storage:
        return self.spark_resources.storage()

    def _require_writer(self) -> WriterThread:
        if self._writer is None:
            raise ConnectError("The task is not running")
        return self._writer

    def _require_intake(self) -> RecordIntake:
        if self._intake is None:
            raise ConnectError("The task was not started")
        return self._intake
