"""The Spark sink's fixed cost per flush: sink tasks driven directly, one epoch per flush.

`python -m bench.spark_kafka.flush_cost request.json` writes JSON to the request's `result` file: per
`batch.handoff` and batch size, the milliseconds from `put` of a full file (`flush.size` records of one
partition) until its epoch is published: decoding, the Spark job that stages the file, the manifest and
the move. The SparkSession is started by warm-up flushes first, as it is in a running worker; the
hand-offs' tasks take turns. With a 1-record file the time is the cost every flush pays whatever its
size; the larger size shows what records add.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.harness import RunContext, wait_until
from connect.api import SinkRecord, TimestampType, TopicPartition
from connect.runtime.metrics.plugin_metrics import TaskPluginMetrics
from connect.runtime.metrics.windows import Windows

SIZES = (1, 10_000)


class BenchSinkContext:
    """The least a sink task needs from its runtime when nothing rebalances or pauses."""

    def __init__(self, configs: Mapping[str, str]) -> None:
        self._plugin_metrics = TaskPluginMetrics((), Windows())
        self._configs = dict(configs)

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        pass

    def timeout(self, timeout_ms: int) -> None:
        pass

    def assignment(self) -> set[TopicPartition]:
        return set()

    def pause(self, *partitions: TopicPartition) -> None:
        pass

    def resume(self, *partitions: TopicPartition) -> None:
        pass

    def request_commit(self) -> None:
        pass

    @property
    def errant_record_reporter(self) -> None:
        return None

    @property
    def plugin_metrics(self) -> TaskPluginMetrics:
        return self._plugin_metrics


def start_task(request: dict[str, Any], handoff: str, size: int, directory: Path) -> Any:
    from spark_sink.task import SparkParquetSinkTask

    props = {"path": str(directory), "flush.size": str(size), "batch.handoff": handoff, **request["spark_options"]}
    task = SparkParquetSinkTask()
    task.initialize(BenchSinkContext(props))
    task.start(props)
    task.open([TopicPartition("cost", 0)])
    return task


def flush_ms(request: dict[str, Any], size: int, directory: Path) -> dict[str, list[float]]:
    """Per hand-off, the milliseconds of each measured flush of `size` records. One task per hand-off; they
    take turns flush by flush (in alternating order), so that the JVM warming up and other load on the
    machine weigh on every hand-off alike."""
    value = request["value"].encode()
    tasks = {h: start_task(request, h, size, directory / h) for h in request["handoffs"]}
    timings: dict[str, list[float]] = {h: [] for h in tasks}
    offset = 0
    try:
        for index in range(request["warmups"] + request["repetitions"]):
            records = [
                SinkRecord("cost", 0, None, None, None, value, o, 0, TimestampType.CREATE_TIME)
                for o in range(offset, offset + size)
            ]
            offset += size
            for handoff in list(tasks) if index % 2 == 0 else list(reversed(tasks)):
                task = tasks[handoff]
                started = time.perf_counter()
                task.put(records)
                if not task.wait_until_written(120):
                    raise RuntimeError("the sink task's writer failed")
                if index >= request["warmups"]:
                    timings[handoff].append((time.perf_counter() - started) * 1000)
        return timings
    finally:
        for task in tasks.values():
            task.stop()


def run_child(
    ctx: RunContext, value: bytes, spark_options: Mapping[str, str], repetitions: int, handoffs: tuple[str, ...]
) -> dict[str, dict[int, float]]:
    """This module as a child process of the run (its own JVM): milliseconds per flush by hand-off and file size."""
    directory = ctx.scratch("spark-flush-cost")
    request = {
        "value": value.decode(),
        "handoffs": list(handoffs),
        "sizes": list(SIZES),
        "spark_options": dict(spark_options),
        "warmups": 2,
        "repetitions": repetitions,
        "workdir": str(directory),
        "result": str(directory / "result.json"),
    }
    (directory / "request.json").write_text(json.dumps(request))
    command = [sys.executable, "-m", "bench.spark_kafka.flush_cost", str(directory / "request.json")]
    process = ctx.processes.spawn("spark-flush-cost", command, directory / "run.log")
    try:
        wait_until(lambda: not process.alive(), 900, 0.1, "the flush cost measurement")
    finally:
        ctx.processes.stop(process)
    result = directory / "result.json"
    if process.returncode != 0 or not result.exists():
        lines = [line for line in process.log_tail(200).splitlines() if line.strip() and not line.startswith("\tat ")]
        raise RuntimeError(f"flush_cost exited with {process.returncode}: {lines[-1] if lines else 'no output'}")
    return {
        handoff: {int(size): float(ms) for size, ms in by_size.items()}
        for handoff, by_size in json.loads(result.read_text()).items()
    }


def main(argv: list[str]) -> int:
    from spark_sink.session import SESSIONS

    request = json.loads(Path(argv[1]).read_text())
    workdir = Path(request["workdir"])
    lease = SESSIONS.acquire(request["spark_options"])  # one session for every task of the run
    try:
        result: dict[str, dict[str, float]] = {handoff: {} for handoff in request["handoffs"]}
        for size in request["sizes"]:
            for handoff, timings in flush_ms(request, size, workdir / f"size-{size}").items():
                result[handoff][str(size)] = statistics.median(timings)
    finally:
        lease.release()
    Path(request["result"]).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
