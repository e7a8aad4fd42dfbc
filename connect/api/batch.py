"""Consumed records column by column, for sinks that write columns (`SinkTask.put_batches`).

A sink that turns records into columns (Parquet, Arrow, a database's bulk load) needs the values of a
partition as one list, not a `SinkRecord` object per message: building those objects, and reading
their fields back into lists, cost a Parquet sink more of its task thread than its JSON parser.
A `SinkRecordBatch` holds consecutive records of one topic partition as lists; a `SinkRecord` is built
only for a record that needs one (an error report, a partitioner that reads headers).
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence
from typing import Any, overload

from connect.api.data import Schema
from connect.api.records import SinkRecord, TopicPartition


class SinkRecordBatch(Sequence[SinkRecord], abc.ABC):
    """Consecutive records of one topic partition, in offset order, as the consumer returned them.

    The base holds the columns (sequences in record order, set by `__init__`; an implementation passes
    them, or reads one on first use); it only leaves `record` to implement. Indexing and iterating give
    `SinkRecord`s, built on demand one by one; use them for the few records that need one, not for the
    whole batch. Headers are converted when a record is built. A batch from the runtime refers to the
    consumed messages: keep what you need of it, not the batch, past the call.
    """

    topic_partition: TopicPartition
    """The partition every record was consumed from."""
    offsets: Sequence[int]
    """Each record's Kafka offset, increasing."""
    timestamps: Sequence[int | None]
    """Each record's timestamp in epoch ms; None when Kafka has none."""
    keys: Sequence[Any]
    """Each key as the key converter passed it through: bytes, None for a null (ByteArrayConverter, the
    only converter the runtime delivers batches for)."""
    values: Sequence[Any]
    """Each value, likewise: bytes, None for a null (a tombstone)."""
    key_schema: Schema | None
    """The key schema every record of the batch would carry."""
    value_schema: Schema | None
    """The value schema every record of the batch would carry."""

    def __init__(
        self,
        topic_partition: TopicPartition,
        offsets: Sequence[int],
        timestamps: Sequence[int | None],
        keys: Sequence[Any],
        values: Sequence[Any],
        key_schema: Schema | None,
        value_schema: Schema | None,
    ) -> None:
        self.topic_partition = topic_partition
        self.offsets = offsets
        self.timestamps = timestamps
        self.keys = keys
        self.values = values
        self.key_schema = key_schema
        self.value_schema = value_schema

    @abc.abstractmethod
    def record(self, index: int) -> SinkRecord:
        """The record at `index` (0 <= index < len), built now."""

    @overload
    def __getitem__(self, index: int) -> SinkRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SinkRecord]: ...

    def __getitem__(self, index: int | slice) -> SinkRecord | list[SinkRecord]:
        if isinstance(index, slice):
            return [self.record(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"record {index} of a batch of {len(self)}")
        return self.record(index)

    def __iter__(self) -> Iterator[SinkRecord]:
        return (self.record(i) for i in range(len(self)))

    def __len__(self) -> int:
        return len(self.offsets)

    def __repr__(self) -> str:
        tp = self.topic_partition
        offsets = self.offsets
        span = f"{offsets[0]}..{offsets[-1]}" if offsets else "empty"
        return f"{type(self).__name__}({tp.topic}-{tp.partition}, offsets {span})"


class RecordListBatch(SinkRecordBatch):
    """A batch over existing `SinkRecord`s of one topic partition: for tests, and for code that has records
    and wants to hand them to `put_batches`. Columns are read from the records once."""

    def __init__(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            raise ValueError("a batch holds at least one record")
        first = records[0]
        topic, partition = tp = first.topic_partition
        if any(r.original_topic != topic or r.original_kafka_partition != partition for r in records):
            raise ValueError("a batch holds records of one topic partition")
        self._records = list(records)
        super().__init__(
            tp,
            [r.original_kafka_offset for r in records],
            [r.timestamp for r in records],
            [r.key for r in records],
            [r.value for r in records],
            first.key_schema,
            first.value_schema,
        )

    def record(self, index: int) -> SinkRecord:
        return self._records[index]
