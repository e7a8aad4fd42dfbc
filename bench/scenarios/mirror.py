"""Mirroring between two clusters: kconnect's MirrorMaker 2 next to Java's, both in dedicated mode from the same
mm2.properties (one node each), with the same two single-broker clusters and the same 8-partition topics. The
method of each measurement is in `METHODS`."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from bench.broker import KafkaAdmin, dedicated_broker, free_port
from bench.catalog import JAVA_CONNECT
from bench.clients import new_producer
from bench.harness import RunContext, repeat, short_reason, wait_until
from bench.java_connect import jars as java_jars
from bench.procs import ManagedProcess, tree_rss_bytes
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios.common import RECORDS_PER_S, THROUGHPUT_METRICS, payload, throughput, throughput_metrics
from bench.scenarios.latency import PROBE_PRODUCER, ConsumerTail, drive, latency_row, stamped_value
from bench.scenarios.sink import fill_topic
from bench.settings import CONSUMER_SETTINGS, PRODUCER_SETTINGS, VALUE_SIZES
from bench.systems.mirror import JavaMirror, KconnectMirror, MirrorSystem

log = logging.getLogger(__name__)

GROUP = "mirror"
PARTITIONS = 8
TASKS = 4
LATENCY_RATE = 10_000
REFRESH_TOPICS_SECONDS = 5
RSS_SAMPLE_EVERY_S = 0.25
MB = 1024 * 1024

THROUGHPUT = "mirror-throughput-{size}"
LATENCY = "mirror-latency"
NEW_TOPIC = "mirror-new-topic"
MEMORY = "mirror-memory"
LATENCY_METRICS = ("p50_ms", "p99_ms")
NEW_TOPIC_METRICS = ("seconds",)
MEMORY_METRICS = ("peak_RSS_MiB", "RSS_MiB_at_10k")

JAVA = Reference("Java MM2", JAVA_CONNECT)

SETUP = (
    "Both mirrors run in dedicated mode (`kconnect mirror mm2.properties`; Java's "
    "`org.apache.kafka.connect.mirror.MirrorMaker` with connect-mirror-maker.sh's JVM flags), one node each, from "
    f"the same file: one flow between two single-broker clusters, `tasks.max={TASKS}`, the benchmark's producer "
    "settings as `<target>.producer.*` but for idempotence, which each leaves at its own default (Java's Connect "
    "turns it off; kconnect's mirror source makes its producer gap-less, which needs it), MirrorMaker's defaults "
    f"otherwise (checkpoints, heartbeats and topic config sync on). Topics have {PARTITIONS} partitions. "
)
METHODS = {
    THROUGHPUT: SETUP
    + "A source topic is filled with N records before the mirror starts. Timed from the first record readable on "
    "the target until all N are (the sum of the remote topic's high watermarks, polled every 20 ms), so start-up "
    "and topic creation are not counted. Each repetition is a new mirror process with cluster aliases of its own, "
    "so its remote and internal topics are new.",
    LATENCY: SETUP
    + f"With the mirror running, our producer (`linger.ms=0`) sends {LATENCY_RATE:,} records/s of 100 bytes to "
    "the source topic, each value stamped with its send time; a consumer of the remote topic on the target, "
    "polled in the same loop, times each arrival on the same clock (the latency group's loop). One primer record "
    "goes through first, then the warm-up seconds are sent but not counted.",
    NEW_TOPIC: SETUP
    + "With the mirror running, a new topic matching its `topics` pattern is created on the source and one record "
    "produced to it; timed from the creation until that record is readable on the target. Both mirrors look for "
    f"new topics every `refresh.topics.interval.seconds={REFRESH_TOPICS_SECONDS}` (Java's default is 600).",
    MEMORY: SETUP
    + "Resident memory of the mirror process and its children: the peak (sampled every 0.25 s) while mirroring "
    "the 1 KB topic, and the value at the end of the fixed-rate latency run.",
}


def throughput_name(size: str) -> str:
    return THROUGHPUT.format(size=size)


@dataclass
class Clusters:
    """The run's broker as the source cluster and a second broker, started for this group, as the target."""

    source: KafkaAdmin
    target: KafkaAdmin


