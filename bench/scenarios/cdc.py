"""Change data capture from PostgreSQL: kconnect's PostgresConnector next to Debezium 3.6.1's, which runs in Java
Kafka Connect, on the same database server and broker, with the same connector keys and JsonConverter (schemas
on, Debezium's usual deployment) on both sides.

Per system and value size, one connector on a table of its own (its own slot and publication):
- snapshot: N rows in the table before the connector is created; timed from `POST /connectors` until the
  topic holds N records;
- streaming inserts and updates: the connector paused, N rows inserted (then every row updated) in
  transactions of 1,000 rows, the connector resumed; timed from the resume until the topic holds every change.
  The WAL is written before the timing starts, so the rows show how fast each reads and publishes changes,
  not how fast the database writes them. (Debezium's streaming thread keeps reading the WAL into its queue,
  8,192 changes by default, while its task is paused; kconnect reads nothing while paused.)
Then, on a table of its own, single-row insert transactions at a fixed rate: the latency of each change from
its commit (`source.ts_ms`, the commit time the server records) until a consumer on this machine has it.
The worker's peak resident memory (the process and its children) is sampled during the streaming rows.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import orjson
import sqlalchemy as sa
from confluent_kafka import Consumer, TopicPartition

from bench.broker import free_port
from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.harness import Record, RunContext, wait_until
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios.common import payload
from bench.settings import VALUE_SIZES
from bench.stats import rate
from bench.systems.base import RunningWorker, WorkerMode, WorkerSystem
from tests.fixtures.sql.servers import LocalPostgres
from tests.support import debezium

log = logging.getLogger(__name__)

GROUP = "cdc"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
BATCH_ROWS = 1000
PHASES = ("snapshot", "insert", "update")
LATENCY = "cdc-latency"
MEMORY = "cdc-memory"
CHANGES_PER_S = "changes_per_s"


def row_name(phase: str, size: str) -> str:
    return f"cdc-{phase}-{size}"


class JavaWithDebezium:
    """Java Kafka Connect with Debezium's PostgreSQL plug-in on its plugin.path (found by scanning: its jars
    are not all listed for the service loader)."""

    def __init__(self, java: WorkerSystem, plugins: Path) -> None:
        self._java, self._plugins = java, plugins
        self.key, self.label = java.key, f"{java.label} + Debezium {debezium.VERSION}"

    def unavailable_reason(self) -> str | None:
        return self._java.unavailable_reason()

    def mode_unavailable_reason(self, mode: WorkerMode) -> str | None:
        return self._java.mode_unavailable_reason(mode)

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        props = dict(self._java.extra_worker_properties(workdir))
        props["plugin.path"] = f"{props['plugin.path']},{self._plugins}"
        props["plugin.discovery"] = "hybrid_warn"
        return props

    def command(self, worker_properties: Path, workdir: Path, mode: WorkerMode = WorkerMode.STANDALONE) -> list[str]:
        return self._java.command(worker_properties, workdir, mode)

    def settings(self) -> Mapping[str, str]:
        return self._java.settings()

    def group_leader_port(self, workdir: Path) -> int | None:
        return self._java.group_leader_port(workdir)


@contextlib.contextmanager
def logical_postgres() -> Iterator[LocalPostgres]:
    server = LocalPostgres(free_port(), logical_replication=True)
    server.start()  # under pg_ctl, outside the harness's process set: stopped and removed below
    try:
        yield server
    finally:
        server.remove()


def connector_config(server: LocalPostgres, name: str, table: str, snapshot: str) -> dict[str, str]:
    url = sa.make_url(server.url)
    return {
        "connector.class": debezium.CONNECTOR_CLASS,
        "tasks.max": "1",
        "database.hostname": str(url.host),
        "database.port": str(url.port),
        "database.user": str(url.username),
        "database.password": "unused",  # the server trusts loopback
        "database.dbname": str(url.database),
        "topic.prefix": name,
        "plugin.name": "pgoutput",
        "slot.name": name.replace("-", "_"),
        "publication.name": name.replace("-", "_"),
        "publication.autocreate.mode": "filtered",
        "table.include.list": f"public.{table}",
        "snapshot.mode": snapshot,
        "key.converter": JSON_CONVERTER,
        "value.converter": JSON_CONVERTER,
    }


def execute(engine: sa.Engine, *statements: str) -> None:
    with engine.begin() as connection:
        for statement in statements:
            connection.execute(sa.text(statement))


def write_rows(engine: sa.Engine, table: str, first: int, count: int, value_size: int) -> None:
    text = payload(value_size).decode()
    for start in range(first, first + count, BATCH_ROWS):
        end = min(start + BATCH_ROWS, first + count) - 1
        execute(engine, f"INSERT INTO {table} SELECT g, '{text}' FROM generate_series({start}, {end}) g")


def update_rows(engine: sa.Engine, table: str, count: int, value_size: int) -> None:
    text = payload(value_size).decode()[::-1]
    for start in range(0, count, BATCH_ROWS):
        execute(engine, f"UPDATE {table} SET payload = '{text}' WHERE id BETWEEN {start} AND {start + BATCH_ROWS - 1}")


class PeakMemory:
    """The worker's resident memory, sampled every 200 ms on a thread of its own; the peak."""

    def __init__(self, worker: RunningWorker) -> None:
        self._worker, self.peak, self._stop = worker, 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, name="cdc-memory", daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            with contextlib.suppress(Exception):
                self.peak = max(self.peak, self._worker.rss_bytes())

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def drained(ctx: RunContext, worker: RunningWorker, topic: str, count: int, started: float) -> float:
    """Seconds from `started` until `topic` holds `count` records."""

    def done() -> bool:
        worker.ensure_alive()
        return ctx.admin.end_offset(topic) >= count

    return wait_until(done, 120 + count / 1000, interval=0.02, what=f"{count} records in {topic}") - started


