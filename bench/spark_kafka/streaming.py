"""Spark Structured Streaming, Kafka → Parquet: the Spark sink's peer, in a process of its own.

`python -m bench.spark_kafka.streaming DIR` starts one SparkSession (`DIR/session.json` holds its
settings), writes `DIR/ready`, then serves requests: it waits for `DIR/request-<n>.json` (n = 0, 1, ...)
and answers each with `DIR/result-<n>.json`, until a request says `stop`. So the harness can interleave
its repetitions with the other systems' while this JVM stays warm, as the sink's worker does.

A `run` request is one query with a new checkpoint and output directory reading a whole topic from the
earliest offsets: `readStream.format("kafka")` → `from_json(value, schema)` → `writeStream.format("parquet")`
with `Trigger.AvailableNow` (every batch back to back, then stop) and `maxOffsetsPerTrigger` = records
per file * partitions, so each micro-batch writes one file per Kafka partition holding as many records
as the sink's `flush.size` puts in one. Timed from `start()` until the query terminated; the rows
written are counted from the files' footers. A `batch_cost` request runs a query of 1-record micro-
batches and answers the median `triggerExecution` of its batches after the first.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from bench.procs import ProcessSet

POLL_S = 0.01


def parquet_files(directory: Path) -> list[Path]:
    return [p for p in directory.rglob("*.parquet") if not p.relative_to(directory).parts[0].startswith("_")]


def start_session(settings: dict[str, Any]) -> Any:
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("kconnect-bench-structured-streaming")
    for key, value in {**settings["spark_options"], "spark.jars": ",".join(settings["jars"])}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run_query(spark: Any, settings: dict[str, Any], topic: str, max_offsets: int, directory: Path) -> tuple[Any, float]:
    from pyspark.sql.functions import col, from_json

    source = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", settings["bootstrap"])
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", str(max_offsets))
        .load()
    )
    parsed = source.select(from_json(col("value").cast("string"), settings["schema"]).alias("v")).select("v.*")
    started = time.perf_counter()
    query = (
        parsed.writeStream.format("parquet")
        .option("path", str(directory / "out"))
        .option("checkpointLocation", str(directory / "checkpoint"))
        .option("compression", settings["codec"])
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    seconds = time.perf_counter() - started
    if query.exception() is not None:
        raise RuntimeError(str(query.exception()))
    return query, seconds


def serve(spark: Any, settings: dict[str, Any], request: dict[str, Any], directory: Path) -> dict[str, Any]:
    if request["op"] == "run":
        _, seconds = run_query(spark, settings, request["topic"], request["max_offsets"], directory)
        files = parquet_files(directory / "out")
        rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
        if rows != request["records"]:
            raise RuntimeError(f"Structured Streaming wrote {rows} rows, expected {request['records']}")
        return {"seconds": seconds, "files": len(files), "bytes": sum(f.stat().st_size for f in files)}
    if request["op"] == "batch_cost":
        query, _ = run_query(spark, settings, request["topic"], 1, directory)
        durations = [p["durationMs"]["triggerExecution"] for p in query.recentProgress if p["numInputRows"] > 0]
        if len(durations) < 2:
            raise RuntimeError(f"only {len(durations)} micro-batches ran")
        return {"batch_ms": float(statistics.median(durations[1:]))}
    raise ValueError(f"unknown request {request['op']!r}")


def main(argv: list[str]) -> int:
    home = Path(argv[1])
    settings = json.loads((home / "session.json").read_text())
    spark = start_session(settings)
    (home / "ready").touch()
    index = 0
    try:
        while True:
            request_file = home / f"request-{index}.json"
            if not request_file.exists():
                time.sleep(POLL_S)
                continue
            request = json.loads(request_file.read_text())
            if request["op"] == "stop":
                return 0
            try:
                answer = serve(spark, settings, request, home / f"query-{index}")
            except Exception as error:
                answer = {"error": str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__}
            partial = home / f".result-{index}.json"
            partial.write_text(json.dumps(answer))
            partial.rename(home / f"result-{index}.json")
            index += 1
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv))


class StreamingPeer:
    """The harness's side: the server process (owned by the run's ProcessSet) and its requests."""

    def __init__(self, processes: ProcessSet, home: Path, settings: dict[str, Any], timeout: float = 300.0) -> None:
        home.mkdir(parents=True, exist_ok=True)
        (home / "session.json").write_text(json.dumps(settings))
        self._processes = processes
        self._home = home
        self._next = 0
        command = [sys.executable, "-m", "bench.spark_kafka.streaming", str(home)]
        self._process = processes.spawn("spark-streaming", command, home / "run.log")
        try:
            self._wait((home / "ready").exists, timeout, "the Structured Streaming session")
        except BaseException:
            processes.stop(self._process)
            raise

    def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        index, self._next = self._next, self._next + 1
        partial = self._home / f".request-{index}.json"
        partial.write_text(json.dumps(payload))
        partial.rename(self._home / f"request-{index}.json")
        result = self._home / f"result-{index}.json"
        self._wait(result.exists, timeout, f"Structured Streaming's {payload['op']}")
        answer: dict[str, Any] = json.loads(result.read_text())
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self) -> None:
        try:
            partial = self._home / f".request-{self._next}.json"
            partial.write_text(json.dumps({"op": "stop"}))
            partial.rename(self._home / f"request-{self._next}.json")
            deadline = time.monotonic() + 60
            while self._process.alive() and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            self._processes.stop(self._process)

    def _wait(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if not self._process.alive():
                lines = [line for line in self._process.log_tail(200).splitlines() if line.strip()]
                errors = [line for line in lines if "Error" in line or "Exception" in line] or lines or ["no output"]
                raise RuntimeError(f"Structured Streaming exited with {self._process.returncode}: {errors[-1]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what} did not finish within {timeout:.0f} s")
            time.sleep(POLL_S)
