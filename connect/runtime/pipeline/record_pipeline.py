"""`RecordPipeline`: a task's converters, transformation chain and error handler, and the record
conversion between Kafka's bytes and Connect records that they make up, in both directions.

Kafka keeps these parts as separate fields of each `WorkerTask` subclass (`keyConverter`,
`valueConverter`, `headerConverter`, `TransformationChain`, `RetryWithToleranceOperator`); here they
are one immutable value, built by the task builders (`task_builders`), used only on the task's thread
and closed once, by the task, with `close`.

Sinks: `to_sink_records` turns consumed messages into SinkRecords (one `try` around the batch; a
message that raises is redone alone through the error handler, stage by stage), then `transform` runs
the chain; `to_sink_batches` turns them into columns for a task that takes batches, when there is no
chain. Sources: `transform` runs the chain over a poll batch; the source task's produce loop reads
the converters directly (it interleaves conversion and `produce`), and `to_produced` is its slow path for
one record under the error policy. A transformation that raises on a batch is redone record by record
(`transform_one`), so the error policy applies to the record that failed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic

from connect.api.batch import RecordListBatch, SinkRecordBatch
from connect.api.converter import Converter, HeaderConverter
from connect.api.data import Schema
from connect.api.records import Header, SinkRecord, SourceRecord, TopicPartition
from connect.api.transform import R
from connect.converters.simple import passthrough_schema
from connect.runtime.kafka import KafkaMessage
from connect.runtime.pipeline.closing import close_quietly
from connect.runtime.pipeline.error_handling import SKIP, ErrorHandler, RebuiltMessage, Stage
from connect.runtime.pipeline.produced import KafkaHeaders, Produced
from connect.runtime.pipeline.record_transformer import RecordTransformer
from connect.runtime.pipeline.sink_batches import TIMESTAMP_TYPES, split_by_partition

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecordPipeline(Generic[R]):
    key_converter: Converter
    value_converter: Converter
    header_converter: HeaderConverter
    transformer: RecordTransformer[R] | None
    errors: ErrorHandler

    def close(self) -> None:
        """Close the chain and the converters (failures logged), then the error handler's reporters."""
        parts = (self.transformer, self.key_converter, self.value_converter, self.header_converter)
        close_quietly(parts, f"Task {self.errors.task}")
        self.errors.close()

    # -- transformations (both directions) ------------------------------------------------------

    def transform(self, records: list[R], consumed_for: Callable[[R], KafkaMessage | None] | None = None) -> list[R]:
        """The chain over a batch; if it raises, record by record under the error policy (dropped ones left
        out). `consumed_for` finds a sink record's consumed message, for the error reporters."""
        transformer = self.transformer
        if transformer is None or not records:
            return records
        try:
            return transformer.apply_batch(records)
        except Exception:
            result = []
            for record in records:
                transformed = self.transform_one(record, None if consumed_for is None else consumed_for(record))
                if transformed is not None:
                    result.append(transformed)
            return result

    def transform_one(self, record: R, consumed: KafkaMessage | None = None) -> R | None:
        """One record through the chain under the error policy; None if dropped or skipped."""
        transformer = self.transformer
        if transformer is None:
            return record
        out = self.errors.execute(
            Stage.TRANSFORMATION,
            type(transformer),
            lambda: transformer.apply_batch([record]),
            consumed=consumed,
            record=record,
        )
        if out is SKIP or not out:
            return None
        return out[0]

    # -- sources: Connect records to bytes ------------------------------------------------------

    def to_produced(self, record: SourceRecord) -> Produced | None:
        """One source record converted stage by stage under the error policy; None if skipped."""
        errors = self.errors
        topic = record.topic
        headers: KafkaHeaders | None = None
        if record.headers:
            header_from = self.header_converter.from_connect_header
            converted = errors.execute(
                Stage.HEADER_CONVERTER,
                type(self.header_converter),
                lambda: [(h.key, header_from(topic, h.key, h.schema, h.value)) for h in record.headers],
                record=record,
            )
            if converted is SKIP:
                return None
            headers = converted
        key = errors.execute(
            Stage.KEY_CONVERTER,
            type(self.key_converter),
            lambda: self.key_converter.from_connect_data(topic, record.key_schema, record.key, record.headers),
            record=record,
        )
        if key is SKIP:
            return None
        value = errors.execute(
            Stage.VALUE_CONVERTER,
            type(self.value_converter),
            lambda: self.value_converter.from_connect_data(topic, record.value_schema, record.value, record.headers),
            record=record,
        )
        if value is SKIP:
            return None
        return Produced.of(topic, value, key, record.kafka_partition, record.timestamp, headers)

    # -- sinks: bytes to Connect records --------------------------------------------------------

    @property
    def passes_bytes_through(self) -> bool:
        """No transformation, and key and value converters that hand the consumed bytes on as they are."""
        return (
            self.transformer is None
            and passthrough_schema(self.key_converter) is not None
            and passthrough_schema(self.value_converter) is not None
        )

    @property
    def raw_key_schema(self) -> Schema | None:
        """The schema of keys handed on as bytes, or None when the key converter parses them."""
        return passthrough_schema(self.key_converter)

    @property
    def raw_value_schema(self) -> Schema | None:
        """The schema of values handed on as bytes, or None when the value converter parses them."""
        return passthrough_schema(self.value_converter)

    def to_sink_records(
        self, messages: Sequence[KafkaMessage], topics_seen: set[str], on_new_topic: Callable[[str], None]
    ) -> tuple[list[SinkRecord], dict[TopicPartition, int]]:
        """SinkRecords (before transforms) and the next offset per partition, skipped records included.

        `on_new_topic` is called for the first message of each topic not in `topics_seen`."""
        records: list[SinkRecord] = []
        append = records.append
        offsets: dict[TopicPartition, int] = {}
        key_to = self.key_converter.to_connect_data
        value_to = self.value_converter.to_connect_data
        raw_key_schema = self.raw_key_schema
        raw_value_schema = self.raw_value_schema
        header_to = self.header_converter.to_connect_header
        headers_of = _connect_headers
        timestamp_types = TIMESTAMP_TYPES
        last_topic: str | None = None
        last_partition = -1
        tp = TopicPartition("", -1)
        index = 0
        count = len(messages)
        while index < count:
            try:
                while index < count:
                    message = messages[index]
                    topic: str = message.topic()  # type: ignore[assignment]
                    partition: int = message.partition()  # type: ignore[assignment]
                    offset: int = message.offset()  # type: ignore[assignment]
                    if partition != last_partition or topic != last_topic:
                        if topic not in topics_seen:
                            on_new_topic(topic)
                        last_topic, last_partition = topic, partition
                        tp = TopicPartition(topic, partition)
                    offsets[tp] = offset + 1
                    raw_headers = message.headers()
                    headers = headers_of(topic, raw_headers, header_to) if raw_headers else ()
                    if raw_key_schema is None:
                        key = key_to(topic, message.key(), headers)
                        key_schema, key_value = key.schema, key.value
                    else:
                        key_schema, key_value = raw_key_schema, message.key()
                    if raw_value_schema is None:
                        value = value_to(topic, message.value(), headers)
                        value_schema, value_value = value.schema, value.value
                    else:
                        value_schema, value_value = raw_value_schema, message.value()
                    timestamp_type, timestamp = message.timestamp()
                    append(
                        SinkRecord(
                            topic,
                            partition,
                            key_schema,
                            key_value,
                            value_schema,
                            value_value,
                            offset,
                            timestamp if timestamp_type else None,
                            timestamp_types[timestamp_type],
                            headers,
                            topic,
                            partition,
                            offset,
                        )
                    )
                    index += 1
            except Exception:
                record = self.to_sink_record(messages[index])
                if record is not None:
                    append(record)
                index += 1
        return records, offsets

    def to_sink_batches(
        self,
        messages: Sequence[KafkaMessage],
        topics_seen: set[str],
        on_new_topic: Callable[[str], None],
        *,
        value_columns: bool = False,
    ) -> tuple[list[SinkRecordBatch], dict[TopicPartition, int]]:
        """Batches for `put_batches` (no transforms: the caller checks) and the next offset per partition.

        A partition's run of messages becomes one batch with its columns converted whole (values as
        `StructColumns` where the converter can, with `value_columns`); if that fails
        (a value raises, or values differ in schema) its records are converted one by one under the error
        policy, as `to_sink_records` does, and handed on as batches of records."""
        raw_key_schema = self.raw_key_schema
        raw_value_schema = self.raw_value_schema
        key_converter = None if raw_key_schema is not None else self.key_converter
        value_converter = None if raw_value_schema is not None else self.value_converter
        delivery: list[SinkRecordBatch] = []
        offsets: dict[TopicPartition, int] = {}
        for batch in split_by_partition(messages, raw_key_schema, raw_value_schema, self.connect_headers):
            tp = batch.topic_partition
            if tp.topic not in topics_seen:
                on_new_topic(tp.topic)
            offsets[tp] = batch.messages[-1].offset() + 1  # type: ignore[operator]
            try:
                whole = batch.convert(key_converter, value_converter, value_columns=value_columns)
            except Exception:
                whole = False
            if whole:
                delivery.append(batch)
            else:
                records, _ = self.to_sink_records(batch.messages, topics_seen, on_new_topic)
                delivery.extend(RecordListBatch.of_records(records))
        return delivery, offsets

    def to_sink_record(self, message: KafkaMessage) -> SinkRecord | None:
        """One consumed message converted stage by stage under the error policy; None if skipped."""
        errors = self.errors
        topic = message.topic() or ""
        raw_headers = message.headers()
        headers: tuple[Header, ...] = ()
        if raw_headers:
            header_to = self.header_converter.to_connect_header
            converted = errors.execute(
                Stage.HEADER_CONVERTER,
                type(self.header_converter),
                lambda: _connect_headers(topic, raw_headers, header_to),
                consumed=message,
            )
            if converted is SKIP:
                return None
            headers = converted
        key = errors.execute(
            Stage.KEY_CONVERTER,
            type(self.key_converter),
            lambda: self.key_converter.to_connect_data(topic, message.key(), headers),
            consumed=message,
        )
        if key is SKIP:
            return None
        value = errors.execute(
            Stage.VALUE_CONVERTER,
            type(self.value_converter),
            lambda: self.value_converter.to_connect_data(topic, message.value(), headers),
            consumed=message,
        )
        if value is SKIP:
            return None
        timestamp_type, timestamp = message.timestamp()
        return SinkRecord(
            topic,
            message.partition() or 0,
            key.schema,
            key.value,
            value.schema,
            value.value,
            message.offset() or 0,
            timestamp if timestamp_type else None,
            TIMESTAMP_TYPES[timestamp_type],
            headers,
        )

    def connect_headers(self, topic: str, raw: Any) -> tuple[Header, ...]:
        """A consumed message's headers (a list of pairs or a mapping) as Connect headers."""
        return _connect_headers(topic, raw, self.header_converter.to_connect_header)

    def to_message(self, record: SinkRecord) -> KafkaMessage:
        """A sink record back as the message it came from, rebuilt with the converters (for error reports of
        records the task kept from an earlier batch)."""
        topic = record.original_topic
        header_from = self.header_converter.from_connect_header
        headers = [(h.key, header_from(topic, h.key, h.schema, h.value)) for h in record.headers]
        return RebuiltMessage(
            topic,
            record.original_kafka_partition,
            record.original_kafka_offset,
            self.key_converter.from_connect_data(topic, record.key_schema, record.key, record.headers),
            self.value_converter.from_connect_data(topic, record.value_schema, record.value, record.headers),
            headers,
            record.timestamp,
        )


def _connect_headers(topic: str, raw: Any, header_to: Callable[[str, str, bytes | None], Any]) -> tuple[Header, ...]:
    items = raw.items() if isinstance(raw, Mapping) else raw
    result = []
    for key, value in items:
        converted = header_to(topic, key, value.encode() if isinstance(value, str) else value)
        result.append(Header(key, converted.value, converted.schema))
    return tuple(result)
