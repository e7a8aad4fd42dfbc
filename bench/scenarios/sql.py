"""The SQL connectors on PostgreSQL (and the sink on MariaDB): next to plain SQLAlchemy loops doing the same work.

Sink: a 1-partition topic holds N schemaless JSON records `{"id": i, "payload": "<value bytes>"}` with
key `{"id": i}`; each repetition writes them into a new, empty table (`id BIGINT PRIMARY KEY,
payload TEXT`), in insert and in upsert mode. kconnect is timed from `POST /connectors` until
`COUNT(*)` reaches N (polled every 100 ms); the plain loop is one Python process that reads the topic
with an assigned consumer, decodes each value and writes each batch with one SQLAlchemy Core
executemany (the same INSERT or `ON CONFLICT` upsert) and a commit. The database's own limit for inserts is
a plain psycopg `COPY … FROM STDIN` of the same N rows, already decoded in memory (no Kafka, no JSON), in one
transaction. The same sink rows run on MariaDB too (`sql-sink-mariadb-*`), next to the same plain loop there
(PyMySQL sends each executemany as multi-row INSERTs; upserts `ON DUPLICATE KEY UPDATE`). The Debezium JDBC
sink in Java Connect is the Java peer; its row says why it could not be measured here.

Source: a table of N such rows is copied to a new topic. kconnect (`mode=incrementing`,
`batch.max.rows=5000`, schemaless JSON values) is timed from `POST /connectors` until the topic's end
offset is N; the plain loop streams `SELECT … ORDER BY id` in batches of 5000 and produces each row as
JSON, timed from the query to the last acknowledgement.

Avro: the sink's own work on Avro values in one process, rows from value columns next to rows from
Structs (`sql_avro`), on the same PostgreSQL.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson
import sqlalchemy as sa
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from sqlalchemy.dialects import mysql, postgresql

from bench.catalog import KCONNECT, PLAIN_SQLALCHEMY, SYSTEM_LABELS
from bench.clients import new_producer
from bench.harness import Record, RunContext, repeat, wait_until
from bench.results import BenchmarkResult, Reference, SystemResult
from bench.scenarios.common import RECORDS_PER_S, THROUGHPUT_METRICS, payload, throughput, throughput_metrics
from bench.scenarios.sql_avro import avro_sink_entries
from bench.settings import PRODUCER_SETTINGS, VALUE_SIZES
from bench.systems.base import RunningWorker
from tests.fixtures.sql.servers import LocalMariaDB, LocalPostgres
from tests.fixtures.tcp_ports import free_port

GROUP = "sql"
DEBEZIUM = "debezium-jdbc"
DEBEZIUM_LABEL = "Debezium JDBC sink (Java Connect)"
DEBEZIUM_UNAVAILABLE = (
    "io.debezium:debezium-connector-jdbc is not served by the Maven Central this machine reaches "
    "(tried 2.7 to 3.6), so Java Connect cannot load it"
)
PLAIN_COPY = "plain-copy"
PLAIN_COPY_LABEL = "plain psycopg COPY, rows in memory (the database's limit)"
SINK_MODES = ("insert", "upsert")
BATCH_ROWS = 5000
JSON_SCHEMALESS = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
}


def sink_name(mode: str, size: str, database: str = "postgresql") -> str:
    # PostgreSQL's rows keep the names they had before MariaDB's were added.
    return f"sql-sink-{mode}-{size}" if database == "postgresql" else f"sql-sink-{database}-{mode}-{size}"


@dataclass(frozen=True)
class Database:
    """Where a sink row writes: the server's SQLAlchemy URL and an engine on it."""

    key: str  # "postgresql" or "mariadb": SQLAlchemy's dialect name
    label: str
    url: str
    engine: sa.Engine


def source_name(size: str) -> str:
    return f"sql-source-{size}"


@contextmanager
def _postgres() -> Iterator[LocalPostgres]:
    server = LocalPostgres(free_port())
    server.start()  # under pg_ctl, outside the harness's process set: stopped and removed below
    try:
        yield server
    finally:
        server.remove()


@contextmanager
def _mariadb() -> Iterator[LocalMariaDB]:
    server = LocalMariaDB(free_port())
    server.start()
    try:
        yield server
    finally:
        server.remove()


