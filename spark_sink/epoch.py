"""Turns closed batches into one flush epoch: the Spark input tables and what each manifest will list.

Every (topic partition, encoded partition) of the epoch becomes one group `_g` with exactly one
output file; the rows of a table are ordered by group (stably, so offsets stay in order inside a
file) and carry the group label in the synthetic `_g` column that Spark partitions by. Groups of
different Arrow schemas go to different Spark jobs. Pure, runs on the writer thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from connect.api import TopicPartition
from spark_sink.buffers import ClosedBatch
from spark_sink.layout import GROUP_COLUMN, StagingGroup, data_path, file_name, staging_dir


@dataclass(frozen=True)
class PlannedFile:
    group: StagingGroup
    final_path: str
    start_offset: int
    end_offset: int
    records: int


@dataclass(frozen=True)
class PlannedJob:
    """One Spark write: `table` (with `_g`) goes to `staging`, one file per group."""

    staging: str
    table: pa.Table
    files: tuple[PlannedFile, ...]


@dataclass(frozen=True)
class PlannedCommit:
    """One manifest: the batches of a partition in this epoch, merged."""

    tp: TopicPartition
    generation: int
    seq: int
    start_offset: int
    end_offset: int
    files: tuple[PlannedFile, ...]
    schema: str


@dataclass(frozen=True)
class EpochPlan:
    epoch_id: str
    jobs: tuple[PlannedJob, ...]
    commits: tuple[PlannedCommit, ...]


def plan_epoch(
    epoch_id: str,
    batches: Sequence[tuple[ClosedBatch, int]],
    topics_dir: str,
    codec: str,
) -> EpochPlan:
    """`batches` are (batch, manifest seq) pairs, in consumption order per partition."""
    by_tp: dict[TopicPartition, list[tuple[ClosedBatch, int]]] = {}
    for batch, seq in batches:
        by_tp.setdefault(batch.tp, []).append((batch, seq))
    job_parts: list[tuple[pa.Schema, list[pa.Table], list[PlannedFile]]] = []
    commits: list[PlannedCommit] = []
    for tp, items in by_tp.items():
        seq = items[0][1]
        files: list[PlannedFile] = []
        schemas: list[str] = []
        for batch, _ in items:
            for table, file in _group(batch, seq, len(files), topics_dir, codec):
                files.append(file)
                _add(job_parts, table, file)
                if not schemas or schemas[-1] != table.schema.to_string():
                    schemas.append(table.schema.to_string())
        commits.append(
            PlannedCommit(
                tp=tp,
                generation=items[0][0].generation,
                seq=seq,
                start_offset=items[0][0].start_offset,
                end_offset=items[-1][0].end_offset,
                files=tuple(files),
                schema="\n--\n".join(schemas),
            )
        )
    jobs = tuple(
        PlannedJob(f"{staging_dir(epoch_id)}/s{i}", pa.concat_tables(tables), tuple(files))
        for i, (_, tables, files) in enumerate(job_parts)
    )
    return EpochPlan(epoch_id, jobs, tuple(commits))


def _add(parts: list[tuple[pa.Schema, list[pa.Table], list[PlannedFile]]], table: pa.Table, file: PlannedFile) -> None:
    schema = table.schema
    for existing, tables, files in parts:
        if existing.equals(schema):
            tables.append(table)
            files.append(file)
            return
    parts.append((schema, [table], [file]))


def _group(
    batch: ClosedBatch, seq: int, first_index: int, topics_dir: str, codec: str
) -> list[tuple[pa.Table, PlannedFile]]:
    if not batch.chunks:
        return []
    table = pa.concat_tables([c.table for c in batch.chunks]).combine_chunks()
    offsets = pa.concat_arrays([c.offsets for c in batch.chunks])
    if all(isinstance(c.labels, str) and c.labels == batch.chunks[0].labels for c in batch.chunks):
        runs = [(str(batch.chunks[0].labels), 0, table.num_rows)]
    else:
        labels = pa.concat_arrays(
            [pa.repeat(pa.scalar(c.labels), c.table.num_rows) if isinstance(c.labels, str) else c.labels
             for c in batch.chunks]
        )  # fmt: skip
        order = pc.sort_indices(labels)  # stable: rows of one group keep their offset order
        table, offsets, labels = table.take(order), offsets.take(order), labels.take(order)
        runs = _runs(labels)
    grouped: list[tuple[pa.Table, PlannedFile]] = []
    for i, (encoded, start, stop) in enumerate(runs):
        group = StagingGroup(batch.tp, seq, first_index + i)
        rows = table.slice(start, stop - start)
        first, last = offsets[start].as_py(), offsets[stop - 1].as_py()
        name = file_name(batch.tp, first, last, codec)
        file = PlannedFile(group, data_path(topics_dir, batch.tp.topic, encoded, name), first, last, stop - start)
        grouped.append((rows.append_column(GROUP_COLUMN, pa.repeat(pa.scalar(group.label), rows.num_rows)), file))
    return grouped


def _runs(sorted_labels: pa.Array) -> list[tuple[str, int, int]]:
    encoded = sorted_labels.dictionary_encode()
    values = encoded.dictionary.to_pylist()
    runs: list[tuple[str, int, int]] = []
    start = 0
    for value, length in zip(*_run_lengths(encoded.indices), strict=True):
        runs.append((values[value], start, start + length))
        start += length
    return runs


def _run_lengths(indices: pa.Array) -> tuple[list[int], list[int]]:
    ree = pc.run_end_encode(indices)
    ends = ree.run_ends.to_pylist()
    starts = [0, *ends[:-1]]
    return ree.values.to_pylist(), [e - s for s, e in zip(starts, ends, strict=True)]
