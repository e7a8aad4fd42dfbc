"""The limit: the raw confluent-kafka producer and consumer with the workers' producer settings."""

from __future__ import annotations

from bench.catalog import RAW_CLIENT, SYSTEM_LABELS
from bench.clients import timed_consume, timed_produce
from bench.harness import RunContext, repeat
from bench.results import BenchmarkResult, SystemResult
from bench.scenarios.common import THROUGHPUT_METRICS, payload, throughput, throughput_metrics
from bench.settings import PRODUCER_SETTINGS, VALUE_SIZES

GROUP = "raw"
PRODUCER_METHOD = (
    "One Python process calls `Producer.produce()` with a prebuilt value and no delivery callback, then "
    "`flush()`; timed from the first call to the last acknowledgement, into a new 1-partition topic per "
    "repetition. Producer settings are the workers' (see Settings)."
)
CONSUMER_METHOD = (
    "One Python process reads the producer's topic from the beginning with `Consumer.consume(10000)` on an "
    "assigned partition (no group join), timed from `assign()` to the last record."
)


def producer_name(size: str) -> str:
    return f"raw-producer-{size}"


def measure_size(ctx: RunContext, value_size: int, count: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Producer and consumer figures: each repetition produces into a new topic, then reads it back."""
    value = payload(value_size)
    consumed: dict[str, list[float]] = {}

    def measure(_: int) -> dict[str, float]:
        topic = ctx.unique(f"raw-{value_size}")
        ctx.admin.create_topic(topic)
        try:
            seconds = timed_produce(ctx.bootstrap_servers, PRODUCER_SETTINGS, topic, value, count)
            stored = ctx.admin.end_offset(topic)
            if stored != count:
                raise RuntimeError(f"{topic} holds {stored} records, expected {count}")
            read = throughput(count, value_size, timed_consume(ctx.bootstrap_servers, topic, count))
            for name, figure in read.items():
                consumed.setdefault(name, []).append(figure)
            return throughput(count, value_size, seconds)
        finally:
            ctx.admin.delete_topics([topic])

    produced = repeat(measure, ctx.sizes.warmups, ctx.sizes.repetitions)
    # The consumer ran once per repetition too; drop its warm-up passes the same way.
    return produced, {name: values[ctx.sizes.warmups :] for name, values in consumed.items()}


def run(ctx: RunContext) -> list[BenchmarkResult]:
    entries = []
    for size, value_size in VALUE_SIZES.items():
        count = ctx.sizes.raw_records[size]
        produced, consumed = measure_size(ctx, value_size, count)
        settings = {"records": count, "value_bytes": value_size, "warmups": ctx.sizes.warmups}
        label = SYSTEM_LABELS[RAW_CLIENT]
        entries.append(
            ctx.entry(
                producer_name(size),
                GROUP,
                f"Raw producer, {size} values",
                f"producer {size}",
                PRODUCER_METHOD,
                THROUGHPUT_METRICS,
                {RAW_CLIENT: SystemResult.measured(label, throughput_metrics(produced))},
                settings=settings,
            )
        )
        entries.append(
            ctx.entry(
                f"raw-consumer-{size}",
                GROUP,
                f"Raw consumer, {size} values",
                f"consumer {size}",
                CONSUMER_METHOD,
                THROUGHPUT_METRICS,
                {RAW_CLIENT: SystemResult.measured(label, throughput_metrics(consumed))},
                settings=settings,
            )
        )
    return entries