def _table(metadata: sa.MetaData, name: str) -> sa.Table:
    return sa.Table(
        name,
        metadata,
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("payload", sa.Text),
    )


def _count(engine: sa.Engine, table: str) -> int:
    with engine.connect() as connection:
        return int(connection.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar_one())


def _fill_topic(ctx: RunContext, topic: str, value_size: int, count: int) -> None:
    ctx.admin.create_topic(topic, 1)
    text = payload(value_size).decode()
    producer = new_producer(ctx.bootstrap_servers, PRODUCER_SETTINGS)
    for i in range(count):
        while True:
            try:
                producer.produce(topic, orjson.dumps({"id": i, "payload": text}), orjson.dumps({"id": i}))
                break
            except BufferError:
                producer.poll(0.005)
    if producer.flush(120):
        raise RuntimeError(f"{topic} was not filled")


def _plain_sink(ctx: RunContext, engine: sa.Engine, topic: str, table: sa.Table, mode: str, count: int) -> float:
    """Seconds for one Python process to copy the topic into `table` with SQLAlchemy Core."""
    if mode == "upsert" and engine.dialect.name == "postgresql":
        insert = postgresql.insert(table)
        statement: Any = insert.on_conflict_do_update(index_elements=["id"], set_={"payload": insert.excluded.payload})
    elif mode == "upsert":
        upsert = mysql.insert(table)
        statement = upsert.on_duplicate_key_update(payload=upsert.inserted.payload)
    else:
        statement = sa.insert(table)
    consumer = Consumer({"bootstrap.servers": ctx.bootstrap_servers, "group.id": ctx.unique("plain-sql")})
    started = time.perf_counter()
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    written = 0
    try:
        with engine.connect() as connection:
            while written < count:
                messages = consumer.consume(BATCH_ROWS, 1.0)
                rows = [orjson.loads(m.value() or b"null") for m in messages if m.error() is None]
                if rows:
                    connection.execute(statement, rows)
                    connection.commit()
                    written += len(rows)
    finally:
        consumer.close()
    return time.perf_counter() - started


