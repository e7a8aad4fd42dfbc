"""From a batch of one topic partition's records to rows in its open file, closing files as rotation says.

Per batch: drop records already published (after a rewind the consumer may still deliver some),
skip or reject null values, decode values to Arrow segments (values that cannot be decoded go to the
errant record reporter when there is one, and are then skipped like tombstones), settle schema changes
with `schema.compatibility`, add Kafka metadata columns, ask the partitioner for each row's directory,
then append in pieces cut by `flush.size`, `rotate.interval.ms` and `partitioner.max.open.files`.
Task thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from connect.api import DataError, SinkRecord, TopicPartition
from spark_sink.buffers import Chunk, ClosedBatch, PartitionBuffer
from spark_sink.config import SinkSettings
from spark_sink.decoding import Segment, ValueDecoder
from spark_sink.decoding.metadata import add_metadata, key_type
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

    def add(self, state: PartitionState, records: Sequence[SinkRecord], now_ms: int) -> None:
        """Buffers `records` (all of `state.tp`, in offset order); closed batches go to `state.closed`."""
        if state.rewinding or not records:
            return
        if state.next_expected is not None and records[0].original_kafka_offset < state.next_expected:
            records = [r for r in records if r.original_kafka_offset >= state.next_expected]
            if not records:
                return
        state.next_expected = records[-1].original_kafka_offset + 1
        rows = [r for r in records if r.value is not None]
        if len(rows) != len(records):
            first_null = next(r for r in records if r.value is None)
            if self.settings.null_values == "fail":
                raise DataError(
                    f"Null value at {state.tp.topic}-{state.tp.partition} offset {first_null.original_kafka_offset}; "
                    "set behavior.on.null.values=ignore to skip tombstones"
                )
        buffer = state.buffer
        hint = buffer.value_schema if buffer.schema_from_json else None
        segments, decoded = self._decode(rows, hint)
        start = 0
        for segment in segments:
            self._add_segment(state, segment, decoded[start : start + segment.rows], now_ms)
            start += segment.rows
        if len(decoded) != len(records):
            # Tombstones and reported records count as written: the buffer covers them, but not those
            # before an earlier cut.
            closed_end = state.closed[-1].end_offset if state.closed else -1
            kept = {id(r) for r in decoded}
            skipped = [
                r.original_kafka_offset for r in records if id(r) not in kept and r.original_kafka_offset > closed_end
            ]
            if skipped:
                if buffer.empty:
                    self.on_open(buffer, now_ms)
                buffer.cover_skipped(skipped[0], records[-1].original_kafka_offset, len(skipped))
            if buffer.consumed >= self.settings.flush_size:
                state.closed.append(buffer.close("flush.size"))

    def _decode(self, rows: list[SinkRecord], hint: pa.Schema | None) -> tuple[list[Segment], list[SinkRecord]]:
        """Segments of `rows` and the rows they hold: all of them, or, when some cannot be decoded and
        an errant record reporter takes them, the others (each bad one reported, found one by one)."""
        try:
            return self.decoder.decode([r.value for r in rows], [r.value_schema for r in rows], hint), rows
        except DataError:
            if self.report_errant is None:
                raise
        good: list[SinkRecord] = []
        for record in rows:
            try:
                self.decoder.decode([record.value], [record.value_schema], hint)
            except DataError as error:
                self.report_errant(record, error)
            else:
                good.append(record)
        if not good:
            return [], good
        return self.decoder.decode([r.value for r in good], [r.value_schema for r in good], hint), good

    def on_open(self, buffer: PartitionBuffer, now_ms: int) -> None:
        buffer.opened_wall_ms = now_ms
        if self.settings.rotate_schedule_interval_ms > 0:
            buffer.scheduled_rotation_ms = next_scheduled_rotation(
                now_ms, self.settings.rotate_schedule_interval_ms, self.clock
            )

    def _add_segment(self, state: PartitionState, segment: Segment, records: Sequence[SinkRecord], now_ms: int) -> None:
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
        offsets = pa.array([r.original_kafka_offset for r in records], pa.int64())
        timestamps = pa.array([r.timestamp for r in records], pa.int64())
        batch = PartitionInput(state.tp.topic, state.tp.partition, table, offsets, timestamps, records, now_ms)
        labels = self.partitioner.encode_partitions(batch)
        if isinstance(labels, pa.ChunkedArray):
            labels = labels.combine_chunks()
        if not isinstance(labels, str) and len(labels) != table.num_rows:
            raise DataError(
                f"Partitioner {type(self.partitioner).__name__} gave {len(labels)} labels for {table.num_rows} rows"
            )
        times = self.rotation_extractor.extract(batch) if self.rotation_extractor is not None else None
        if self.settings.store_kafka_metadata:
            keys = [r.key for r in records]
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
