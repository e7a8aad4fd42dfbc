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
SIZE = "100B"
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"
METHOD = (
    "DatagenConnector with `quickstart=payload` (a BYTES value of `payload.size` bytes, ByteArrayConverter; "
    f"key `<task>-<seq>` as a string), `max.records=N`, no rate limit, `batch.size={FILE_BATCH_SIZE}`. Timed like the "
    "file source: from `POST /connectors` to the topic's end offset reaching N."
)
NAME = f"datagen-{SIZE}"


def run(ctx: RunContext) -> list[BenchmarkResult]:
    value_size = VALUE_SIZES[SIZE]
    count = ctx.sizes.connect_records[SIZE]
    systems = [system for system in ctx.systems if system.key == KCONNECT]

    def body(worker: RunningWorker, record: Record) -> None:
        def measure(_: int) -> dict[str, float]:
            topic = ctx.unique("datagen")
            ctx.admin.create_topic(topic)
            try:
                config = {
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
                return throughput(count, value_size, timed_connector_run(ctx, worker, config, topic, count))
            finally:
                ctx.admin.delete_topics([topic])

        samples = repeat(measure, ctx.sizes.warmups, ctx.sizes.repetitions)
        record(NAME, SystemResult.measured(worker.system.label, throughput_metrics(samples)))

    rows = ctx.each_system([NAME], body, systems)
    rows[NAME][JAVA_CONNECT] = SystemResult.not_applicable(
        SYSTEM_LABELS[JAVA_CONNECT], "Apache Kafka ships no datagen connector (Confluent's is a separate plug-in)"
    )
    return [
        ctx.entry(
            NAME,
            GROUP,
            f"Datagen → Kafka, {SIZE} payloads",
            f"datagen {SIZE}",
            METHOD,
            THROUGHPUT_METRICS,
            rows[NAME],
            comparisons=(
                Reference("raw producer", RAW_CLIENT, producer_name(SIZE)),
                Reference("kconnect file source", KCONNECT, source_name(SIZE)),
            ),
            ratio_metrics=(RECORDS_PER_S,),
            settings={"records": count, "value_bytes": value_size},
        )
    ]
