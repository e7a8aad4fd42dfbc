"""kconnect's side of the Spark sink benchmark: one `kconnect standalone` worker, driven through REST.

The worker runs for the whole group. A connector on an idle topic (one record, `flush.size=1`) starts
the worker's SparkSession and keeps it up, as any running Spark sink does (the session starts with
the first flush and stops with the last task). Each measurement is then a new SparkParquetSinkConnector
(a new consumer group, so it reads the topic from the beginning) into a new directory, timed from
`POST /connectors` until every partition's newest commit manifest covers its last offset; the same
worker measures the sink's default hand-off and `batch.handoff=arrow`.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from confluent_kafka import Producer

from bench.harness import RunContext, wait_until
from bench.scenarios.common import throughput
from bench.spark_kafka.cells import CODEC, SPARK_OPTIONS, Cell, file_stats, parquet_files
from bench.systems.base import RunningWorker, WorkerSystem, start_worker, stop_worker

BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
ANCHOR = "spark-anchor"


def newest_end(commits: Path, partition: int) -> int:
    """The last offset the newest manifest of a partition covers; -1 before the first commit."""
    directory = commits / str(partition)
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return -1
    for name in reversed(names):
        if name.endswith(".json"):
            return int(json.loads((directory / name).read_bytes())["end_offset"])
    return -1


def sink_config(topic: str, path: Path, flush_size: int, handoff: str = "auto") -> dict[str, str]:
    """The connector's settings: the sink's defaults except the file size (and the hand-off), raw JSON bytes in."""
    return {
        "connector.class": "SparkParquetSinkConnector",
        "tasks.max": "1",
        "topics": topic,
        "path": str(path),
        "flush.size": str(flush_size),
        "key.converter": BYTE_ARRAY,
        "value.converter": BYTE_ARRAY,
        "parquet.codec": CODEC,
        "batch.handoff": handoff,
        **SPARK_OPTIONS,
    }


class KconnectSink:
    def __init__(self, ctx: RunContext, system: WorkerSystem) -> None:
        self._ctx = ctx
        self.worker: RunningWorker = start_worker(
            system, ctx.processes, ctx.bootstrap_servers, ctx.scratch("spark-kconnect")
        )
        try:
            self._start_anchor()
        except BaseException:
            stop_worker(ctx.processes, self.worker)
            raise

    def close(self) -> None:
        stop_worker(self._ctx.processes, self.worker)

    def _start_anchor(self) -> None:
        topic = self._ctx.unique("spark-anchor")
        self._ctx.admin.create_topic(topic, 1)
        producer = Producer({"bootstrap.servers": self._ctx.bootstrap_servers, "log_level": 0})
        producer.produce(topic, b'{"anchor":1}')
        producer.flush(30)
        path = self.worker.workdir / "anchor"
        self.worker.rest.create(ANCHOR, sink_config(topic, path, 1))

        def started() -> bool:
            self._check(ANCHOR)
            return newest_end(path / "_commits" / topic, 0) == 0

        wait_until(started, 300, 0.1, "the anchor connector's first commit (the SparkSession start)")

    def _check(self, name: str) -> None:
        """RuntimeError when the worker died or the connector's task failed."""
        self.worker.ensure_alive()
        status = self.worker.rest.status(name) or {}
        for task in status.get("tasks", []):
            if task.get("state") == "FAILED":
                raise RuntimeError(str(task.get("trace", "task failed")).strip().splitlines()[0])

    def measure(self, cell: Cell, handoff: str = "auto") -> dict[str, float]:
        """One connector with `batch.handoff=<handoff>` draining the cell's topic: throughput and file figures."""
        name = self._ctx.unique("spark-sink")
        path = self.worker.workdir / name
        commits = path / "_commits" / cell.topic
        last_check = [time.monotonic()]

        def done() -> bool:
            if time.monotonic() - last_check[0] > 1.0:  # a failed task would otherwise cost the whole timeout
                last_check[0] = time.monotonic()
                self._check(name)
            return all(newest_end(commits, p) == cell.per_partition - 1 for p in range(cell.partitions))

        started = time.monotonic()
        self.worker.rest.create(name, sink_config(cell.topic, path, cell.file_records, handoff))
        try:
            finished = wait_until(done, 120 + cell.records / 2_000, 0.02, f"{cell.records} records in Parquet")
        finally:
            self.worker.rest.delete(name)
        seconds = finished - started
        files = parquet_files(path / "topics")
        stats = file_stats(len(files), sum(f.stat().st_size for f in files), seconds)
        shutil.rmtree(path, ignore_errors=True)
        return {**throughput(cell.records, cell.value_bytes, seconds), **stats}
