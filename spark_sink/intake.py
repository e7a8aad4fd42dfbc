"""From a batch of one topic partition's records to rows in its open file, closing files as rotation says.

A batch is a `SinkRecordBatch`: the runtime's columns of consumed bytes or of converted values
(`put_batches`), or SinkRecords wrapped as one (`put`). Rows are picked from it by position, and a
`SinkRecord` is built only for a row that needs one (an errant record report, a partitioner that reads
`PartitionInput.records`). Struct values the converter decoded field by field (`value_columns`, from
AvroConverter) become the table one field at a time, each field's list picked by position and converted
to Arrow whole: no Struct is built for them (`values` is never read).

Per batch: drop records already published (after a rewind the consumer may still deliver some),
skip or reject null values, decode values to Arrow segments (values that cannot be decoded go to the
errant record reporter when there is one, and are then skipped like tombstones), settle schema changes
with `schema.compatibility`, add Kafka metadata columns, ask the partitioner for each row's directory,
then append in pieces cut by `flush.size`, `rotate.interval.ms` and `partitioner.max.open.files`.
With `offer`, raw bytes batches may first be gathered across polls (`spark_sink.gathering`) and
added as one. Task thread only.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, overload

import numpy as np
import pyarrow as pa

from connect.api import DataError, SinkRecord, SinkRecordBatch, TopicPartition
from spark_sink.buffers import Chunk, ClosedBatch, PartitionBuffer
from spark_sink.config import SinkSettings
from spark_sink.decoding import Segment, ValueDecoder
from spark_sink.decoding.metadata import add_metadata, key_type
from spark_sink.gathering import GatheredBatch, may_gather
from spark_sink.partitioners import Partitioner, PartitionInput, TimestampExtractor
from spark_sink.rotation import interval_cut, next_scheduled_rotation, rows_until_full
from spark_sink.schema_compat import Change, decide, project
from spark_sink.timezones import LocalClock


@dataclass
class PartitionState:
    """The task thread's view of one assigned partition."""

    tp: TopicPartition
    buffer: PartitionBuffer
    next_expected: int | None = None
    rewinding: bool = False
    """A rewind was requested during the current call: drop this partition's records until it returns."""
    key_type: pa.DataType | None = None
    closed: list[ClosedBatch] = field(default_factory=list)
    gathered: GatheredBatch | None = None
    """Polls not decoded yet: they come before anything else of this partition."""

    @property
    def buffered_bytes(self) -> int:
        return self.buffer.nbytes + (self.gathered.nbytes if self.gathered is not None else 0)


ReportErrant = Callable[[SinkRecord, DataError], None]
"""Hands a record that cannot be decoded to the runtime's error handling (log, dead letter queue);
raises when the connector does not tolerate errors."""


