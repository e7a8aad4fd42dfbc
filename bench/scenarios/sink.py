"""Sink throughput: FileStreamSink draining a pre-filled topic into a file, kconnect next to Java Connect.

Timed from `POST /connectors` until the output file holds all N lines (its size is exactly
N * (value bytes + 1), polled every 20 ms). Each repetition is a new connector, hence a new consumer
group `connect-<name>` reading the same topic from the beginning, and a new file.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.catalog import JAVA_CONNECT, RAW_CLIENT
from bench.clients import new_producer, produce
from bench.harness import Record, RunContext, repeat, wait_until
from bench.results import BenchmarkResult, Reference, SystemResult
from bench.scenarios.common import RECORDS_PER_S, THROUGHPUT_METRICS, payload, throughput, throughput_metrics
from bench.settings import FILE_SINK, OFFSET_FLUSH_INTERVAL_MS, PRODUCER_SETTINGS, VALUE_SIZES
from bench.systems.base import RunningWorker

GROUP = "sink"
METHOD = (
    "A 1-partition topic is filled with N records by the raw producer before timing. Timed from `POST "
    "/connectors` (FileStreamSinkConnector, `tasks.max=1`) until the output file holds all N lines, polled "
    "every 20 ms; this includes the consumer group join. "
    f"`offset.flush.interval.ms={OFFSET_FLUSH_INTERVAL_MS}` on both workers, so a sink that writes only "
    "on flush is at most that much behind. The raw consumer row is the limit measured earlier in the same "
    "run (no group join)."
)


def sink_name(size: str) -> str:
    return f"sink-{size}"


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def timed_sink_run(ctx: RunContext, worker: RunningWorker, config: dict[str, str], output: Path, size: int) -> float:
    """Seconds from creating the sink connector until `output` is `size` bytes long."""
    name = ctx.unique("bench-sink")
    started = time.monotonic()
    worker.rest.create(name, config)

    def done() -> bool:
        worker.ensure_alive()
        return file_size(output) >= size

    finished = wait_until(done, 60.0 + size / 100_000, what=f"{size} bytes in {output.name}")
    worker.rest.delete(name)
    return finished - started


def fill_topic(ctx: RunContext, topic: str, value: bytes, count: int, partitions: int = 1) -> None:
    ctx.admin.create_topic(topic, partitions)
    produce(new_producer(ctx.bootstrap_servers, PRODUCER_SETTINGS), topic, value, count)


def run(ctx: RunContext) -> list[BenchmarkResult]:
    topics: dict[str, str] = {}
    for size, value_size in VALUE_SIZES.items():
        topics[size] = ctx.unique(f"sink-input-{value_size}")
        fill_topic(ctx, topics[size], payload(value_size), ctx.sizes.sink_records[size])

    def body(worker: RunningWorker, record: Record) -> None:
        for size, value_size in VALUE_SIZES.items():
            count = ctx.sizes.sink_records[size]

            def measure(_: int, size: str = size, value_size: int = value_size, count: int = count) -> dict[str, float]:
                output = worker.workdir / f"{ctx.unique('sink-output')}.txt"
                config = {"connector.class": FILE_SINK, "tasks.max": "1", "topics": topics[size], "file": str(output)}
                try:
                    seconds = timed_sink_run(ctx, worker, config, output, count * (value_size + 1))
                finally:
                    output.unlink(missing_ok=True)
                return throughput(count, value_size, seconds)

            samples = repeat(measure, ctx.sizes.warmups, ctx.sizes.repetitions)
            record(sink_name(size), SystemResult.measured(worker.system.label, throughput_metrics(samples)))

    try:
        rows = ctx.each_system([sink_name(size) for size in VALUE_SIZES], body)
    finally:
        ctx.admin.delete_topics(list(topics.values()))
    return [
        ctx.entry(
            sink_name(size),
            GROUP,
            f"Kafka → FileStreamSink, {size} values",
            size,
            METHOD,
            THROUGHPUT_METRICS,
            rows[sink_name(size)],
            comparisons=(
                Reference("raw consumer", RAW_CLIENT, f"raw-consumer-{size}"),
                Reference("Java Connect", JAVA_CONNECT),
            ),
            ratio_metrics=(RECORDS_PER_S,),
            settings={"records": ctx.sizes.sink_records[size], "value_bytes": VALUE_SIZES[size]},
        )
        for size in VALUE_SIZES
    ]
