"""The Spark side of a flush: one batch write of an Arrow table into a staging directory. Writer thread.

`createDataFrame(pa.Table)` ships the Arrow data as is (Arrow is forced on by `session`); the write
is partitioned by the synthetic `_g` column so every group lands in exactly one file: `coalesce(1)`
for small epochs (one task, no shuffle), `repartition(k, _g)` for large ones (each group hashes to one
task). `maxRecordsPerFile` stays off here because rotation decides file sizes.
"""

from __future__ import annotations

from typing import Any

from connect.api import ConnectError
from spark_sink.epoch import PlannedJob
from spark_sink.layout import GROUP_COLUMN, StagingGroup, parse_group_dir
from spark_sink.storage import Storage

COALESCE_BELOW_BYTES = 128 * 1024 * 1024
_SPARK_CODECS = {"snappy": "snappy", "zstd": "zstd", "gzip": "gzip", "none": "none"}


class StagingError(ConnectError):
    """The Spark job did not produce the files it should have: the epoch can be retried."""


def write_job(spark: Any, storage: Storage, job: PlannedJob, codec: str, block_size: int, job_group: str) -> None:
    spark.sparkContext.setJobGroup(job_group, f"kconnect flush to {job.staging}", True)
    frame = spark.createDataFrame(job.table)
    groups = len(job.files)
    if groups > 1 and job.table.nbytes > COALESCE_BELOW_BYTES:
        frame = frame.repartition(min(groups, spark.sparkContext.defaultParallelism), GROUP_COLUMN)
    else:
        frame = frame.coalesce(1)
    (
        frame.write.mode("errorifexists")
        .option("compression", _SPARK_CODECS[codec])
        .option("parquet.block.size", str(block_size))
        .partitionBy(GROUP_COLUMN)
        .parquet(storage.uri(job.staging))
    )


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