class RecordIntake:
    def __init__(
        self,
        settings: SinkSettings,
        partitioner: Partitioner,
        rotation_extractor: TimestampExtractor | None,
        clock: LocalClock,
        report_errant: ReportErrant | None = None,
    ) -> None:
        self.settings = settings
        self.partitioner = partitioner
        self.rotation_extractor = rotation_extractor
        self.clock = clock
        self.decoder = ValueDecoder(settings.value_format)
        self.report_errant = report_errant
        self._track_labels = settings.max_open_files > 0
        plugins: list[Partitioner | TimestampExtractor] = [partitioner]
        if rotation_extractor is not None:
            plugins.append(rotation_extractor)
        self.gathers = report_errant is None and not any(plugin.reads_records for plugin in plugins)
        """Whether `offer` may gather: nothing configured asks for a record (a gathered batch has none)."""

    def offer(self, state: PartitionState, batch: SinkRecordBatch, now_ms: int) -> None:
        """`add`, or the batch gathered with the partition's previous ones, to be added with them when
        enough came (`spark_sink.gathering`)."""
        if not self.gathers or state.rewinding or not may_gather(batch):
            self.add_gathered(state)
            self.add(state, batch, now_ms)
            return
        gathered = state.gathered
        if gathered is not None and not gathered.accepts(batch):
            self.add_gathered(state)
            gathered = None
        if gathered is None:
            state.gathered = gathered = GatheredBatch(batch, now_ms, self.settings.store_kafka_metadata)
        else:
            gathered.extend(batch)
        if gathered.full(rows_until_full(state.buffer.consumed, self.settings.flush_size)):
            self.add_gathered(state)

    def add_gathered(self, state: PartitionState) -> None:
        """Adds what `offer` gathered for the partition, as of the wall clock of its first poll."""
        gathered, state.gathered = state.gathered, None
        if gathered is not None:
            self.add(state, gathered, gathered.first_seen_ms, may_hold_nulls=False)

    def add(self, state: PartitionState, batch: SinkRecordBatch, now_ms: int, may_hold_nulls: bool = True) -> None:
        """Buffers `batch` (records of `state.tp` in offset order); closed batches go to `state.closed`.
        `may_hold_nulls` False skips looking for tombstones (a gathered batch has none)."""
        offsets = batch.offsets
        if state.rewinding or not offsets:
            return
        first = 0
        if state.next_expected is not None and offsets[0] < state.next_expected:
            first = bisect_left(offsets, state.next_expected)  # after a rewind: already published
            if first == len(offsets):
                return
        state.next_expected = offsets[-1] + 1
        positions: Sequence[int] = range(first, len(offsets))
        present: Sequence[int] = positions
        if may_hold_nulls and batch.value_columns is None:  # value columns hold structs only, no null
            values = batch.values
            if None in take(values, positions):
                present = [i for i in positions if values[i] is not None]
                if self.settings.null_values == "fail":
                    null_at = next(i for i in positions if values[i] is None)
                    raise DataError(
                        f"Null value at {state.tp.topic}-{state.tp.partition} offset {offsets[null_at]}; "
                        "set behavior.on.null.values=ignore to skip tombstones"
                    )
        buffer = state.buffer
        hint = buffer.value_schema if buffer.schema_from_json else None
        segments, decoded = self._decode(batch, present, hint)
        start = 0
        for segment in segments:
            self._add_segment(state, segment, batch, decoded[start : start + segment.rows], now_ms)
            start += segment.rows
        if len(decoded) != len(positions):
            # Tombstones and reported records count as written: the buffer covers them, but not those
            # before an earlier cut.
            closed_end = state.closed[-1].end_offset if state.closed else -1
            kept = set(decoded)
            skipped = [offsets[i] for i in positions if i not in kept and offsets[i] > closed_end]
            if skipped:
                if buffer.empty:
                    self.on_open(buffer, now_ms)
                buffer.cover_skipped(skipped[0], offsets[-1], len(skipped))
            if buffer.consumed >= self.settings.flush_size:
                state.closed.append(buffer.close("flush.size"))

    def _decode(
        self, batch: SinkRecordBatch, positions: Sequence[int], hint: pa.Schema | None
    ) -> tuple[list[Segment], Sequence[int]]:
        """Segments of the rows at `positions` and the positions they hold: all of them, or, when some
        cannot be decoded and an errant record reporter takes them, the others (each bad one reported,
        found one by one)."""
        decode = self._rows_decoder(batch, hint)
        try:
            return decode(positions), positions
        except DataError:
            if self.report_errant is None:
                raise
        good: list[int] = []
        for i in positions:
            try:
                decode([i])
            except DataError as error:
                self.report_errant(batch.record(i), error)
            else:
                good.append(i)
        if not good:
            return [], good
        return decode(good), good

    def _rows_decoder(self, batch: SinkRecordBatch, hint: pa.Schema | None) -> Callable[[Sequence[int]], list[Segment]]:
        """What decodes the batch's rows at some positions. Values that came as columns
        (`SinkRecordBatch.value_columns`) are converted a field at a time, the rows picked from each
        field's list: `values`, which would build a Struct per record, is never read for them."""
        columns = batch.value_columns
        if columns is not None:
            schema, by_field = columns.schema, columns.columns

            def from_columns(rows: Sequence[int]) -> list[Segment]:
                # The lists themselves, or slices (rows are consecutive but after a rewind): picked before
                # converting, so records already published are neither converted nor able to fail the batch.
                picked = {name: take(column, rows) for name, column in by_field.items()}
                return [self.decoder.decode_columns(picked, schema)]

            return from_columns
        values, value_schema = batch.values, batch.value_schema

        def from_values(rows: Sequence[int]) -> list[Segment]:
            return self.decoder.decode(take(values, rows), value_schema, hint)

        return from_values

    def on_open(self, buffer: PartitionBuffer, now_ms: int) -> None:
        buffer.opened_wall_ms = now_ms
        if self.settings.rotate_schedule_interval_ms > 0:
            buffer.scheduled_rotation_ms = next_scheduled_rotation(
                now_ms, self.settings.rotate_schedule_interval_ms, self.clock
            )

    def _add_segment(
        self, state: PartitionState, segment: Segment, batch: SinkRecordBatch, positions: Sequence[int], now_ms: int
    ) -> None:
        buffer = state.buffer
        table = segment.table
        change = decide(
            self.settings.schema_compatibility,
            buffer.value_schema,
            buffer.schema_version,
            table.schema,
            segment.version,
        )
        if change is Change.ROTATE and not buffer.empty:
            state.closed.append(buffer.close("schema"))
        if change is Change.PROJECT and buffer.value_schema is not None:
            table = project(table, buffer.value_schema)
        else:
            buffer.value_schema, buffer.schema_version = table.schema, segment.version
            buffer.schema_from_json = segment.json
        offsets = offsets_array(take(batch.offsets, positions))
        timestamps = pa.array(take(batch.timestamps, positions), pa.int64())
        records = RecordView(batch, positions)
        rows = PartitionInput(state.tp.topic, state.tp.partition, table, offsets, timestamps, records, now_ms)
        labels = self.partitioner.encode_partitions(rows)
        if isinstance(labels, pa.ChunkedArray):
            labels = labels.combine_chunks()
        if not isinstance(labels, str) and len(labels) != table.num_rows:
            raise DataError(
                f"Partitioner {type(self.partitioner).__name__} gave {len(labels)} labels for {table.num_rows} rows"
            )
        times = self.rotation_extractor.extract(rows) if self.rotation_extractor is not None else None
        if self.settings.store_kafka_metadata:
            keys = take(batch.keys, positions)
            if state.key_type is None:
                state.key_type = key_type(keys)
            table = add_metadata(table, state.tp, offsets, timestamps, keys, state.key_type)
        self._append(state, table, offsets, labels, times, now_ms)

    def _append(
        self,
        state: PartitionState,
        table: pa.Table,
        offsets: pa.Array,
        labels: str | pa.Array,
        times: pa.Array | None,
        now_ms: int,
    ) -> None:
        buffer = state.buffer
        settings = self.settings
        start, total = 0, table.num_rows
        while start < total:
            if buffer.empty:
                self.on_open(buffer, now_ms)
            room = rows_until_full(buffer.consumed, settings.flush_size)
            take = min(total - start, room)
            reason = "flush.size" if take == room else None
            if times is not None:
                cut = interval_cut(times.slice(start, take), buffer.base_time_ms, settings.rotate_interval_ms)
                if cut is not None:
                    take, reason = cut, "rotate.interval.ms"
            if take:
                if times is not None and buffer.base_time_ms is None:
                    buffer.base_time_ms = times[start].as_py()
                piece = labels if isinstance(labels, str) else labels.slice(start, take)
                chunk = Chunk(table.slice(start, take), offsets.slice(start, take), piece)
                buffer.append(chunk, self._track_labels)
                start += take
            if reason is None and self._track_labels and len(buffer.labels) >= settings.max_open_files:
                reason = "partitioner.max.open.files"
            if reason is not None and not buffer.empty:
                state.closed.append(buffer.close(reason))


