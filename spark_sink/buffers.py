"""Per topic partition: the rows of the open file, until rotation closes them into a `ClosedBatch`.

Rows are kept as the Arrow chunks they were decoded into (no copies), with their Kafka offsets and
the encoded partition of each row; grouping by encoded partition happens on the writer thread when
the batch is written. `consumed` counts every record the buffer covers, rows and skipped tombstones,
so the manifest's offset range has no holes. Task thread only; a `ClosedBatch` is immutable and goes
to the writer thread.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from connect.api import TopicPartition
from spark_sink.partitioners import Labels


@dataclass(frozen=True)
class Chunk:
    """Rows of one decode, in offset order: the table to write, their offsets, their encoded partitions."""

    table: pa.Table
    offsets: pa.Array
    labels: Labels


@dataclass(frozen=True)
class ClosedBatch:
    """A closed file set of one topic partition: offsets `start_offset..end_offset` inclusive."""

    tp: TopicPartition
    generation: int
    start_offset: int
    end_offset: int
    chunks: tuple[Chunk, ...]
    rows: int
    nbytes: int
    reason: str


class PartitionBuffer:
    """The open file set of one topic partition."""

    def __init__(self, tp: TopicPartition, generation: int) -> None:
        self.tp = tp
        self.generation = generation
        self.value_schema: pa.Schema | None = None
        self.schema_version: int | None = None
        self.schema_from_json = False
        self._reset()

    def _reset(self) -> None:
        self.chunks: list[Chunk] = []
        self.rows = 0
        self.consumed = 0
        self.nbytes = 0
        self.start_offset: int | None = None
        self.end_offset: int | None = None
        self.base_time_ms: int | None = None
        self.opened_wall_ms: int | None = None
        self.scheduled_rotation_ms: int | None = None
        self.labels: set[str] = set()

    @property
    def empty(self) -> bool:
        return self.consumed == 0

    @property
    def table_schema(self) -> pa.Schema | None:
        return self.chunks[0].table.schema if self.chunks else None

    def append(self, chunk: Chunk, track_labels: bool) -> None:
        rows = chunk.table.num_rows
        if rows == 0:
            return
        self.chunks.append(chunk)
        self.rows += rows
        self.consumed += rows
        self.nbytes += chunk.table.get_total_buffer_size()
        self._cover(chunk.offsets[0].as_py(), chunk.offsets[rows - 1].as_py())
        if track_labels:
            if isinstance(chunk.labels, str):
                self.labels.add(chunk.labels)
            else:
                self.labels.update(pc.unique(chunk.labels).to_pylist())

    def cover_skipped(self, first_offset: int, last_offset: int, count: int) -> None:
        """Records that were consumed but give no row (tombstones skipped by configuration)."""
        if count:
            self.consumed += count
            self._cover(first_offset, last_offset)

    def _cover(self, first: int, last: int) -> None:
        if self.start_offset is None:
            self.start_offset = first
        self.end_offset = last if self.end_offset is None else max(self.end_offset, last)

    def close(self, reason: str) -> ClosedBatch:
        if self.start_offset is None or self.end_offset is None:
            raise ValueError(f"closing an empty buffer of {self.tp}")
        batch = ClosedBatch(
            tp=self.tp,
            generation=self.generation,
            start_offset=self.start_offset,
            end_offset=self.end_offset,
            chunks=tuple(self.chunks),
            rows=self.rows,
            nbytes=self.nbytes,
            reason=reason,
        )
        self._reset()
        return batch
