"""Consumed messages as `SinkRecordBatch`es: the columnar delivery of `WorkerSinkTask` (task thread).

Used when the task takes batches (`put_batches`) and the connector has no transforms. With
ByteArrayConverter a batch's columns are the consumer's bytes as they are, read from the messages
when the task first asks for them (a sink that does not store keys never reads them). Other converters
convert a whole column in one call (`Converter.to_connect_data_batch`) before the task sees it; a
column that cannot be converted whole (a value fails, or values differ in schema) is converted record
by record under the error policy instead, and handed on as batches of records (`RecordListBatch.of_records`).
A `SinkRecord` is built only for a record the task indexes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from connect.api.batch import SinkRecordBatch
from connect.api.converter import Converter
from connect.api.data import Schema
from connect.api.records import Headers, SinkRecord, TimestampType, TopicPartition
from connect.runtime.kafka import KafkaMessage

TIMESTAMP_TYPES = (TimestampType.NO_TIMESTAMP_TYPE, TimestampType.CREATE_TIME, TimestampType.LOG_APPEND_TIME)
"""A consumed message's timestamp type (librdkafka's 0, 1, 2) as Connect's TimestampType."""

HeaderConversion = Callable[[str, Any], Headers]
"""(topic, the message's raw headers) -> converted headers."""

_UNREAD: Any = object()


class MessageBatch(SinkRecordBatch):
    """Consecutive consumed messages of one topic partition.

    Its columns are read from the messages on first use (cached properties: plain attributes from then
    on), so it sets the rest itself instead of passing every column to the base's `__init__`.
    """

    def __init__(
        self,
        topic_partition: TopicPartition,
        messages: Sequence[KafkaMessage],
        key_schema: Schema | None,
        value_schema: Schema | None,
        convert_headers: HeaderConversion,
    ) -> None:
        self.topic_partition = topic_partition
        self.messages = messages
        self.key_schema = key_schema
        self.value_schema = value_schema
        self._convert_headers = convert_headers

    # The ignores: a cached property overrides the base's attribute, which readers never assign.
    @cached_property
    def offsets(self) -> Sequence[int]:  # type: ignore[override]
        return [m.offset() for m in self.messages]  # type: ignore[misc]

    @cached_property
    def timestamps(self) -> Sequence[int | None]:  # type: ignore[override]
        return [ts if kind else None for kind, ts in [m.timestamp() for m in self.messages]]

    @cached_property
    def keys(self) -> Sequence[Any]:  # type: ignore[override]
        return [m.key() for m in self.messages]

    @cached_property
    def values(self) -> Sequence[Any]:  # type: ignore[override]
        columns = self.value_columns
        if columns is not None:
            return columns.structs()
        return [m.value() for m in self.messages]

    def __len__(self) -> int:
        return len(self.messages)

    @cached_property
    def headers(self) -> Sequence[Headers] | None:
        """Each record's converted headers, or None when no message has any."""
        raw = [m.headers() for m in self.messages]
        if not any(raw):
            return None
        topic = self.topic_partition.topic
        return [self._convert_headers(topic, h) if h else () for h in raw]

    def record(self, index: int) -> SinkRecord:
        message = self.messages[index]
        topic, partition = self.topic_partition
        offset: int = message.offset()  # type: ignore[assignment]
        kind, timestamp = message.timestamp()
        # A converted column is an attribute already; a raw one is read from this message alone.
        columns = self.__dict__
        keys, values, headers = columns.get("keys"), columns.get("values"), columns.get("headers", _UNREAD)
        if headers is _UNREAD:
            raw_headers = message.headers()
            record_headers = self._convert_headers(topic, raw_headers) if raw_headers else ()
        else:
            record_headers = () if headers is None else headers[index]
        return SinkRecord(
            topic,
            partition,
            self.key_schema,
            message.key() if keys is None else keys[index],
            self.value_schema,
            self._value_at(message, index) if values is None else values[index],
            offset,
            timestamp if kind else None,
            TIMESTAMP_TYPES[kind],
            record_headers,
            topic,
            partition,
            offset,
        )

    def _value_at(self, message: KafkaMessage, index: int) -> Any:
        columns = self.value_columns
        return message.value() if columns is None else columns.struct(index)

    def convert(
        self, key_converter: Converter | None, value_converter: Converter | None, *, value_columns: bool = False
    ) -> bool:
        """Converts the key and value columns in place, each in one call (a None converter: that column
        stays bytes); with `value_columns`, values as `StructColumns` where the value converter can.
        False, and the batch unchanged, when a column's values do not share one schema; raises as the
        converter does."""
        topic = self.topic_partition.topic
        headers = self.headers
        keys = None if key_converter is None else key_converter.to_connect_data_batch(topic, self.keys, headers)
        if keys is None and key_converter is not None:
            return False
        columns = values = None
        if value_converter is not None:
            raw_values = self.values
            if value_columns:
                columns = value_converter.to_connect_columns_batch(topic, raw_values, headers)
            if columns is None:
                values = value_converter.to_connect_data_batch(topic, raw_values, headers)
                if values is None:
                    return False
        if keys is not None:
            self.key_schema, self.keys = keys.schema, keys.values
        if columns is not None:
            self.value_schema, self.value_columns = columns.schema, columns
            del self.values  # the raw bytes' cached column: from here on `values` are the columns' Structs
        elif values is not None:
            self.value_schema, self.values = values.schema, values.values
        return True


def split_by_partition(
    messages: Sequence[KafkaMessage],
    key_schema: Schema | None,
    value_schema: Schema | None,
    convert_headers: HeaderConversion,
) -> list[MessageBatch]:
    """One batch per run of consecutive messages of one topic partition, in the order consumed."""
    count = len(messages)
    if not count:
        return []
    partitions = [m.partition() for m in messages]
    topics = [m.topic() for m in messages]
    if partitions.count(partitions[0]) == count and topics.count(topics[0]) == count:
        starts = [0]  # the usual case: a poll's worth from one partition's fetch
    else:
        changes = range(1, count)
        starts = [0, *(i for i in changes if partitions[i] != partitions[i - 1] or topics[i] != topics[i - 1])]
    ends = [*starts[1:], count]
    return [
        MessageBatch(
            TopicPartition(topics[start] or "", partitions[start] or 0),
            messages[start:end],
            key_schema,
            value_schema,
            convert_headers,
        )
        for start, end in zip(starts, ends, strict=True)
    ]
