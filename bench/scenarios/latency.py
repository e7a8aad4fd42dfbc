"""End-to-end latency at a fixed rate: Kafka → FileStreamSink → file, and the raw consumer as the limit.

One single-threaded loop of ours both sends and observes, so send and arrival times come from one
monotonic clock: it sends records at a fixed rate, each value stamped with its send time, and tails
the sink's output file (or polls a raw consumer), timing each line when it becomes readable. The loop
sleeps 0.5 ms between turns, which bounds the observation error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from bench.catalog import JAVA_CONNECT, RAW_CLIENT, SYSTEM_LABELS
from bench.clients import new_producer
from bench.harness import Record, RunContext, wait_until
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.settings import FILE_SINK, PRODUCER_SETTINGS
from bench.stats import percentile
from bench.systems.base import RunningWorker

GROUP = "latency"
NAME = "latency-sink"
VALUE_SIZE = 100
PROBE_PRODUCER = {**PRODUCER_SETTINGS, "linger.ms": "0"}
METRICS = ("p50_ms", "p99_ms")
METHOD = (
    f"Our producer (the workers' settings but `linger.ms=0`) sends {VALUE_SIZE}-byte values at a fixed "
    "rate, each carrying its send time; the sink connector (FileStreamSinkConnector, `tasks.max=1`) writes "
    "them to a file that the same process tails, so latency = time a line is readable in the file minus "
    "send time, on one clock. One primer record goes through first (so the group join is over), then the "
    "first seconds are sent but not counted. The raw row replaces the worker by a confluent-kafka consumer "
    "polled in the same loop: the broker round trip alone."
)

# One observation: (sequence number, send time ns, seen time ns).
Observer = Callable[[], list[tuple[int, int, int]]]


def stamped_value(sequence: int, sent_ns: int) -> bytes:
    return f"{sequence:010d} {sent_ns:020d} ".encode().ljust(VALUE_SIZE, b"x")


def parse_value(value: bytes) -> tuple[int, int]:
    sequence, sent_ns, _ = value.split(b" ", 2)
    return int(sequence), int(sent_ns)


class FileTail:
    """Reads the complete lines appended to a file since the last call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._position = 0
        self._partial = b""

    def __call__(self) -> list[tuple[int, int, int]]:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._position)
                data = handle.read()
        except FileNotFoundError:
            return []
        seen = time.perf_counter_ns()
        if not data:
            return []
        self._position += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        return [(*parse_value(line), seen) for line in lines if line]


class ConsumerTail:
    def __init__(self, consumer: Consumer) -> None:
        self.consumer = consumer

    def __call__(self) -> list[tuple[int, int, int]]:
        messages = self.consumer.consume(num_messages=1000, timeout=0)
        seen = time.perf_counter_ns()
        return [(*parse_value(value), seen) for m in messages if m.error() is None and (value := m.value()) is not None]


def drive(
    producer: Producer, topic: str, rate: int, warmup_s: float, measure_s: float, observe: Observer
) -> tuple[list[float], int]:
    """Send at `rate` for warm-up + measurement; latencies (ms) of the measured records, and how many were lost."""
    interval_ns = 1_000_000_000 / rate
    warmup_count = int(rate * warmup_s)
    total = warmup_count + int(rate * measure_s)
    latencies: list[float] = []
    seen = 0
    sent = 0
    start = time.perf_counter_ns()
    deadline = start + int((warmup_s + measure_s + 30) * 1e9)
    while seen < total:
        now = time.perf_counter_ns()
        if now > deadline:
            break
        while sent < total and start + sent * interval_ns <= now:
            producer.produce(topic, stamped_value(sent, time.perf_counter_ns()))
            sent += 1
        producer.poll(0)
        for sequence, sent_ns, seen_ns in observe():
            seen += 1
            if sequence >= warmup_count:
                latencies.append((seen_ns - sent_ns) / 1e6)
        time.sleep(0.0005)
    return latencies, total - seen


def latency_row(label: str, latencies: list[float], lost: int) -> SystemResult:
    if not latencies:
        return SystemResult.failed(label, "no record arrived in the measured window")
    figures = {"p50_ms": percentile(latencies, 0.5), "p99_ms": percentile(latencies, 0.99)}
    metrics = {name: Metric("ms", False, (value,)) for name, value in figures.items()}
    return SystemResult.measured(
        label, metrics, records=len(latencies), max_ms=round(max(latencies), 1), not_arrived=lost
    )


def raw_row(ctx: RunContext) -> SystemResult:
    topic = ctx.unique("latency-raw")
    ctx.admin.create_topic(topic)
    consumer = Consumer({"bootstrap.servers": ctx.bootstrap_servers, "group.id": ctx.unique("latency"), "log_level": 0})
    try:
        # The topic is new and empty: reading from its beginning misses nothing, unlike OFFSET_END,
        # which is resolved only at the first fetch.
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        producer = new_producer(ctx.bootstrap_servers, PROBE_PRODUCER)
        producer.list_topics(topic, timeout=10)
        sizes = ctx.sizes
        latencies, lost = drive(
            producer,
            topic,
            sizes.latency_rate,
            sizes.latency_warmup_seconds,
            sizes.latency_seconds,
            ConsumerTail(consumer),
        )
        return latency_row(SYSTEM_LABELS[RAW_CLIENT], latencies, lost)
    finally:
        consumer.close()
        ctx.admin.delete_topics([topic])


def run(ctx: RunContext) -> list[BenchmarkResult]:
    sizes = ctx.sizes

    def body(worker: RunningWorker, record: Record) -> None:
        topic = ctx.unique("latency")
        ctx.admin.create_topic(topic)
        output = worker.workdir / "latency.txt"
        name = ctx.unique("bench-latency")
        try:
            worker.rest.create(
                name, {"connector.class": FILE_SINK, "tasks.max": "1", "topics": topic, "file": str(output)}
            )
            worker.rest.wait_state(name, "RUNNING", tasks=1)
            producer = new_producer(ctx.bootstrap_servers, PROBE_PRODUCER)
            tail = FileTail(output)
            # One primer record through the whole path first: the group join is not part of latency.
            producer.produce(topic, stamped_value(0, time.perf_counter_ns()))
            producer.flush(10)
            wait_until(lambda: bool(tail()), 60, what="the primer record in the sink file")
            latencies, lost = drive(
                producer, topic, sizes.latency_rate, sizes.latency_warmup_seconds, sizes.latency_seconds, tail
            )
            worker.ensure_alive()
            record(NAME, latency_row(worker.system.label, latencies, lost))
        finally:
            ctx.admin.delete_topics([topic])

    rows = ctx.each_system([NAME], body)
    try:
        rows[NAME][RAW_CLIENT] = raw_row(ctx)
    except Exception as error:
        rows[NAME][RAW_CLIENT] = SystemResult.failed(SYSTEM_LABELS[RAW_CLIENT], str(error))
    return [
        ctx.entry(
            NAME,
            GROUP,
            f"Producer → Kafka → FileStreamSink → file at {sizes.latency_rate} records/s",
            "sink path",
            METHOD,
            METRICS,
            rows[NAME],
            comparisons=(Reference("raw consumer", RAW_CLIENT), Reference("Java Connect", JAVA_CONNECT)),
            ratio_metrics=METRICS,
            settings={
                "rate_per_s": sizes.latency_rate,
                "measured_seconds": sizes.latency_seconds,
                "warmup_seconds": sizes.latency_warmup_seconds,
                "value_bytes": VALUE_SIZE,
                "probe_producer.linger.ms": 0,
            },
        )
    ]