@dataclass
class RunningMirror:
    """One dedicated-mode mirror process with cluster aliases of its own: `source_alias -> target_alias`."""

    system: MirrorSystem
    process: ManagedProcess
    source_alias: str
    target_alias: str
    rss_samples: list[float] = field(default_factory=list)
    _last_sample: float = 0.0

    def remote(self, topic: str) -> str:
        return f"{self.source_alias}.{topic}"  # DefaultReplicationPolicy

    def ensure_alive(self) -> None:
        if not self.process.alive():
            raise RuntimeError(f"{self.system.label} exited with {self.process.returncode}:\n{self.process.log_tail()}")

    def sample_rss(self) -> None:
        now = time.monotonic()
        if now - self._last_sample >= RSS_SAMPLE_EVERY_S:
            self._last_sample = now
            self.rss_samples.append(tree_rss_bytes(self.process.pid) / MB)


# The benchmark's producer settings, less `enable.idempotence=false`: each mirror keeps its own default there.
# Java's Connect disables idempotence whatever the producer's default (Worker.baseProducerConfigs); kconnect's
# mirror source makes its producer gap-less (idempotent), which lets it ask for two delivery reports per run of
# records instead of one per record (docs/mirror.md, "Speed").
MIRROR_PRODUCER_SETTINGS = {key: value for key, value in PRODUCER_SETTINGS.items() if key != "enable.idempotence"}


def mm2_properties(clusters: Clusters, source: str, target: str, topics: str) -> dict[str, str]:
    """One flow source -> target as a DR team writes it for single-broker clusters, with the benchmark's producer
    settings for the target's producer (both mirrors' records go through it) and Java's defaults otherwise."""
    internal = ("checkpoints.topic", "heartbeats.topic", "offset-syncs.topic", "config.storage", "offset.storage")
    return {
        "clusters": f"{source}, {target}",
        f"{source}.bootstrap.servers": clusters.source.bootstrap_servers,
        f"{target}.bootstrap.servers": clusters.target.bootstrap_servers,
        f"{source}->{target}.enabled": "true",
        f"{source}->{target}.topics": topics,
        "tasks.max": str(TASKS),
        "refresh.topics.interval.seconds": str(REFRESH_TOPICS_SECONDS),
        "replication.factor": "1",
        **{f"{topic}.replication.factor": "1" for topic in (*internal, "status.storage")},
        **{f"{target}.producer.{key}": value for key, value in MIRROR_PRODUCER_SETTINGS.items()},
        # Java ignores it (its dedicated mode serves no REST by default); kconnect's would take 8083.
        "listeners": f"http://127.0.0.1:{free_port()}",
    }


def write_properties(path: Path, props: Mapping[str, str]) -> None:
    path.write_text("".join(f"{key}={value}\n" for key, value in props.items()))


@contextmanager
def running_mirror(ctx: RunContext, clusters: Clusters, system: MirrorSystem, topics: str) -> Iterator[RunningMirror]:
    """A mirror of `topics` (a regex) with new aliases; stopped, and every topic it made removed, on exit."""
    tag = uuid.uuid4().hex[:8]
    source, target = f"s{tag}", f"t{tag}"
    workdir = ctx.scratch(f"mirror-{system.key}")
    properties = workdir / "mm2.properties"
    write_properties(properties, mm2_properties(clusters, source, target, topics))
    process = ctx.processes.spawn(system.key, system.command(properties, workdir), workdir / "mirror.log", cwd=workdir)
    try:
        yield RunningMirror(system, process, source, target)
    finally:
        ctx.processes.stop(process)
        for admin in (clusters.source, clusters.target):
            admin.delete_topics([name for name in admin.topics_with_prefix("") if tag in name])


def wait_mirrored(mirror: RunningMirror, target: KafkaAdmin, topic: str, count: int, timeout: float) -> float:
    """The monotonic time at which `count` records of `topic` are readable on the target."""

    def done() -> bool:
        mirror.ensure_alive()
        mirror.sample_rss()
        return target.end_offset(mirror.remote(topic), PARTITIONS) >= count

    return wait_until(done, timeout, what=f"{count} records of {topic} on the target")


def measure_throughput(
    ctx: RunContext, clusters: Clusters, system: MirrorSystem, topic: str, size: str
) -> tuple[dict[str, float], float]:
    """Throughput of one repetition, and the peak RSS (MiB) of the mirror during it."""
    count, value_size = ctx.sizes.mirror_records[size], VALUE_SIZES[size]
    with running_mirror(ctx, clusters, system, topic) as mirror:
        first = wait_mirrored(mirror, clusters.target, topic, 1, 180)
        last = wait_mirrored(mirror, clusters.target, topic, count, 120 + count / 10_000)
        log.info("%s mirrored %d %s records in %.2f s", system.label, count, size, last - first)
        return throughput(count, value_size, last - first), max(mirror.rss_samples, default=0.0)


