"""`RecordSender`: converts a source task's records (or columns) and hands them to its producer, on the
task thread. It owns the task's producer.

Three produce paths, fastest first:

- `produce_columns` with a producer that takes columns (`kafka.BatchProducer`, given to tasks that send
  columns): a batch's converted values (and keys) go to librdkafka in one call. The first batch with
  timestamps or headers, which that producer would take one record at a time at several times the cost,
  switches the task, once, to `record_producer`'s producer (`switch_to_record_producer`).
- `produce_columns` otherwise: converted columns produced record by record, without a `SourceRecord` each.
- `produce_records`: records converted and produced in one loop.

Hot path: one `try` around a whole batch, methods bound to locals, positional arguments to `produce`
(keywords were measurably slower in this loop: docs/architecture.md, "Hot paths"), no per-record logging.
A record that raises is redone alone through the `ErrorHandler` (`send_one_carefully`: retries,
tolerance, error log); the loop resumes after it. A full librdkafka queue is waited out by serving the
producer's reports (`wait_for_room`), as Kafka Connect blocks (`max.block.ms` is infinite there).

Each path returns nothing and counts what it sent in `records_sent`; a record skipped under the error
policy is acknowledged in its `SubmittedBatch` at once, so its offset may be committed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Sequence
from itertools import chain, repeat
from typing import Any

from connect.api.batch import SourceRecordBatch
from connect.api.errors import ConnectError
from connect.api.records import SourceRecord
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import ColumnNotBytesError, ProducerLike
from connect.runtime.offsets import SubmittedBatch
from connect.runtime.pipeline.closing import Closeable, close_quietly
from connect.runtime.pipeline.error_handling import SKIP, Stage
from connect.runtime.pipeline.produced import Produced
from connect.runtime.pipeline.record_pipeline import RecordPipeline
from connect.runtime.pipeline.source_batches import convert_columns
from connect.runtime.tasks.source_deliveries import DeliveryCallback, SourceDeliveries
from connect.runtime.tasks.topic_creation import TopicCreationError, TopicCreationInterrupted

log = logging.getLogger(__name__)

# How long produce waits for room when librdkafka's queue is full, per attempt. Only failures are reported,
# so `poll` finds no event to return early for and waits this long: at the 1.7 million 100 B records a
# second a task reaches, librdkafka's default 100,000-message queue is 60 ms of records, and waits of
# 100 ms left the producer idle between them (docs/performance.md, "Sources").
QUEUE_FULL_WAIT_S = 0.002


class RecordSender:
    def __init__(
        self,
        task_id: ConnectorTaskId,
        producer: ProducerLike,
        pipeline: RecordPipeline[SourceRecord],
        deliveries: SourceDeliveries,
        *,
        topics_seen: Collection[str],
        topic_used: Callable[[str], None],
        stopping: Callable[[], bool],
        flush_timeout_s: float,
        record_producer: Callable[[], ProducerLike] | None = None,
    ) -> None:
        """`topics_seen` and `topic_used`: the task's topic tracking (`topic_used` is called for a topic not
        in `topics_seen`, and may block while the topic is created). `record_producer`: with a producer
        that takes whole columns, makes the producer to switch to for records with timestamps or headers."""
        self.task_id = task_id
        self.producer = producer
        # A producer that takes a batch's values in one call (kafka.BatchProducer), else None.
        self._produce_values: Callable[..., list[tuple[int, Any]]] | None = getattr(producer, "produce_values", None)
        self.record_producer = record_producer
        self.pipeline = pipeline
        self._deliveries = deliveries
        self._topics_seen = topics_seen
        self._topic_used = topic_used
        self._stopping = stopping
        self._flush_timeout_s = flush_timeout_s
        self.records_sent = 0

    # -- records --------------------------------------------------------------------------------

    def produce_records(
        self, records: list[SourceRecord], batch: SubmittedBatch, on_delivery: DeliveryCallback
    ) -> None:
        """Convert and produce transformed records, all tracked by `batch`."""
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
                        produced = Produced.of(topic, value_bytes, key_bytes, partition, timestamp, kafka_headers)
                        self.produce_when_room(produced, on_delivery)
                    index += 1
            except (TopicCreationError, TopicCreationInterrupted):
                raise  # the record cannot be sent at all: no point in the slow path
            except Exception:
                # Only the failing record takes the slow path; the loop resumes after it.
                if not self.send_one_carefully(records[index], batch, on_delivery):
                    skipped += 1
                index += 1
        self.records_sent += count - skipped

    # -- columns --------------------------------------------------------------------------------

    def produce_columns(
        self,
        batch: SourceRecordBatch,
        submitted: SubmittedBatch,
        on_delivery: DeliveryCallback,
        run_ends: tuple[DeliveryCallback, DeliveryCallback] | None = None,
    ) -> None:
        """Convert and produce one `SourceRecordBatch` column by column, tracked by `submitted`.
        `run_ends`: for a batch of one Kafka partition sent by a gap-less producer, the callbacks of its first
        and last records (`SourceDeliveries.run_ends_callbacks`), the others then being sent without one;
        `on_delivery` is every record's otherwise."""
        topic = batch.topic
        if topic not in self._topics_seen:
            self._topic_used(topic)
        try:
            keys, values, timestamps, headers = convert_columns(self.pipeline, batch)
        except Exception:
            # A value the converters refuse: the batch goes record by record, so that the error policy
            # applies to that record alone, as on the record path.
            self.produce_records(batch[:], submitted, on_delivery)
            return
        partition = -1 if batch.kafka_partition is None else batch.kafka_partition
        rows = zip(values, keys, timestamps, headers, strict=False)  # keys etc. may be endless
        if run_ends is not None:
            # A run's first and last records report; the others go without a callback.
            first, last = run_ends
            self._produce_rows(
                batch, submitted, partition, rows, chain((first,), repeat(None, len(values) - 2), (last,))
            )
            return
        plain = batch.timestamps is None and batch.headers is None
        if self._produce_values is not None and not plain:
            self.switch_to_record_producer()
        if self._produce_values is not None and plain:
            key_column = None if batch.keys is None and batch.key_schema is None else keys
            if self._produce_value_column(batch, partition, values, key_column, on_delivery, submitted):  # type: ignore[arg-type]
                return
        self._produce_rows(batch, submitted, partition, rows, repeat(on_delivery))

    def _produce_rows(
        self,
        batch: SourceRecordBatch,
        submitted: SubmittedBatch,
        partition: int,
        rows: Iterator[tuple[Any, Any, Any, Any]],
        callbacks: Iterator[DeliveryCallback | None],
    ) -> None:
        """Produce `batch`'s converted rows, each with the next of `callbacks`. A record that raises is redone
        alone under the error policy (`send_one_carefully`); the loop resumes after it."""
        topic = batch.topic
        produce = self.producer.produce
        numbered = enumerate(zip(rows, callbacks, strict=False))  # callbacks may be endless
        index, callback, skipped = -1, None, 0
        while True:
            try:
                # One iterator across the retries: after a record that raised, the loop resumes past it.
                for index, ((value_bytes, key_bytes, timestamp, kafka_headers), callback) in numbered:  # noqa: B007
                    try:
                        # Positional, as in produce_records (docs/architecture.md, "Hot paths").
                        produce(topic, value_bytes, key_bytes, partition, callback, None, timestamp, kafka_headers)
                    except BufferError:
                        produced = Produced.of(topic, value_bytes, key_bytes, partition, timestamp, kafka_headers)
                        self.produce_when_room(produced, callback)
                break
            except Exception:
                if not self.send_one_carefully(batch.record(index), submitted, callback):
                    skipped += 1
        self.records_sent += len(batch.values) - skipped

    def _produce_value_column(
        self,
        batch: SourceRecordBatch,
        partition: int,
        values: Sequence[bytes],
        keys: Sequence[bytes] | None,
        on_delivery: DeliveryCallback,
        submitted: SubmittedBatch,
    ) -> bool:
        """Hand the converted values (and keys) to the producer in one call; False, with nothing sent,
        when a value or key is not bytes (a tombstone, a null key)."""
        assert self._produce_values is not None
        try:
            refused = self._produce_values(batch.topic, partition, values, keys, on_delivery, self.wait_for_room)
        except ColumnNotBytesError:
            return False
        skipped = 0
        for index, _error in refused:
            # Refused when enqueued (too large, unknown partition): the error policy decides, as on the
            # record path, though later records of the batch are already on their way.
            if not self.send_one_carefully(batch.record(index), submitted, on_delivery):
                skipped += 1
        self.records_sent += len(values) - skipped
        return True

    def switch_to_record_producer(self) -> None:
        """Deliver everything sent so far (so that order holds), then produce through `record_producer`."""
        if self.record_producer is None:
            return
        log.info("Source task %s sends records with timestamps or headers: producing them one by one", self.task_id)
        while self.producer.flush(self._flush_timeout_s) > 0:
            if self._stopping():
                raise ConnectError(f"Source task {self.task_id} stopped before its records were delivered")
        self.producer.poll(0)  # the last failure reports
        if self._deliveries.failures:
            self._deliveries.collect(type(self.producer), raise_fatal=True)
        batch_producer = self.producer
        self.producer = self.record_producer()
        self._produce_values = None
        if isinstance(batch_producer, Closeable):
            close_quietly([batch_producer], f"Source task {self.task_id}")

    # -- one record, and a full queue ------------------------------------------------------------

    def send_one_carefully(
        self, record: SourceRecord, batch: SubmittedBatch, on_delivery: DeliveryCallback | None
    ) -> bool:
        """Convert and produce one record under the error policy; False (and acked) if it was skipped."""
        produced = self.pipeline.to_produced(record)
        if produced is None:
            batch.ack()
            return False
        self._topic_used(produced.topic)
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

    def wait_for_room(self) -> None:
        """librdkafka's queue is full: serving reports frees room."""
        self.producer.poll(QUEUE_FULL_WAIT_S)
        if self._deliveries.failures:
            self._deliveries.collect(type(self.producer), raise_fatal=True)

    def produce_when_room(self, produced: Produced, on_delivery: DeliveryCallback | None) -> None:
        """Produce once librdkafka's queue has room, however long that takes."""
        while True:
            self.wait_for_room()
            try:
                self._produce(produced, on_delivery)
                return
            except BufferError:
                # Kafka Connect blocks here too (max.block.ms is infinite): a stop that cannot wait
                # this out ends with the task cancelled after task.shutdown.graceful.timeout.ms.
                continue

    def _produce_blocking(self, produced: Produced, on_delivery: DeliveryCallback | None) -> None:
        try:
            self._produce(produced, on_delivery)
        except BufferError:
            self.produce_when_room(produced, on_delivery)

    def _produce(self, produced: Produced, on_delivery: DeliveryCallback | None) -> None:
        topic, value, key, partition, timestamp, headers = produced
        self.producer.produce(
            topic, value, key, partition, on_delivery=on_delivery, timestamp=timestamp, headers=headers
        )
