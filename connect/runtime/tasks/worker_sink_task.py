"""`WorkerSinkTask`: runs one SinkTask on its own thread with its own consumer (Kafka's `WorkerSinkTask`).

Loop: `consume` a batch (rebalance callbacks run inside it, on this thread: revoked → commit +
`task.close`, assigned → `task.open` + requested rewinds) → header/key/value converters → SinkRecords
→ transformation chain → `task.put(batch)` (also with an empty batch when nothing came, as Kafka Connect
does, so time-based sinks can flush and a sink that paused all its partitions can resume them). A
`RetriableError` from `put` pauses every partition and redelivers the same batch after `context.timeout`
(default 0.5 s); any other error fails the task. Rewinds (`context.offset`) requested during `put` are
applied as soon as it returns: before any commit and before the next `put`, whose records of a rewound
partition start at the requested offset.

`consume` cannot be interrupted, so while nothing arrives the loop consumes in slices of `WAKE_CHECK_S`
and wakes early for `context.request_commit()` (which any thread may call), a stop or a pause.

Offsets: `current` is, per partition, the next offset after what `put` accepted. Every
`offset.flush.interval.ms`, on `context.request_commit()`, on revocation and on stop:
`task.pre_commit(current)` (default: `flush`) → commit the returned offsets synchronously (never
beyond what was consumed). If `pre_commit` raises, the consumer rewinds to the last committed offsets.
Failed records reported to the dead letter queue are flushed before every commit.

Conversion and transforms are the task's `RecordPipeline`'s. Columnar delivery: a task that overrides
`put_batches` gets, while the connector has no transforms, one `SinkRecordBatch` per run of consecutive
messages of a partition instead of SinkRecords (`sink_batches`), each column converted in one converter
call (with ByteArrayConverter, the consumed bytes as they are; for a task that `takes_value_columns`,
struct values as one list per field where the converter decodes them so): no transform or record
object stands between the consumed bytes and the task.

Pause (target state PAUSED/STOPPED): the consumer pauses every partition but keeps polling, so the
task keeps its group membership.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from typing import cast

from connect.api.batch import SinkRecordBatch
from connect.api.errors import ConnectError, RetriableError
from connect.api.records import SinkRecord, TopicPartition
from connect.api.task import SinkTask
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.kafka import KafkaMessage, SinkConsumer
from connect.runtime.metrics.groups import MetricGroup
from connect.runtime.metrics.task_metrics import SinkTaskMetrics
from connect.runtime.metrics.windows import Windows
from connect.runtime.pipeline.closing import close_quietly
from connect.runtime.pipeline.error_handling import Stage, all_of
from connect.runtime.pipeline.record_pipeline import RecordPipeline
from connect.runtime.tasks.contexts import WorkerErrantRecordReporter, WorkerSinkTaskContext
from connect.runtime.tasks.worker_task import WorkerTask

log = logging.getLogger(__name__)

# consume() blocks at most this long between two puts (an empty one when nothing came).
POLL_TIMEOUT_S = 0.5
# While waiting, consume() is called in slices this long: a commit request, stop or pause is seen within it.
WAKE_CHECK_S = 0.05
COMMIT_TIMEOUT_S = 30.0
# Redelivery back-off after a RetriableError from put when the task set no context.timeout.
DEFAULT_RETRY_BACKOFF_S = 0.5
# How long a metrics read waits for the end offsets of a paused task's partitions.
LAG_QUERY_TIMEOUT_S = 2.0
# A paused task's lag costs a broker round trip per partition: every open dashboard and every scrape would
# ask for it again, so one answer serves for this long.
PAUSED_LAGS_TTL_S = 2.0

Delivery = list[SinkRecord] | list[SinkRecordBatch]
"""What one `put` (SinkRecords) or `put_batches` (batches) call receives."""


class WorkerSinkTask(WorkerTask):
    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: SinkTask,
        task_config: Mapping[str, str],
        status: StatusListener,
        target_state: TargetState,
        *,
        consumer: SinkConsumer,
        topics: Sequence[str],
        topics_regex: str | None,
        pipeline: RecordPipeline[SinkRecord],
        offset_flush_interval_ms: int,
        on_topic_used: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        metrics_windows: Windows | None = None,
    ) -> None:
        """The errant record reporter (KIP-610) is there when failures go somewhere: a dead letter queue or
        `errors.log.enable`."""
        super().__init__(
            task_id,
            task,
            task_config,
            status,
            target_state,
            on_topic_used=on_topic_used,
            metrics_windows=metrics_windows,
        )
        self.sink_task = task
        self.consumer = consumer
        self.topics = list(topics)
        self.topics_regex = topics_regex
        self.pipeline = pipeline
        pipeline.errors.stop_on(self.stop_event)
        self.dead_letter_queue = pipeline.errors.dead_letter_queue
        reports_errant = self.dead_letter_queue is not None or pipeline.errors.settings.log_enable
        reporter = WorkerErrantRecordReporter(self._report_errant) if reports_errant else None
        self._wakeup = threading.Event()
        self.context = WorkerSinkTaskContext(
            task_config, consumer, reporter, on_commit_request=self._wakeup.set, plugin_metrics=self.plugin_metrics
        )
        self.flush_interval_s = offset_flush_interval_ms / 1000
        self._clock = clock
        self.current: dict[TopicPartition, int] = {}
        self._assigned: frozenset[TopicPartition] = frozenset()  # as the rebalance callbacks said
        self.last_committed: dict[TopicPartition, int] = {}
        # Columnar delivery: the task takes batches, and nothing converts or transforms the bytes.
        self.batched = type(task).put_batches is not SinkTask.put_batches and pipeline.transformer is None
        self.value_columns = self.batched and type(task).takes_value_columns
        self._retry_batch: Delivery | None = None
        self._retry_offsets: dict[TopicPartition, int] = {}
        self._retry_at = 0.0
        self._batch_messages: Sequence[KafkaMessage] = ()
        self._messages_by_position: dict[tuple[str, int, int], KafkaMessage] | None = None
        self._paused_all = False
        self._paused_lags: tuple[float, dict[tuple[str, int], int]] | None = None  # (monotonic time, lags)
        self._reported_paused = False
        self._partitions_closed = False
        self.records_consumed = 0
        self.records_put = 0
        self.commits = 0
        # Commits are synchronous here: none completes late, so none is skipped (Kafka's skip counts those).
        self.commits_skipped = 0
        self.metrics = SinkTaskMetrics(task_id, self, pipeline.errors.counters, self.metrics_windows, clock)

    # -- metrics (read on other threads) --------------------------------------------------------

    def metric_groups(self) -> list[MetricGroup]:
        return [*self.metrics.groups(), *self.plugin_metrics.groups()]

    def partition_count(self) -> int:
        return len(self._assigned)

    def active_records(self) -> int:
        """Records put but not committed yet (Kafka's sink-record-active-count)."""
        current, committed = dict(self.current), dict(self.last_committed)
        return sum(max(0, offset - committed[p]) for p, offset in current.items() if p in committed)

    def partition_lags(self) -> dict[tuple[str, int], int]:
        """Per partition, records in Kafka beyond the consumer's position. Paused partitions are not fetched,
        so their end offsets are asked of the brokers (at most once per `PAUSED_LAGS_TTL_S`); the others'
        come with every fetch."""
        paused = self._paused_all
        cached = self._paused_lags
        if paused and cached is not None and time.monotonic() - cached[0] < PAUSED_LAGS_TTL_S:
            return dict(cached[1])
        lags = self.consumer.lags(fresh=paused, timeout=LAG_QUERY_TIMEOUT_S)
        answer = {(p.topic, p.partition): lag for p, lag in lags.items()}
        self._paused_lags = (time.monotonic(), answer) if paused else None
        return dict(answer)

    # -- lifecycle ------------------------------------------------------------------------------

    def initialize_and_start(self) -> None:
        self.sink_task.initialize(self.context)
        self.sink_task.start(self.task_config)
        self.consumer.subscribe(self.topics, self.topics_regex, self)
        log.info("Sink task %s started, subscribed to %s", self.id, self.topics_regex or self.topics)

    def close(self, started: bool) -> None:
        try:
            if started:
                self._close_all_partitions()
                try:
                    self.sink_task.stop()
                except Exception:
                    log.exception("Sink task %s: stop() failed", self.id)
        finally:
            close_quietly([self.consumer], f"Sink task {self.id}")
            self.pipeline.close()

    def _close_all_partitions(self) -> None:
        assigned = self.consumer.assignment()
        self._partitions_closed = True  # the revoke callback inside consumer.close() must not redo this
        try:
            self.commit_offsets(closing=True)
        finally:
            if assigned:
                self.sink_task.close(assigned)

    # -- the loop -------------------------------------------------------------------------------

    def execute(self) -> None:
        consume = self._consume
        max_records = self.consumer.max_records
        clock = self._clock
        next_commit = clock() + self.flush_interval_s
        while not self.stopping:
            self._sync_pause()
            self._apply_rewinds()
            now = clock()
            timeout = max(0.0, min(POLL_TIMEOUT_S, next_commit - now))
            if self._retry_batch is not None:
                timeout = max(0.0, min(timeout, self._retry_at - now))
            messages = consume(max_records, timeout)
            if self.stopping:
                break
            if self._retry_batch is not None:
                if messages:
                    # Fetched before the pause took effect: they queue up behind the batch being retried.
                    records, offsets = self._prepare(messages)
                    self._retry_batch = cast(Delivery, [*self._retry_batch, *records])
                    self._retry_offsets.update(offsets)
                if clock() >= self._retry_at:
                    self._deliver(self._retry_batch, self._retry_offsets)
            elif messages:
                self.records_consumed += len(messages)
                records, offsets = self._prepare(messages)
                self._deliver(records, offsets)
            else:
                self._deliver([], {})
            if self.context.take_commit_request() or clock() >= next_commit:
                self.commit_offsets()
                next_commit = clock() + self.flush_interval_s

    def _consume(self, max_records: int, timeout: float) -> Sequence[KafkaMessage]:
        """`consume(max_records, timeout)` in slices, returning after the first that brings records or
        once `_wakeup` is set (a commit request, stop or target change, possibly from another thread)."""
        consume = self.consumer.consume
        wakeup = self._wakeup
        slices = max(1, math.ceil(timeout / WAKE_CHECK_S))
        for _ in range(slices):
            messages = consume(max_records, timeout / slices)
            if messages or wakeup.is_set():
                break
        # Whatever woke us is also recorded where the loop looks next (commit flag, stopping, target).
        wakeup.clear()
        return messages

    def on_target_change(self, target: TargetState) -> None:
        self._wakeup.set()

    def on_stop_requested(self) -> None:
        self._wakeup.set()

    def _sync_pause(self) -> None:
        paused = self.target_state is not TargetState.STARTED
        if paused != self._reported_paused:
            self._reported_paused = paused
            if paused:
                self.status.on_task_pause(self.id)
            else:
                self.status.on_task_resume(self.id)
        should_pause_all = paused or self._retry_batch is not None
        if should_pause_all != self._paused_all:
            self._paused_all = should_pause_all
            self.consumer.set_pause_all(should_pause_all)

    def _apply_rewinds(self) -> None:
        if not self.context.offsets:
            return
        assigned = self.consumer.assignment()
        requested = self.context.offsets
        # Rewinds of partitions not assigned (yet) wait for their assignment (on_partitions_assigned).
        for partition in [p for p in requested if p in assigned]:
            offset = requested.pop(partition)
            self.consumer.seek(partition, offset)
            self.current[partition] = offset
            self._drop_retry_records({partition})

    # -- conversion -----------------------------------------------------------------------------

    def _prepare(self, messages: Sequence[KafkaMessage]) -> tuple[Delivery, dict[TopicPartition, int]]:
        """What `put` or `put_batches` gets for these messages, and the next offset per partition."""
        return self._batches(messages) if self.batched else self._convert(messages)

    def _batches(self, messages: Sequence[KafkaMessage]) -> tuple[list[SinkRecordBatch], dict[TopicPartition, int]]:
        self._batch_messages = messages
        self._messages_by_position = None
        return self.pipeline.to_sink_batches(
            messages, self._topics_seen, self._topic_used, value_columns=self.value_columns
        )

    def _convert(self, messages: Sequence[KafkaMessage]) -> tuple[list[SinkRecord], dict[TopicPartition, int]]:
        """SinkRecords (after transforms) and the next offset per partition, skipped records included."""
        self._batch_messages = messages
        self._messages_by_position = None
        records, offsets = self.pipeline.to_sink_records(messages, self._topics_seen, self._topic_used)
        return self.pipeline.transform(records, self._message_for), offsets

    # -- delivery -------------------------------------------------------------------------------

    def _deliver(self, records: Delivery, offsets: dict[TopicPartition, int]) -> None:
        started = self._clock()
        try:
            count = self._put(records)
        except RetriableError as exc:
            log.warning("Sink task %s: put failed, redelivering the batch: %s", self.id, exc)
            self._retry_batch = records
            self._retry_offsets = offsets
            # context.timeout applies once, as in Kafka Connect. Without one Kafka waits for the next
            # commit (up to offset.flush.interval.ms); a short fixed back-off recovers sooner.
            timeout_ms, self.context.timeout_ms = self.context.timeout_ms, -1
            self._retry_at = self._clock() + (timeout_ms / 1000 if timeout_ms >= 0 else DEFAULT_RETRY_BACKOFF_S)
            self._apply_rewinds()  # drops the rewound partitions' records from the batch to redeliver
            return
        except Exception as exc:
            raise ConnectError(f"Exiting WorkerSinkTask due to unrecoverable exception: {exc!r}") from exc
        self.metrics.record_put(started, count)
        self.records_put += count
        if offsets:
            self.current.update(offsets)
        self._retry_batch = None
        self._retry_offsets = {}
        self._apply_rewinds()

    def _put(self, delivery: Delivery) -> int:
        """Hands `delivery` to the task; the number of records it held."""
        if self.batched:
            batches = cast(list[SinkRecordBatch], delivery)
            self.sink_task.put_batches(batches)
            return sum(len(batch) for batch in batches)
        records = cast(list[SinkRecord], delivery)
        self.sink_task.put(records)
        return len(records)

    def _drop_retry_records(self, partitions: set[TopicPartition]) -> None:
        if self._retry_batch is None:
            return
        kept = [item for item in self._retry_batch if item.topic_partition not in partitions]
        self._retry_batch = cast(Delivery, kept)
        for partition in partitions:
            self._retry_offsets.pop(partition, None)

    # -- commits --------------------------------------------------------------------------------

    def commit_offsets(self, *, closing: bool = False, partitions: set[TopicPartition] | None = None) -> bool:
        """pre_commit and commit; only `partitions` if given. False if nothing could be committed."""
        started = self._clock()
        ok = self._commit_offsets(closing, partitions)
        self.metrics.record_commit(started, ok)
        return ok

    def _commit_offsets(self, closing: bool, partitions: set[TopicPartition] | None) -> bool:
        current = self.current if partitions is None else {p: o for p, o in self.current.items() if p in partitions}
        if self.dead_letter_queue is not None:
            try:
                self.dead_letter_queue.flush(COMMIT_TIMEOUT_S)
            except ConnectError:
                log.exception("Sink task %s: not committing offsets: the dead letter queue is behind", self.id)
                return False
        try:
            proposed = self.sink_task.pre_commit(dict(current))
        except Exception:
            log.exception("Sink task %s: pre_commit failed; rewinding to the last committed offsets", self.id)
            if not closing:
                self._rewind_to_committed(set(current))
            return False
        to_commit: dict[TopicPartition, int] = {}
        assigned = self.consumer.assignment()
        for partition, offset in proposed.items():
            consumed = current.get(partition)
            if partition not in assigned:
                continue  # committing for another member's partition would move its position
            if consumed is None or offset > consumed:
                log.debug(
                    "Sink task %s: ignoring pre_commit offset %s for %s (not consumed)", self.id, offset, partition
                )
                continue
            if self.last_committed.get(partition) != offset:
                to_commit[partition] = offset
        if not to_commit:
            return True
        try:
            self.consumer.commit(to_commit, COMMIT_TIMEOUT_S)
        except ConnectError as exc:
            log.warning("Sink task %s: offset commit failed: %s", self.id, exc)
            return False
        self.last_committed.update(to_commit)
        self.commits += 1
        return True

    def _rewind_to_committed(self, partitions: set[TopicPartition]) -> None:
        unknown = [p for p in partitions if p not in self.last_committed]
        committed = dict(self.last_committed)
        if unknown:
            try:
                committed.update(self.consumer.committed(unknown, COMMIT_TIMEOUT_S))
            except ConnectError as exc:
                log.warning("Sink task %s: could not read committed offsets to rewind: %s", self.id, exc)
        assigned = self.consumer.assignment()
        for partition in partitions:
            offset = committed.get(partition)
            if offset is None or partition not in assigned:
                continue
            self.consumer.seek(partition, offset)
            self.current[partition] = offset
        self._drop_retry_records(partitions)

    # -- RebalanceListener (inside consume(), on this thread) -----------------------------------

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        if self._partitions_closed:
            return {}
        log.info("Sink task %s: assigned %s", self.id, partitions)
        self._assigned = self._assigned | set(partitions)
        self.sink_task.open(partitions)
        requested = self.context.offsets
        start = {p: requested.pop(p) for p in partitions if p in requested}
        for partition in partitions:
            # Until something is consumed, the position is the committed offset: nothing to commit.
            self.current.pop(partition, None)
            self.last_committed.pop(partition, None)
        self.current.update(start)
        return start

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        if self._partitions_closed:
            return
        log.info("Sink task %s: revoked %s", self.id, partitions)
        revoked = set(partitions)
        try:
            if not self.failed:
                self.commit_offsets(closing=True, partitions=revoked)
        finally:
            self.sink_task.close(partitions)
            self._forget(revoked)

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None:
        if self._partitions_closed:
            return
        log.warning("Sink task %s: lost %s (no commit: they may belong to another task already)", self.id, partitions)
        try:
            self.sink_task.close(partitions)
        finally:
            self._forget(set(partitions))

    def _forget(self, partitions: set[TopicPartition]) -> None:
        self._assigned = self._assigned - partitions
        for partition in partitions:
            self.current.pop(partition, None)
            self.last_committed.pop(partition, None)
        self._drop_retry_records(partitions)

    # -- errant records -------------------------------------------------------------------------

    def _report_errant(self, record: SinkRecord, error: BaseException) -> Future[None]:
        # A record the task kept from an earlier batch is rebuilt with the converters.
        consumed = self._message_for(record) or self.pipeline.to_message(record)
        errors = self.pipeline.errors
        errors.counters.total_record_failures += 1
        futures = errors.report_failure(Stage.TASK_PUT, type(self.sink_task), error, consumed=consumed, record=record)
        return all_of(futures)

    def _message_for(self, record: SinkRecord) -> KafkaMessage | None:
        if self._messages_by_position is None:
            self._messages_by_position = {
                (m.topic() or "", m.partition() or 0, m.offset() or 0): m for m in self._batch_messages
            }
        return self._messages_by_position.get(
            (record.original_topic, record.original_kafka_partition, record.original_kafka_offset)
        )