def target_consumer(clusters: Clusters, topic: str) -> Consumer:
    group = f"bench-{uuid.uuid4().hex}"
    consumer = Consumer(
        {"bootstrap.servers": clusters.target.bootstrap_servers, "group.id": group, "log_level": 0} | CONSUMER_SETTINGS
    )
    consumer.assign([TopicPartition(topic, partition, OFFSET_BEGINNING) for partition in range(PARTITIONS)])
    return consumer


def new_topic_seconds(ctx: RunContext, clusters: Clusters, mirror: RunningMirror, topic: str) -> float:
    """Seconds from creating `topic` on the source (and producing one record to it) until that record is readable
    on the target."""
    started = time.monotonic()
    clusters.source.create_topic(topic, PARTITIONS)
    producer = new_producer(clusters.source.bootstrap_servers, PROBE_PRODUCER)
    producer.produce(topic, b"new-topic")
    producer.flush(10)
    remote = mirror.remote(topic)

    def arrived() -> bool:
        mirror.ensure_alive()
        return clusters.target.partitions(remote) == PARTITIONS and clusters.target.end_offset(remote, PARTITIONS) >= 1

    bound = 120 + 2 * REFRESH_TOPICS_SECONDS
    return wait_until(arrived, bound, interval=0.05, what=f"{remote} on the target") - started


def measure_running(
    ctx: RunContext, clusters: Clusters, system: MirrorSystem
) -> tuple[SystemResult, SystemResult, float]:
    """The latency row, the new-topic row and the RSS (MiB) at the end of the fixed-rate run, from one mirror."""
    prefix = ctx.unique("mirror-live")
    topic = f"{prefix}-latency"
    clusters.source.create_topic(topic, PARTITIONS)
    try:
        with running_mirror(ctx, clusters, system, f"{prefix}-.*") as mirror:
            remote = mirror.remote(topic)

            def created() -> bool:
                mirror.ensure_alive()
                return clusters.target.partitions(remote) == PARTITIONS

            wait_until(created, 180, what=f"{remote} on the target")
            consumer = target_consumer(clusters, remote)
            try:
                tail = ConsumerTail(consumer)
                producer = new_producer(clusters.source.bootstrap_servers, PROBE_PRODUCER)
                # One primer record through the whole path first: start-up and discovery are not latency.
                producer.produce(topic, stamped_value(0, time.perf_counter_ns()))
                producer.flush(10)
                wait_until(lambda: bool(tail()), 120, what="the primer record on the target")
                sizes = ctx.sizes
                latencies, lost = drive(
                    producer,
                    topic,
                    LATENCY_RATE,
                    sizes.mirror_latency_warmup_seconds,
                    sizes.mirror_latency_seconds,
                    tail,
                )
            finally:
                consumer.close()
            mirror.ensure_alive()
            rss = tree_rss_bytes(mirror.process.pid) / MB
            latency = latency_row(system.label, latencies, lost)
            seconds = [
                new_topic_seconds(ctx, clusters, mirror, f"{prefix}-new-{index}")
                for index in range(ctx.sizes.mirror_new_topics)
            ]
            new_topic = SystemResult.measured(system.label, {"seconds": Metric("s", False, tuple(seconds))})
            return latency, new_topic, rss
    finally:
        clusters.source.delete_topics(clusters.source.topics_with_prefix(prefix))


def mirror_systems(kafka_version: str) -> tuple[list[MirrorSystem], dict[str, str]]:
    jars, missing = java_jars.fetch_or_reason(kafka_version)
    systems: list[MirrorSystem] = [KconnectMirror(), JavaMirror(jars, kafka_version)]
    unavailable = {system.key: reason for system in systems if (reason := system.unavailable_reason())}
    if missing:
        unavailable[JAVA_CONNECT] = missing
    return systems, unavailable


def measure_system(
    ctx: RunContext, clusters: Clusters, system: MirrorSystem, inputs: Mapping[str, str]
) -> dict[str, SystemResult]:
    rows: dict[str, SystemResult] = {}
    peaks: list[float] = []
    for size, topic in inputs.items():

        def once(_: int, size: str = size, topic: str = topic) -> dict[str, float]:
            figures, peak = measure_throughput(ctx, clusters, system, topic, size)
            if size == "1KB":
                peaks.append(peak)
            return figures

        samples = repeat(once, ctx.sizes.warmups, ctx.sizes.repetitions)
        rows[throughput_name(size)] = SystemResult.measured(system.label, throughput_metrics(samples))
    latency, new_topic, rss = measure_running(ctx, clusters, system)
    rows[LATENCY], rows[NEW_TOPIC] = latency, new_topic
    rows[MEMORY] = SystemResult.measured(
        system.label,
        {
            "peak_RSS_MiB": Metric("MiB", False, tuple(peaks[ctx.sizes.warmups :] or peaks)),
            "RSS_MiB_at_10k": Metric("MiB", False, (rss,)),
        },
    )
    return rows