def measure_size(
    ctx: RunContext, server: LocalPostgres, engine: sa.Engine, worker: RunningWorker, size: str
) -> dict[str, float]:
    """Changes/s of the snapshot, the inserts and the updates of one table of `size` rows."""
    rows, value_size = ctx.sizes.cdc_rows[size], VALUE_SIZES[size]
    name = ctx.unique(f"cdc-{worker.system.key}")
    table = name.replace("-", "_")
    topic = f"{name}.public.{table}"
    execute(engine, f"CREATE TABLE {table} (id int PRIMARY KEY, payload text NOT NULL)")
    write_rows(engine, table, 0, rows, value_size)
    ctx.admin.create_topic(topic)
    started = time.monotonic()
    worker.rest.create(name, connector_config(server, name, table, "initial"))
    figures = {"snapshot": rate(rows, drained(ctx, worker, topic, rows, started))}
    for phase in ("insert", "update"):
        before = ctx.admin.end_offset(topic)
        worker.rest.pause(name)
        worker.rest.wait_state(name, "PAUSED", 1)
        if phase == "insert":
            write_rows(engine, table, rows, rows, value_size)
        else:
            update_rows(engine, table, 2 * rows, value_size)
        changes = rows if phase == "insert" else 2 * rows
        started = time.monotonic()
        worker.rest.resume(name)
        figures[phase] = rate(changes, drained(ctx, worker, topic, before + changes, started))
    worker.rest.delete(name)
    return figures


def measure_latency(ctx: RunContext, server: LocalPostgres, engine: sa.Engine, worker: RunningWorker) -> list[float]:
    """Milliseconds from each single-row transaction's commit until a consumer has its change."""
    name = ctx.unique(f"cdc-latency-{worker.system.key}")
    table = name.replace("-", "_")
    topic = f"{name}.public.{table}"
    execute(engine, f"CREATE TABLE {table} (id int PRIMARY KEY, payload text NOT NULL)")
    ctx.admin.create_topic(topic)
    worker.rest.create(name, connector_config(server, name, table, "no_data"))
    worker.rest.wait_state(name, "RUNNING", 1)
    consumer = Consumer({"bootstrap.servers": ctx.bootstrap_servers, "group.id": name, "fetch.wait.max.ms": 5})
    consumer.assign([TopicPartition(topic, 0, 0)])
    total = int(ctx.sizes.cdc_latency_rate * ctx.sizes.cdc_latency_seconds)
    text = payload(VALUE_SIZES["100B"]).decode()
    # The slot must exist before the first timed write: a warm-up change, waited for.
    execute(engine, f"INSERT INTO {table} VALUES (-1, '{text}')")
    latencies: list[float] = []
    wait_until(lambda: receive(consumer, latencies) >= 1, 60, what="the warm-up change")
    latencies.clear()

    def write() -> None:
        interval = 1 / ctx.sizes.cdc_latency_rate
        next_at = time.monotonic()
        with engine.connect() as connection:
            for row in range(total):
                connection.execute(sa.text(f"INSERT INTO {table} VALUES ({row}, '{text}')"))
                connection.commit()
                next_at += interval
                time.sleep(max(0.0, next_at - time.monotonic()))

    writer = threading.Thread(target=write, name="cdc-latency-writer", daemon=True)
    writer.start()
    try:
        wait_until(
            lambda: receive(consumer, latencies) >= total,
            ctx.sizes.cdc_latency_seconds + 120,
            interval=0.001,
            what=f"{total} changes",
        )
    finally:
        writer.join()
        consumer.close()
        worker.rest.delete(name)
    return latencies


