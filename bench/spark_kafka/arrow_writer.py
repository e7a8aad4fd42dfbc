"""The upper bound of the Spark sink benchmark: a plain Python loop from confluent-kafka to pyarrow Parquet.

No framework, no Spark, no commit protocol: an assigned consumer reads the topic from the beginning,
keeps each partition's values in a list, and every `records_per_file` values of a partition become
one Parquet file (`pyarrow.json` parses the newline-joined values, `pq.write_table` writes them with
the sink's codec) on a second thread, so consuming and writing overlap as they do in the sink (both
release the GIL in Arrow's C++). Timed from `assign` until the last file is written. What Python plus
Arrow can do on this machine; the sink adds the worker's record pipeline, Spark and exactly-once
publication.
"""

from __future__ import annotations

import io
import statistics
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyarrow.json as pj
import pyarrow.parquet as pq
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from bench.settings import CONSUMER_SETTINGS


@dataclass(frozen=True)
class WriteRun:
    seconds: float
    files: int
    bytes: int


def write_file(values: list[bytes], path: Path, codec: str) -> int:
    table = pj.read_json(io.BytesIO(b"\n".join(values)))
    pq.write_table(table, path, compression=codec)
    return path.stat().st_size


def timed_arrow_write(
    bootstrap_servers: str,
    topic: str,
    partitions: int,
    records: int,
    records_per_file: int,
    output: Path,
    codec: str = "snappy",
    timeout: float = 600.0,
) -> WriteRun:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap_servers,
            "group.id": f"kconnect-bench-arrow-{uuid.uuid4().hex[:8]}",
            "log_level": 0,
            **CONSUMER_SETTINGS,
            # As kconnect's worker sets it for sink consumers (connect/runtime/kafka/client_config.py): with
            # librdkafka's default of 1 s, a full prefetch queue pauses fetching for a whole second.
            "fetch.queue.backoff.ms": "10",
        }
    )
    output.mkdir(parents=True, exist_ok=True)
    buffers: dict[int, list[bytes]] = {p: [] for p in range(partitions)}
    writes: list[Future[int]] = []
    seen = 0
    writer = ThreadPoolExecutor(1, thread_name_prefix="arrow-writer")
    try:
        consumer.list_topics(topic, timeout=10)
        started = time.perf_counter()
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
        deadline = started + timeout
        while seen < records:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"read {seen} of {records} records from {topic} in {timeout:.0f}s")
            # librdkafka's batch consume waits for all `num_messages` until the timeout: ask only for what is left.
            for message in consumer.consume(num_messages=min(10_000, records - seen), timeout=1.0):
                if message.error() is not None:
                    continue
                seen += 1
                buffer = buffers[message.partition()]  # type: ignore[index]
                buffer.append(message.value())  # type: ignore[arg-type]
                if len(buffer) >= records_per_file:
                    path = output / f"{topic}-{len(writes)}.parquet"
                    writes.append(writer.submit(write_file, list(buffer), path, codec))
                    buffer.clear()
        for buffer in buffers.values():
            if buffer:
                writes.append(writer.submit(write_file, list(buffer), output / f"{topic}-{len(writes)}.parquet", codec))
        written = sum(write.result() for write in writes)
        return WriteRun(time.perf_counter() - started, len(writes), written)
    finally:
        writer.shutdown(wait=True, cancel_futures=True)
        consumer.close()


def write_cost_ms(output: Path, value: bytes, rows: int, repetitions: int = 20, codec: str = "snappy") -> float:
    """Median milliseconds to parse and write a file of `rows` copies of `value`: its fixed cost for 1 row."""
    output.mkdir(parents=True, exist_ok=True)
    values = [value] * rows
    timings = []
    for index in range(repetitions):
        started = time.perf_counter()
        write_file(values, output / f"cost-{index}.parquet", codec)
        timings.append((time.perf_counter() - started) * 1000)
    return float(statistics.median(timings))
