"""kconnect's DatagenConnector (payload quickstart) into a topic, next to its file source and the limit."""

from __future__ import annotations

from bench.catalog import JAVA_CONNECT, KCONNECT, RAW_CLIENT, SYSTEM_LABELS
from bench.harness import Record, RunContext, repeat
from bench.results import BenchmarkResult, Reference, SystemResult
from bench.scenarios.common import RECORDS_PER_S, THROUGHPUT_METRICS, throughput, throughput_metrics
from bench.scenarios.raw import producer_name
from bench.scenarios.source import source_name, timed_connector_run
from bench.settings import DATAGEN, FILE_BATCH_SIZE, VALUE_SIZES
from bench.systems.base import RunningWorker

GROUP = "datagen"
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
METHOD = (
    "DatagenConnector with `quickstart=payload` (a BYTES value of `payload.size` bytes, ByteArrayConverter; "
    f"key `<task>-<seq>` as a string), `max.records=N`, no rate limit, `batch.size={FILE_BATCH_SIZE}`. Timed like the "
    "file source: from `POST /connectors` to the topic's end offset reaching N."
)


def datagen_name(size: str) -> str:
    return f"datagen-{size}"


def datagen_config(topic: str, value_size: int, count: int) -> dict[str, str]:
    return {
        "connector.class": DATAGEN,
        "tasks.max": "1",
        "kafka.topic": topic,
        "quickstart": "payload",
        "payload.size": str(value_size),
        "max.records": str(count),
        "seed": "1",
        "batch.size": str(FILE_BATCH_SIZE),
        "value.converter": BYTE_ARRAY_CONVERTER,
    }


def run(ctx: RunContext) -> list[BenchmarkResult]:
    systems = [system for system in ctx.systems if system.key == KCONNECT]

    def measure(worker: RunningWorker, value_size: int, count: int) -> dict[str, float]:
        topic = ctx.unique("datagen")
        ctx.admin.create_topic(topic)
        try:
            config = datagen_config(topic, value_size, count)
            return throughput(count, value_size, timed_connector_run(ctx, worker, config, topic, count))
        finally:
            ctx.admin.delete_topics([topic])

    def measure_size(worker: RunningWorker, size: str) -> dict[str, list[float]]:
        value_size, count = VALUE_SIZES[size], ctx.sizes.connect_records[size]
        return repeat(lambda _: measure(worker, value_size, count), ctx.sizes.warmups, ctx.sizes.repetitions)

    def body(worker: RunningWorker, record: Record) -> None:
        for size in VALUE_SIZES:
            samples = measure_size(worker, size)
            record(datagen_name(size), SystemResult.measured(worker.system.label, throughput_metrics(samples)))

    names = [datagen_name(size) for size in VALUE_SIZES]
    rows = ctx.each_system(names, body, systems)
    for name in names:
        rows[name][JAVA_CONNECT] = SystemResult.not_applicable(
            SYSTEM_LABELS[JAVA_CONNECT], "Apache Kafka ships no datagen connector (Confluent's is a separate plug-in)"
        )
    return [
        ctx.entry(
            datagen_name(size),
            GROUP,
            f"Datagen → Kafka, {size} payloads",
            f"datagen {size}",
            METHOD,
            THROUGHPUT_METRICS,
            rows[datagen_name(size)],
            comparisons=(
                Reference("raw producer", RAW_CLIENT, producer_name(size)),
                Reference("kconnect file source", KCONNECT, source_name(size)),
            ),
            ratio_metrics=(RECORDS_PER_S,),
            settings={"records": ctx.sizes.connect_records[size], "value_bytes": value_size},
        )
        for size, value_size in VALUE_SIZES.items()
    ]