def run(ctx: RunContext) -> list[BenchmarkResult]:
    from local_kafka import default_version

    version = default_version()
    systems, unavailable = mirror_systems(version)
    names = [*(throughput_name(size) for size in VALUE_SIZES), LATENCY, NEW_TOPIC, MEMORY]
    rows: dict[str, dict[str, SystemResult]] = {name: {} for name in names}
    with dedicated_broker(ctx.workdir / "kafka-target") as target_cluster:
        for node in target_cluster.status().nodes:
            if node.pid is not None:
                ctx.processes.watch_group(node.pid)
        target = KafkaAdmin(target_cluster.bootstrap_servers)
        clusters = Clusters(ctx.admin, target)
        inputs: dict[str, str] = {}
        try:
            for size, value_size in VALUE_SIZES.items():
                inputs[size] = ctx.unique(f"mirror-input-{value_size}")
                fill_topic(ctx, inputs[size], payload(value_size), ctx.sizes.mirror_records[size], PARTITIONS)
            for system in systems:
                reason = unavailable.get(system.key)
                if reason is not None:
                    for name in names:
                        rows[name][system.key] = SystemResult.not_measurable(system.label, reason)
                    continue
                try:
                    rows_of_system = measure_system(ctx, clusters, system, inputs)
                except Exception as error:
                    log.exception("%s failed", system.label)
                    rows_of_system = {name: SystemResult.failed(system.label, short_reason(error)) for name in names}
                for name, row in rows_of_system.items():
                    rows[name][system.key] = row.in_mode("dedicated, 1 node")
        finally:
            ctx.admin.delete_topics(list(inputs.values()))
            target.close()
    settings = {
        "partitions": PARTITIONS,
        "tasks.max": TASKS,
        "refresh.topics.interval.seconds": REFRESH_TOPICS_SECONDS,
        "kafka_version": version,
        **{f"target.producer.{key}": value for key, value in MIRROR_PRODUCER_SETTINGS.items()},
        **{f"{system.key}.{key}": value for system in systems for key, value in system.settings().items()},
    }
    return [
        *(
            ctx.entry(
                throughput_name(size),
                GROUP,
                f"Mirror {size} records between two clusters",
                size,
                METHODS[THROUGHPUT],
                THROUGHPUT_METRICS,
                rows[throughput_name(size)],
                comparisons=(JAVA,),
                ratio_metrics=(RECORDS_PER_S,),
                settings={**settings, "records": ctx.sizes.mirror_records[size], "value_bytes": VALUE_SIZES[size]},
            )
            for size in VALUE_SIZES
        ),
        ctx.entry(
            LATENCY,
            GROUP,
            f"Mirror replication latency at {LATENCY_RATE:,} records/s",
            "latency",
            METHODS[LATENCY],
            LATENCY_METRICS,
            rows[LATENCY],
            comparisons=(JAVA,),
            ratio_metrics=LATENCY_METRICS,
            settings={
                **settings,
                "rate_per_s": LATENCY_RATE,
                "measured_seconds": ctx.sizes.mirror_latency_seconds,
                "warmup_seconds": ctx.sizes.mirror_latency_warmup_seconds,
                "probe_producer.linger.ms": 0,
            },
        ),
        ctx.entry(
            NEW_TOPIC,
            GROUP,
            "A new source topic's first record readable on the target",
            "new topic",
            METHODS[NEW_TOPIC],
            NEW_TOPIC_METRICS,
            rows[NEW_TOPIC],
            comparisons=(JAVA,),
            ratio_metrics=NEW_TOPIC_METRICS,
            settings={**settings, "topics": ctx.sizes.mirror_new_topics},
        ),
        ctx.entry(
            MEMORY,
            GROUP,
            "Mirror resident memory",
            "memory",
            METHODS[MEMORY],
            MEMORY_METRICS,
            rows[MEMORY],
            comparisons=(JAVA,),
            ratio_metrics=MEMORY_METRICS,
            settings=settings,
        ),
    ]