_T = TypeVar("_T")


def offsets_array(offsets: Sequence[int]) -> pa.Array:
    """Increasing offsets as an int64 array; without gaps (the usual case) built in C, not from the list."""
    count = len(offsets)
    if count and offsets[-1] - offsets[0] == count - 1:
        return pa.array(np.arange(offsets[0], offsets[0] + count, dtype=np.int64))
    return pa.array(offsets, pa.int64())


def take(column: Sequence[_T], positions: Sequence[int]) -> Sequence[_T]:
    """The items of `column` at `positions`: the column itself or a slice when they are consecutive (the
    usual case)."""
    if isinstance(positions, range) and positions.step == 1:
        if positions.start == 0 and positions.stop == len(column):
            return column
        return column[positions.start : positions.stop]
    return [column[i] for i in positions]


class RecordView(Sequence[SinkRecord]):
    """The batch's records at `positions`, each built when first asked for (`PartitionInput.records`)."""

    def __init__(self, batch: SinkRecordBatch, positions: Sequence[int]) -> None:
        self._batch = batch
        self._positions = positions

    def __len__(self) -> int:
        return len(self._positions)

    @overload
    def __getitem__(self, index: int) -> SinkRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SinkRecord]: ...

    def __getitem__(self, index: int | slice) -> SinkRecord | list[SinkRecord]:
        if isinstance(index, slice):
            return [self._batch.record(i) for i in self._positions[index]]
        return self._batch.record(self._positions[index])
