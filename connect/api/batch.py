"""Records column by column: consumed ones for sinks that write columns (`SinkTask.put_batches`), and
polled ones for sources that read many records at once (`SourceTask.poll_batches`).

A sink that turns records into columns (Parquet, Arrow, a database's bulk load) needs the values of a
partition as one list, not a `SinkRecord` object per message: building those objects, and reading
their fields back into lists, cost a Parquet sink more of its task thread than its JSON parser.
A `SinkRecordBatch` holds consecutive records of one topic partition as lists; a `SinkRecord` is built
only for a record that needs one (an error report, a partitioner that reads headers).

A `SourceRecordBatch` is the other direction: a source task hands the runtime a run of records of one
topic and one source partition as lists, and the runtime converts each column with one converter call
(`Converter.from_connect_data_batch`) and tracks one source offset per batch, the last one, since that
is all Kafka Connect ever commits for a source partition. `SourceRecord`s are built only where a record
is needed: a transformation chain, a task that overrides `commit_record`, a record that fails.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar, overload

from connect.api.data import Schema, StructColumns
from connect.api.records import Headers, SinkRecord, SourceOffset, SourcePartition, SourceRecord, TopicPartition

_R = TypeVar("_R", SinkRecord, SourceRecord)


class _RecordColumns(Sequence[_R], abc.ABC):
    """Records kept as columns, built one at a time when indexed: what both batch types share."""

    @abc.abstractmethod
    def record(self, index: int) -> _R:
        """The record at `index` (0 <= index < len), built now."""

    @overload
    def __getitem__(self, index: int) -> _R: ...

    @overload
    def __getitem__(self, index: slice) -> list[_R]: ...

    def __getitem__(self, index: int | slice) -> _R | list[_R]:
        if isinstance(index, slice):
            return [self.record(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"record {index} of a batch of {len(self)}")
        return self.record(index)

    def __iter__(self) -> Iterator[_R]:
        return (self.record(i) for i in range(len(self)))


class SinkRecordBatch(_RecordColumns[SinkRecord]):
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
    """Each key as the key converter made it (bytes from ByteArrayConverter, str from StringConverter, ...),
    None for a null."""
    values: Sequence[Any]
    """Each value, likewise; None for a null (a tombstone)."""
    key_schema: Schema | None
    """The key schema every record of the batch would carry."""
    value_schema: Schema | None
    """The value schema every record of the batch would carry."""
    value_columns: StructColumns | None = None
    """The values as one list per field, when the task takes them (`SinkTask.takes_value_columns`) and the
    value converter decoded the batch that way (`Converter.to_connect_columns_batch`); None otherwise.
    When set, `values` (the same values as Structs) is built only if read."""

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

    @classmethod
    def of_records(cls, records: Sequence[SinkRecord]) -> list[SinkRecordBatch]:
        """`records` as batches: grouped by (original) topic partition, each partition's order kept, and
        cut where the key or value schema changes (a batch has one of each). A sink that writes batches
        implements `put` with this when the runtime hands it records (a connector with transforms)."""
        groups: dict[tuple[str, int], list[SinkRecord]] = {}
        last_key: tuple[str, int] | None = None
        current: list[SinkRecord] = []
        for record in records:
            key = (record.original_topic, record.original_kafka_partition)
            if key != last_key:
                current = groups.setdefault(key, [])
                last_key = key
            current.append(record)
        batches: list[SinkRecordBatch] = []
        for group in groups.values():
            start = 0
            for index in range(1, len(group) + 1):
                if index == len(group) or not _same_schemas(group[start], group[index]):
                    batches.append(cls(group[start:index]))
                    start = index
        return batches


class FieldOffsets(Sequence[dict[str, Any]]):
    """A column of source offsets `{field: number}`, one for each of `numbers`, each made when indexed: what a
    source task hands `SourceRecordBatch.source_offsets` instead of a dict per record, since the runtime reads
    only the last one unless it builds records. Immutable."""

    __slots__ = ("field", "numbers")

    def __init__(self, field: str, numbers: Sequence[int]) -> None:
        self.field = field
        self.numbers = numbers

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | Sequence[dict[str, Any]]:
        if isinstance(index, slice):
            return FieldOffsets(self.field, self.numbers[index])
        return {self.field: self.numbers[index]}

    def __len__(self) -> int:
        return len(self.numbers)


class SourceRecordBatch(_RecordColumns[SourceRecord]):
    """Consecutive records a source task read, as columns: one topic, one source partition, one schema each
    for keys and values. What `SourceTask.poll_batches` returns a list of.

    Columns are sequences in record order, all as long as `values`; None for an optional column means
    "None for every record" (no key, no timestamp, no headers). `source_offsets` holds each record's
    offset, but the runtime reads only the last one unless it builds records (see the module docstring),
    so a task may pass a lazy sequence that computes an offset when indexed. Indexing and iterating give
    `SourceRecord`s, built on demand. The runtime reads a batch only during the `poll_batches` call's
    iteration of the loop and the records it builds from it: do not change the lists afterwards.
    """

    __slots__ = (
        "_built_at",
        "_records",
        "headers",
        "kafka_partition",
        "key_schema",
        "keys",
        "source_offsets",
        "source_partition",
        "timestamp_at_send",
        "timestamps",
        "topic",
        "value_schema",
        "values",
    )

    topic: str
    """The topic every record goes to."""
    values: Sequence[Any]
    """Each value, as the value converter takes it."""
    value_schema: Schema | None
    """The schema of every value (None: schemaless)."""
    keys: Sequence[Any] | None
    """Each key, or None: no record has a key."""
    key_schema: Schema | None
    """The schema of every key (None: schemaless)."""
    source_partition: SourcePartition | None
    """Where every record came from (None: the source keeps no offsets)."""
    source_offsets: Sequence[SourceOffset | None] | None
    """Each record's source offset (None: none has one); the last is the one stored."""
    kafka_partition: int | None
    """The Kafka partition of every record; None lets the producer's partitioner choose (by key)."""
    timestamps: Sequence[int | None] | None
    """Each record's timestamp in epoch ms, or None: none has one."""
    headers: Sequence[Headers] | None
    """Each record's headers, or None: no record has any."""
    timestamp_at_send: bool
    """True (with `timestamps` None): each record is stamped with the time it is sent, as Kafka's producer
    stamps a record that has no timestamp (CreateTime), and a `SourceRecord` built from the batch carries
    the time it was built. For a task that would stamp every record with the current time, as Kafka's
    FileStreamSource does: the runtime can then hand the producer the values alone, in one call."""

    def __init__(
        self,
        topic: str,
        values: Sequence[Any],
        value_schema: Schema | None = None,
        *,
        keys: Sequence[Any] | None = None,
        key_schema: Schema | None = None,
        source_partition: SourcePartition | None = None,
        source_offsets: Sequence[SourceOffset | None] | None = None,
        kafka_partition: int | None = None,
        timestamps: Sequence[int | None] | None = None,
        headers: Sequence[Headers] | None = None,
        timestamp_at_send: bool = False,
    ) -> None:
        count = len(values)
        if (
            (keys is not None and len(keys) != count)
            or (source_offsets is not None and len(source_offsets) != count)
            or (timestamps is not None and len(timestamps) != count)
            or (headers is not None and len(headers) != count)
        ):
            _refuse_lengths(count, keys=keys, source_offsets=source_offsets, timestamps=timestamps, headers=headers)
        self.topic = topic
        self.values = values
        self.value_schema = value_schema
        self.keys = keys
        self.key_schema = key_schema
        self.source_partition = source_partition
        self.source_offsets = source_offsets
        self.kafka_partition = kafka_partition
        self.timestamps = timestamps
        self.headers = headers
        if timestamp_at_send and timestamps is not None:
            raise ValueError("timestamp_at_send is for a batch without timestamps")
        self.timestamp_at_send = timestamp_at_send
        self._built_at: int | None = None
        self._records: Sequence[SourceRecord] | None = None

    @classmethod
    def of_records(cls, records: Sequence[SourceRecord]) -> list[SourceRecordBatch]:
        """`records` as batches, one per run of records alike in topic, source partition, Kafka partition and
        schemas (what `SourceTask.poll_batches` does by default with what `poll` returned). Indexing such a
        batch gives the records themselves, so a record named to a `TransactionContext` stays that record."""
        batches: list[SourceRecordBatch] = []
        start = 0
        for end in range(1, len(records) + 1):
            if end < len(records) and _same_batch(records[start], records[end]):
                continue
            run = records[start:end]
            first = run[0]
            batch = cls(
                first.topic,
                [r.value for r in run],
                first.value_schema,
                keys=[r.key for r in run],
                key_schema=first.key_schema,
                source_partition=first.source_partition,
                source_offsets=[r.source_offset for r in run],
                kafka_partition=first.kafka_partition,
                timestamps=[r.timestamp for r in run],
                headers=[r.headers for r in run] if any(r.headers for r in run) else None,
            )
            batch._records = run
            batches.append(batch)
            start = end
        return batches

    @property
    def last_source_offset(self) -> SourceOffset | None:
        """The offset the runtime stores for the batch's source partition once Kafka has all its records."""
        offsets = self.source_offsets
        return offsets[-1] if offsets else None

    def record(self, index: int) -> SourceRecord:
        """The record at `index` (0 <= index < len), built now (or the one given to `of_records`)."""
        if self._records is not None:
            return self._records[index]
        keys, offsets, timestamps, headers = self.keys, self.source_offsets, self.timestamps, self.headers
        if timestamps is None and self.timestamp_at_send:
            if self._built_at is None:
                self._built_at = time.time_ns() // 1_000_000
            timestamp: int | None = self._built_at
        else:
            timestamp = None if timestamps is None else timestamps[index]
        return SourceRecord(
            self.source_partition,
            None if offsets is None else offsets[index],
            self.topic,
            self.kafka_partition,
            self.key_schema,
            None if keys is None else keys[index],
            self.value_schema,
            self.values[index],
            timestamp,
            () if headers is None else headers[index],
        )

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.topic}, {len(self.values)} records, from {self.source_partition})"


def _refuse_lengths(count: int, **columns: Sequence[Any] | None) -> None:
    for name, column in columns.items():
        if column is not None and len(column) != count:
            raise ValueError(f"{name} has {len(column)} entries for {count} values")


def _same_batch(first: SourceRecord, other: SourceRecord) -> bool:
    return (
        other.topic == first.topic
        and other.kafka_partition == first.kafka_partition
        and other.key_schema is first.key_schema
        and other.value_schema is first.value_schema
        and (other.source_partition is first.source_partition or other.source_partition == first.source_partition)
    )


def _same_schemas(first: SinkRecord, other: SinkRecord) -> bool:
    # Identity first: a converter usually hands out one schema object for a run of records.
    return (first.key_schema is other.key_schema or first.key_schema == other.key_schema) and (
        first.value_schema is other.value_schema or first.value_schema == other.value_schema
    )
