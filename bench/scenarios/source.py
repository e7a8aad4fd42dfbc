"""Source throughput: FileStreamSource reading a prepared file into a topic, kconnect next to Java Connect.

Timed from `POST /connectors` to the topic's end offset reaching N (polled every 20 ms), so connector
and task start-up count, as a user creating a connector would see it. Every repetition uses a new
connector (so no stored source offset applies) and a new topic.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench.catalog import JAVA_CONNECT, RAW_CLIENT
from bench.harness import Record, RunContext, repeat, wait_until
from bench.results import BenchmarkResult, Reference, SystemResult
from bench.scenarios.common import (
    RECORDS_PER_S,
    THROUGHPUT_METRICS,
    payload,
    throughput,
    throughput_metrics,
    write_lines,
)
from bench.scenarios.raw import producer_name
from bench.settings import FILE_BATCH_SIZE, FILE_SOURCE, VALUE_SIZES
from bench.systems.base import RunningWorker

GROUP = "source"
METHOD = (
    "A file of N lines (each line one record value) is prepared before timing. Timed from `POST /connectors` "
    f"(FileStreamSourceConnector, `tasks.max=1`, `batch.size={FILE_BATCH_SIZE}`) until the new 1-partition topic's end "
    "offset reaches N, polled every 20 ms. StringConverter for keys and values; a new connector and topic "
    "per repetition. The raw producer row is the limit measured earlier in the same run."
)


def source_name(size: str) -> str:
    return f"source-{size}"


def timed_connector_run(
    ctx: RunContext, worker: RunningWorker, config: dict[str, str], topic: str, count: int
) -> float:
    """Seconds from creating the connector (writing to `topic`) until `topic` holds `count` records."""
    name = ctx.unique("bench-source")
    timeout = 60.0 + count / 1000
    started = time.monotonic()
    worker.rest.create(name, config)

    def done() -> bool:
        worker.ensure_alive()
        return ctx.admin.end_offset(topic) >= count

    finished = wait_until(done, timeout, what=f"{count} records in {topic}")
    worker.rest.delete(name)
    return finished - started


def measure_file_source(
    ctx: RunContext, worker: RunningWorker, source: Path, value_size: int, count: int
) -> dict[str, list[float]]:
    def measure(_: int) -> dict[str, float]:
        topic = ctx.unique(f"source-{value_size}")
        ctx.admin.create_topic(topic)
        try:
            config = {
                "connector.class": FILE_SOURCE,
                "tasks.max": "1",
                "file": str(source),
                "topic": topic,
                "batch.size": str(FILE_BATCH_SIZE),
            }
            return throughput(count, value_size, timed_connector_run(ctx, worker, config, topic, count))
        finally:
            ctx.admin.delete_topics([topic])

    return repeat(measure, ctx.sizes.warmups, ctx.sizes.repetitions)


def run(ctx: RunContext) -> list[BenchmarkResult]:
    files: dict[str, Path] = {}
    inputs = ctx.scratch("source-input")
    for size, value_size in VALUE_SIZES.items():
        files[size] = inputs / f"lines-{size}.txt"
        write_lines(files[size], payload(value_size), ctx.sizes.connect_records[size])

    def body(worker: RunningWorker, record: Record) -> None:
        for size, value_size in VALUE_SIZES.items():
            samples = measure_file_source(ctx, worker, files[size], value_size, ctx.sizes.connect_records[size])
            record(source_name(size), SystemResult.measured(worker.system.label, throughput_metrics(samples)))

    rows = ctx.each_system([source_name(size) for size in VALUE_SIZES], body)
    return [
        ctx.entry(
            source_name(size),
            GROUP,
            f"FileStreamSource → Kafka, {size} lines",
            size,
            METHOD,
            THROUGHPUT_METRICS,
            rows[source_name(size)],
            comparisons=(
                Reference("raw producer", RAW_CLIENT, producer_name(size)),
                Reference("Java Connect", JAVA_CONNECT),
            ),
            ratio_metrics=(RECORDS_PER_S,),
            settings={
                "records": ctx.sizes.connect_records[size],
                "value_bytes": VALUE_SIZES[size],
                **_system_settings(ctx),
            },
        )
        for size in VALUE_SIZES
    ]


def _system_settings(ctx: RunContext) -> dict[str, str]:
    return {f"{system.key}.{key}": value for system in ctx.systems for key, value in system.settings().items()}
