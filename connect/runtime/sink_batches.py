"""Consumed messages as `SinkRecordBatch`es: the columnar delivery of `WorkerSinkTask` (task thread).

Used only when the key and value converters pass bytes through unchanged (ByteArrayConverter) and the
connector has no transforms, so a batch's columns are the consumer's bytes as they are and no record
needs converting before the task sees it. A column is read from the messages when the task first
asks for it (a sink that does not store keys never reads them); a `SinkRecord` is built only for a
record the task indexes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from connect.api.batch import SinkRecordBatch
from connect.api.data import Schema
from connect.api.records import Headers, SinkRecord, TimestampType, TopicPartition
from connect.runtime.kafka_clients import KafkaMessage

TIMESTAMP_TYPES = (TimestampType.NO_TIMESTAMP_TYPE, TimestampType.CREATE_TIME, TimestampType.LOG_APPEND_TIME)
"""A consumed message's timestamp type (librdkafka's 0, 1, 2) as Connect's TimestampType."""

HeaderConversion = Callable[[str, Any], Headers]
"""(topic, the message's raw headers) -> converted headers."""


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
        return [m.value() for m in self.messages]

    def __len__(self) -> int:
        return len(self.messages)

    def record(self, index: int) -> SinkRecord:
        message = self.messages[index]
        topic, partition = self.topic_partition
        offset: int = message.offset()  # type: ignore[assignment]
        raw_headers = message.headers()
        kind, timestamp = message.timestamp()
        return SinkRecord(
            topic,
            partition,
            self.key_schema,
            message.key(),
            self.value_schema,
            message.value(),
            offset,
            timestamp if kind else None,
            TIMESTAMP_TYPES[kind],
            self._convert_headers(topic, raw_headers) if raw_headers else (),
            topic,
            partition,
            offset,
        )


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