def _plain_copy(engine: sa.Engine, table: sa.Table, rows: list[tuple[int, str]]) -> float:
    """Seconds to COPY `rows` into `table` with psycopg and commit: the database's bulk-load speed."""
    connection = engine.raw_connection()
    try:
        started = time.perf_counter()
        cursor = connection.cursor()
        with cursor.copy(f"COPY {table.name} (id, payload) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        connection.commit()
        return time.perf_counter() - started
    finally:
        connection.close()


def _plain_source(ctx: RunContext, engine: sa.Engine, table: str, topic: str) -> float:
    producer: Producer = new_producer(ctx.bootstrap_servers, PRODUCER_SETTINGS)
    producer.list_topics(topic, timeout=10)
    started = time.perf_counter()
    with engine.connect() as connection:
        result = connection.execution_options(stream_results=True).execute(
            sa.text(f"SELECT id, payload FROM {table} ORDER BY id")
        )
        while rows := result.fetchmany(BATCH_ROWS):
            for row in rows:
                value = orjson.dumps({"id": row[0], "payload": row[1]})
                while True:
                    try:
                        producer.produce(topic, value)
                        break
                    except BufferError:
                        producer.poll(0.005)
            producer.poll(0)
    if producer.flush(120):
        raise RuntimeError("the plain source loop's records were not all acknowledged")
    return time.perf_counter() - started


def run(ctx: RunContext) -> list[BenchmarkResult]:
    with _postgres() as server:
        engine = sa.create_engine(server.url)
        try:
            entries = (
                _sink_entries(ctx, Database("postgresql", "PostgreSQL", server.url, engine))
                + _source_entries(ctx, server, engine)
                + avro_sink_entries(ctx, server.url, GROUP)
            )
        finally:
            engine.dispose()
    with _mariadb() as maria:
        admin = sa.create_engine(maria.url)
        with admin.begin() as connection:
            connection.execute(sa.text("CREATE DATABASE kconnect_bench"))
        admin.dispose()
        url = sa.make_url(maria.url).set(database="kconnect_bench").render_as_string(hide_password=False)
        engine = sa.create_engine(url)
        try:
            return entries + _sink_entries(ctx, Database("mariadb", "MariaDB", url, engine))
        finally:
            engine.dispose()


def _sink_entries(ctx: RunContext, database: Database) -> list[BenchmarkResult]:
    engine, db = database.engine, database.key
    counts = {size: ctx.sizes.sql_records[size] for size in VALUE_SIZES}
    topics = {size: ctx.unique(f"sql-sink-input-{value_size}") for size, value_size in VALUE_SIZES.items()}
    for size, value_size in VALUE_SIZES.items():
        _fill_topic(ctx, topics[size], value_size, counts[size])
    names = [sink_name(mode, size, db) for mode in SINK_MODES for size in VALUE_SIZES]

    def fresh_table() -> sa.Table:
        table = _table(sa.MetaData(), ctx.unique("sink_rows").replace("-", "_"))
        table.create(engine)
        return table

    def body(worker: RunningWorker, record: Record) -> None:
        for mode in SINK_MODES:
            for size, value_size in VALUE_SIZES.items():

                def measure(
                    _: int, mode: str = mode, size: str = size, value_size: int = value_size
                ) -> dict[str, float]:
                    table = fresh_table()
                    config = {
                        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
                        "connection.url": database.url,
                        "topics": topics[size],
                        "table.name.format": table.name,
                        "insert.mode": mode,
                        "pk.mode": "record_key",
                        "tasks.max": "1",
                        **JSON_SCHEMALESS,
                    }
                    name = ctx.unique("bench-sql-sink")
                    started = time.monotonic()
                    worker.rest.create(name, config)
                    finished = wait_until(
                        lambda: _count(engine, table.name) >= counts[size],
                        120 + counts[size] / 5000,
                        interval=0.1,
                        what=f"{counts[size]} rows in {table.name}",
                    )
                    worker.rest.delete(name)
                    table.drop(engine)
                    return throughput(counts[size], value_size, finished - started)

                samples = repeat(measure, ctx.sizes.warmups, ctx.sizes.repetitions)
                record(
                    sink_name(mode, size, db), SystemResult.measured(worker.system.label, throughput_metrics(samples))
                )

    kconnect = [system for system in ctx.systems if system.key == KCONNECT]
    try:
        rows = ctx.each_system(names, body, systems=kconnect)
        for mode in SINK_MODES:
            for size, value_size in VALUE_SIZES.items():

                def plain(_: int, mode: str = mode, size: str = size, value_size: int = value_size) -> dict[str, float]:
                    table = fresh_table()
                    try:
                        seconds = _plain_sink(ctx, engine, topics[size], table, mode, counts[size])
                    finally:
                        table.drop(engine)
                    return throughput(counts[size], value_size, seconds)

                samples = repeat(plain, ctx.sizes.warmups, ctx.sizes.repetitions)
                label = SYSTEM_LABELS[PLAIN_SQLALCHEMY]
                rows[sink_name(mode, size, db)][PLAIN_SQLALCHEMY] = SystemResult.measured(
                    label, throughput_metrics(samples)
                )
                rows[sink_name(mode, size, db)][DEBEZIUM] = SystemResult.not_measurable(
                    DEBEZIUM_LABEL, DEBEZIUM_UNAVAILABLE
                )
        for size, value_size in VALUE_SIZES.items() if db == "postgresql" else ():
            decoded = [(i, payload(value_size).decode()) for i in range(counts[size])]

            def copy(
                _: int, size: str = size, value_size: int = value_size, decoded: list[tuple[int, str]] = decoded
            ) -> dict[str, float]:
                table = fresh_table()
                try:
                    seconds = _plain_copy(engine, table, decoded)
                finally:
                    table.drop(engine)
                return throughput(counts[size], value_size, seconds)

            samples = repeat(copy, ctx.sizes.warmups, ctx.sizes.repetitions)
            rows[sink_name("insert", size)][PLAIN_COPY] = SystemResult.measured(
                PLAIN_COPY_LABEL, throughput_metrics(samples)
            )
    finally:
        ctx.admin.delete_topics(list(topics.values()))
    return [
        ctx.entry(
            sink_name(mode, size, db),
            GROUP,
            f"Kafka → {database.label}, SQL sink, {mode}, {size} rows",
            f"{mode} {size}" if db == "postgresql" else f"{database.label} {mode} {size}",
            __doc__ or "",
            THROUGHPUT_METRICS,
            rows[sink_name(mode, size, db)],
            comparisons=(
                Reference("plain SQLAlchemy loop", PLAIN_SQLALCHEMY),
                *((Reference("plain COPY", PLAIN_COPY),) if mode == "insert" and db == "postgresql" else ()),
                Reference("Debezium JDBC", DEBEZIUM),
            ),
            ratio_metrics=(RECORDS_PER_S,),
            settings={"records": counts[size], "value_bytes": VALUE_SIZES[size], "batch_rows": BATCH_ROWS},
        )
        for mode in SINK_MODES
        for size in VALUE_SIZES
    ]


def _source_entries(ctx: RunContext, server: LocalPostgres, engine: sa.Engine) -> list[BenchmarkResult]:
    tables: dict[str, str] = {}
    for size, value_size in VALUE_SIZES.items():
        tables[size] = ctx.unique(f"source_rows_{value_size}").replace("-", "_")
        with engine.begin() as connection:
            _table(sa.MetaData(), tables[size]).create(connection)
            connection.execute(
                sa.text(
                    f"INSERT INTO {tables[size]} SELECT g, :text "
                    f"FROM generate_series(1, {ctx.sizes.sql_records[size]}) g"
                ),
                {"text": payload(value_size).decode()},
            )
    names = [source_name(size) for size in VALUE_SIZES]

    def body(worker: RunningWorker, record: Record) -> None:
        for size, value_size in VALUE_SIZES.items():
            count = ctx.sizes.sql_records[size]

            def measure(_: int, size: str = size, value_size: int = value_size, count: int = count) -> dict[str, float]:
                prefix = ctx.unique("sql-source") + "-"
                topic = prefix + tables[size]
                ctx.admin.create_topic(topic, 1)
                config = {
                    "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
                    "connection.url": server.url,
                    "mode": "incrementing",
                    "incrementing.column.name": "id",
                    "table.whitelist": tables[size],
                    "topic.prefix": prefix,
                    "batch.max.rows": str(BATCH_ROWS),
                    **JSON_SCHEMALESS,
                }
                name = ctx.unique("bench-sql-source")
                started = time.monotonic()
                try:
                    worker.rest.create(name, config)
                    finished = wait_until(
                        lambda: ctx.admin.end_offset(topic) >= count, 120 + count / 5000, what=f"{count} in {topic}"
                    )
                    worker.rest.delete(name)
                finally:
                    ctx.admin.delete_topics([topic])
                return throughput(count, value_size, finished - started)

            samples = repeat(measure, ctx.sizes.warmups, ctx.sizes.repetitions)
            record(source_name(size), SystemResult.measured(worker.system.label, throughput_metrics(samples)))

    kconnect = [system for system in ctx.systems if system.key == KCONNECT]
    rows = ctx.each_system(names, body, systems=kconnect)
    for size, value_size in VALUE_SIZES.items():
        count = ctx.sizes.sql_records[size]

        def plain(_: int, size: str = size, value_size: int = value_size, count: int = count) -> dict[str, float]:
            topic = ctx.unique("sql-plain-source")
            ctx.admin.create_topic(topic, 1)
            try:
                seconds = _plain_source(ctx, engine, tables[size], topic)
            finally:
                ctx.admin.delete_topics([topic])
            return throughput(count, value_size, seconds)

        samples = repeat(plain, ctx.sizes.warmups, ctx.sizes.repetitions)
        label = SYSTEM_LABELS[PLAIN_SQLALCHEMY]
        rows[source_name(size)][PLAIN_SQLALCHEMY] = SystemResult.measured(label, throughput_metrics(samples))
    return [
        ctx.entry(
            source_name(size),
            GROUP,
            f"PostgreSQL → Kafka, SQL source, {size} rows",
            f"source {size}",
            __doc__ or "",
            THROUGHPUT_METRICS,
            rows[source_name(size)],
            comparisons=(Reference("plain SQLAlchemy loop", PLAIN_SQLALCHEMY),),
            ratio_metrics=(RECORDS_PER_S,),
            settings={
                "records": ctx.sizes.sql_records[size],
                "value_bytes": VALUE_SIZES[size],
                "batch_rows": BATCH_ROWS,
            },
        )
        for size in VALUE_SIZES
    ]
