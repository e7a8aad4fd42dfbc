"""The Spark side of a flush: one batch write of an Arrow table into a staging directory. Writer thread.

The table reaches Spark through the session's hand-off (`spark_sink.frames`: a Parquet hand-off file
or `createDataFrame`; Arrow is forced on by `session`); the write is partitioned by the synthetic `_g`
column so every group lands in exactly one file (`Layout` says how). A job of one group writes that
group's directory itself, without partitioning (which would sort the rows first). `maxRecordsPerFile`
stays off here because rotation decides file sizes.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from connect.api import ConnectError
from spark_sink.epoch import PlannedJob
from spark_sink.frames import arrow_frame, bounded_row_counts, parquet_frame
from spark_sink.handoff import HandoffArea
from spark_sink.layout import GROUP_COLUMN, StagingGroup, parse_group_dir
from spark_sink.session import is_spark_connect
from spark_sink.storage import Storage

COALESCE_BELOW_BYTES = 128 * 1024 * 1024
ROW_GROUP_MAX_BYTES = 128 * 1024 * 1024
"""A Parquet scan task reads a whole row group into memory at once: groups larger than this go through
a shuffle instead of being one row group each."""
_SPARK_CODECS = {"snappy": "snappy", "zstd": "zstd", "gzip": "gzip", "none": "none"}


class StagingError(ConnectError):
    """The Spark job did not produce the files it should have: the epoch can be retried."""


def write_job(
    spark: Any,
    storage: Storage,
    job: PlannedJob,
    codec: str,
    block_size: int,
    job_group: str,
    handoff: HandoffArea | None,
) -> None:
    """`handoff` None: the arrow hand-off; else the area the Parquet hand-off file goes to.

    The job carries the tag `job_group` (`cancel_jobs` interrupts it), in a classic session and over
    Spark Connect alike (a SparkContext's job groups do not exist there).
    """
    spark.addTag(job_group)
    try:
        _write(spark, storage, job, codec, block_size, handoff, layout(job, handoff))
    finally:
        spark.removeTag(job_group)


def cancel_jobs(spark: Any, job_group: str) -> None:
    """Interrupts the running job of `write_job(..., job_group, ...)`, if any, from any thread."""
    spark.interruptTag(job_group)


class Layout(enum.Enum):
    """How the rows of a job reach Spark's write tasks so that each group lands in exactly one file."""

    ONE_GROUP = "one group, one task: its directory is the target, no partitioning"
    ROW_GROUPS = "each group one row group of the hand-off file: a scan split never cuts a group, no shuffle"
    COALESCE = "every row in one task"
    SHUFFLE = "repartitioned by group: each group hashes to one task"


def layout(job: PlannedJob, handoff: HandoffArea | None) -> Layout:
    """Jobs up to 128 MB take one task: it leaves the other cores to the task threads' decoding, which
    is what bounds a sink's throughput (spreading them made the runs slower: `docs/spark_sink.md`). Larger ones
    spread over the cores: from row groups where a hand-off file carries them (Spark reads the row
    groups whose middle a split holds), else through a shuffle (the arrow hand-off's batches cut
    through groups)."""
    if len(job.files) == 1:
        return Layout.ONE_GROUP
    if job.table.nbytes <= COALESCE_BELOW_BYTES:
        return Layout.COALESCE
    if handoff is not None and max(_group_bytes(job)) <= ROW_GROUP_MAX_BYTES:
        return Layout.ROW_GROUPS
    return Layout.SHUFFLE


def _group_bytes(job: PlannedJob) -> list[int]:
    sizes: list[int] = []
    start = 0
    for file in job.files:  # the table holds the groups one after the other, in the files' order
        sizes.append(job.table.slice(start, file.records).nbytes)
        start += file.records
    return sizes


def _parallelism(spark: Any, groups: int) -> int:
    return groups if is_spark_connect(spark) else min(groups, spark.sparkContext.defaultParallelism)


def _write(
    spark: Any,
    storage: Storage,
    job: PlannedJob,
    codec: str,
    block_size: int,
    handoff: HandoffArea | None,
    how: Layout,
) -> None:
    with _frame(spark, job, handoff, how) as frame:
        target = job.staging
        if how is Layout.ONE_GROUP:
            # partitionBy would make Spark sort every row by `_g` first (a large part of the job's CPU for
            # one large file, `docs/spark_sink.md`) to learn there is one value.
            frame = frame.drop(GROUP_COLUMN).coalesce(1)
            target = f"{job.staging}/{GROUP_COLUMN}={job.files[0].group.label}"
        elif how is Layout.COALESCE:
            frame = frame.coalesce(1)
        elif how is Layout.SHUFFLE:
            frame = frame.repartition(_parallelism(spark, len(job.files)), GROUP_COLUMN)
        writer = (
            frame.write.mode("error")  # "error": the one spelling Spark Connect accepts too
            .option("compression", _SPARK_CODECS[codec])
            .option("parquet.block.size", str(block_size))
        )
        if how is not Layout.ONE_GROUP:
            writer = writer.partitionBy(GROUP_COLUMN)
        writer.parquet(storage.uri(target))


def _row_groups(job: PlannedJob, how: Layout) -> Sequence[int]:
    """The hand-off file's row groups: one per group for ROW_GROUPS; for the shuffle, as many as keep
    each within ROW_GROUP_MAX_BYTES; else a single one (one task reads the file: fewer, larger reads)."""
    if how is Layout.ROW_GROUPS:
        return [file.records for file in job.files]
    if how is Layout.SHUFFLE:
        return bounded_row_counts(job.table, ROW_GROUP_MAX_BYTES)
    return [job.table.num_rows]


@contextmanager
def _frame(spark: Any, job: PlannedJob, handoff: HandoffArea | None, how: Layout) -> Iterator[Any]:
    if handoff is None:
        yield arrow_frame(spark, job.table)
        return
    # `_staging/<epoch>/s<n>` -> `<epoch>-s<n>`: unique per job, and says where it belongs.
    name = job.staging.split("/", 1)[-1].replace("/", "-")
    with parquet_frame(spark, job.table, handoff, name, _row_groups(job, how)) as frame:
        yield frame


def staged_files(storage: Storage, job: PlannedJob) -> dict[StagingGroup, str]:
    """The file Spark wrote for each planned group; StagingError unless there is exactly one each."""
    prefix = job.staging + "/"
    found: dict[StagingGroup, list[str]] = {}
    for path, is_dir in storage.walk(job.staging):
        if is_dir or not path.startswith(prefix):
            continue
        parts = path[len(prefix) :].split("/")
        if len(parts) != 2 or not parts[1].endswith(".parquet") or parts[1].startswith((".", "_")):
            continue
        group = parse_group_dir(parts[0])
        if group is not None:
            found.setdefault(group, []).append(path)
    result: dict[StagingGroup, str] = {}
    for planned in job.files:
        paths = found.get(planned.group, [])
        if len(paths) != 1:
            raise StagingError(
                f"Expected one staged file for group {planned.group.label} in {job.staging}, found {paths}"
            )
        result[planned.group] = paths[0]
    return result