def receive(consumer: Consumer, latencies: list[float]) -> int:
    """Add the latency of each change now in the consumer's hands (now minus its commit time, in ms); returns how
    many there are."""
    for message in consumer.consume(500, 0.05):
        value = message.value() if message.error() is None else None
        if value:
            latencies.append(time.time() * 1000 - orjson.loads(value)["payload"]["source"]["ts_ms"])
    return len(latencies)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run(ctx: RunContext) -> list[BenchmarkResult]:
    by_key = {system.key: system for system in ctx.systems}
    systems = [by_key[KCONNECT], JavaWithDebezium(by_key[JAVA_CONNECT], debezium.plugin_path())]
    names = [*(row_name(p, s) for p in PHASES for s in VALUE_SIZES), LATENCY, MEMORY]

    with logical_postgres() as server:
        engine = sa.create_engine(server.url)

        def body(worker: RunningWorker, record: Record) -> None:
            label = worker.system.label
            memory = PeakMemory(worker)
            try:
                for size in VALUE_SIZES:
                    figures = measure_size(ctx, server, engine, worker, size)
                    for phase, value in figures.items():
                        metric = Metric("changes/s", True, (value,))
                        record(row_name(phase, size), SystemResult.measured(label, {CHANGES_PER_S: metric}))
                latencies = measure_latency(ctx, server, engine, worker)
                record(
                    LATENCY,
                    SystemResult.measured(
                        label,
                        {
                            "p50_ms": Metric("ms", False, (percentile(latencies, 0.5),)),
                            "p99_ms": Metric("ms", False, (percentile(latencies, 0.99),)),
                        },
                        changes=len(latencies),
                    ),
                )
            finally:
                peak = memory.stop()
            record(MEMORY, SystemResult.measured(label, {"peak_RSS_MiB": Metric("MiB", False, (peak / 2**20,))}))

        try:
            rows = ctx.each_system(names, body, systems)
        finally:
            engine.dispose()
    return entries(ctx, rows)


def entries(ctx: RunContext, rows: Mapping[str, Mapping[str, SystemResult]]) -> list[BenchmarkResult]:
    sizes = ctx.sizes
    java = (Reference("Debezium in Java Connect", JAVA_CONNECT),)
    titles = {
        "snapshot": "initial snapshot of a table",
        "insert": "streaming inserts",
        "update": "streaming updates",
    }
    found = [
        ctx.entry(
            row_name(phase, size),
            GROUP,
            f"PostgreSQL CDC, {titles[phase]}, {size} rows",
            f"{phase} {size}",
            __doc__ or "",
            (CHANGES_PER_S,),
            rows[row_name(phase, size)],
            comparisons=java,
            ratio_metrics=(CHANGES_PER_S,),
            settings={"rows": sizes.cdc_rows[size], "value_bytes": VALUE_SIZES[size], "batch_rows": BATCH_ROWS},
        )
        for phase in PHASES
        for size in VALUE_SIZES
    ]
    found.append(
        ctx.entry(
            LATENCY,
            GROUP,
            f"PostgreSQL CDC, commit to consumer, {sizes.cdc_latency_rate} single-row transactions a second",
            "latency",
            __doc__ or "",
            ("p50_ms", "p99_ms"),
            rows[LATENCY],
            comparisons=java,
            ratio_metrics=("p99_ms",),
            settings={"rate": sizes.cdc_latency_rate, "seconds": sizes.cdc_latency_seconds},
        )
    )
    found.append(
        ctx.entry(
            MEMORY,
            GROUP,
            "PostgreSQL CDC, worker peak resident memory over the rows above",
            "memory",
            __doc__ or "",
            ("peak_RSS_MiB",),
            rows[MEMORY],
            comparisons=java,
            ratio_metrics=("peak_RSS_MiB",),
        )
    )
    return found
