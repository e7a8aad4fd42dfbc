"""The SQL source against real databases and a real broker: each mode on SQLite, PostgreSQL and MariaDB
copies the rows there at start and the rows inserted while it runs, and a restarted worker resumes
from the stored offsets without losing or repeating a row."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.sql_records import JSON_WITH_SCHEMAS, TopicReader, payloads, serial_key, timestamp_type
from tests.support.standalone_workers import all_running, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

MODES = ("bulk", "incrementing", "timestamp", "timestamp+incrementing")


def _create_orders(database: SqlDatabase) -> None:
    database.execute(
        f"CREATE TABLE orders (id {serial_key(database)}, name VARCHAR(40) NOT NULL, "
        f"amount DECIMAL(10,2), updated {timestamp_type(database)} NOT NULL)"
    )


def _insert(database: SqlDatabase, rows: list[tuple[str, str, str]]) -> None:
    values = ", ".join(f"('{name}', {amount}, '{updated}')" for name, amount, updated in rows)
    database.execute(f"INSERT INTO orders (name, amount, updated) VALUES {values}")


def _source_config(database: SqlDatabase, mode: str, prefix: str, **extra: str) -> dict[str, Any]:
    config = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": database.jdbc_url,
        "mode": mode,
        "table.whitelist": "orders",
        "topic.prefix": prefix,
        "poll.interval.ms": "200",
        "batch.max.rows": "2",
        **JSON_WITH_SCHEMAS,
        **extra,
    }
    if mode in ("incrementing", "timestamp+incrementing"):
        config["incrementing.column.name"] = "id"
    if mode in ("timestamp", "timestamp+incrementing"):
        config["timestamp.column.name"] = "updated"
    return config


@pytest.fixture
def reader_factory(kafka_bootstrap: str) -> Iterator[Any]:
    readers: list[TopicReader] = []

    def make(topic: str) -> TopicReader:
        readers.append(TopicReader(kafka_bootstrap, topic))
        return readers[-1]

    yield make
    for reader in readers:
        reader.close()


@pytest.mark.parametrize("mode", MODES)
def test_each_mode_copies_existing_rows_and_rows_inserted_while_running(
    sql_database: SqlDatabase, mode: str, kafka_bootstrap: str, reader_factory: Any, tmp_path: Path
) -> None:
    _create_orders(sql_database)
    # Rows 2-4 share a timestamp, and batches of two rows end inside that run.
    _insert(
        sql_database,
        [
            ("a", "1.50", "2024-01-01 10:00:00"),
            ("b", "2.25", "2024-01-01 10:00:01"),
            ("c", "3.00", "2024-01-01 10:00:01"),
            ("d", "4.75", "2024-01-01 10:00:01"),
            ("e", "5.00", "2024-01-01 10:00:02"),
        ],
    )
    prefix = f"sql-{uuid.uuid4().hex[:8]}-"
    reader = reader_factory(prefix + "orders")
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets")) as (_, client):
        response = client.post(
            "/connectors", json={"name": "orders-source", "config": _source_config(sql_database, mode, prefix)}
        )
        assert response.status_code == 201, response.text
        wait_until(lambda: len(payloads(reader.read())) >= 5, 60, "the first five rows in Kafka")
        _insert(sql_database, [("f", "6.00", "2024-01-02 00:00:00"), ("g", "7.00", "2024-01-02 00:00:01")])
        wait_until(lambda: {"f", "g"} <= {p["name"] for p in payloads(reader.read())}, 60, "the rows added later")
        assert all_running(client, "orders-source", 1)

    records = payloads(reader.read())
    names = [record["name"] for record in records]
    if mode == "bulk":
        assert set(names) == set("abcdefg")  # every poll copies the whole table again
    else:
        assert names == list("abcdefg"), "each row once, in order"
    first = records[0]
    assert first["id"] == 1 and first["updated"] == 1704103200000  # Timestamp: epoch milliseconds
    schema = {f["field"]: f for f in reader.values[0]["schema"]["fields"]}
    assert schema["amount"]["name"] == "org.apache.kafka.connect.data.Decimal"
    assert schema["amount"]["parameters"]["scale"] == "2"
    assert schema["updated"]["name"] == "org.apache.kafka.connect.data.Timestamp"
    assert schema["name"]["type"] == "string" and not schema["name"]["optional"]


def test_restarted_worker_resumes_without_losing_or_repeating_a_row(
    sql_database: SqlDatabase, kafka_bootstrap: str, reader_factory: Any, tmp_path: Path
) -> None:
    _create_orders(sql_database)
    _insert(sql_database, [(f"r{i}", str(i), "2024-01-01 00:00:00") for i in range(300)])
    prefix = f"sql-{uuid.uuid4().hex[:8]}-"
    reader = reader_factory(prefix + "orders")
    config = _source_config(
        sql_database, "incrementing", prefix, **{"batch.max.rows": "10", "poll.interval.ms": "1000"}
    )
    connector = {"name": "resume-source", "config": config}
    props = worker_props(kafka_bootstrap, tmp_path / "offsets")
    with running_worker(props) as (_, client):
        assert client.post("/connectors", json=connector).status_code == 201
        wait_until(lambda: len(reader.read()) >= 30, 60, "some rows copied before the stop")
    _insert(sql_database, [(f"s{i}", str(i), "2024-01-01 00:00:00") for i in range(20)])
    with running_worker(props) as (_, client):
        assert client.post("/connectors", json=connector).status_code == 201
        wait_until(lambda: len(reader.read()) >= 320, 60, "every row after the restart")
        reader.read(1.0)  # anything repeated would arrive with the rest
    ids = [p["id"] for p in payloads(reader.values)]
    assert ids == list(range(1, 321))


def test_tables_are_spread_over_tasks_and_a_new_table_starts_without_a_restart(
    sql_database: SqlDatabase, kafka_bootstrap: str, reader_factory: Any, tmp_path: Path
) -> None:
    for name in ("alpha", "beta", "gamma"):
        sql_database.execute(f"CREATE TABLE {name} (id {serial_key(sql_database)}, v VARCHAR(10) NOT NULL)")
        sql_database.execute(f"INSERT INTO {name} (v) VALUES ('{name}')")
    prefix = f"sql-{uuid.uuid4().hex[:8]}-"
    readers = {name: reader_factory(prefix + name) for name in ("alpha", "beta", "gamma", "delta")}
    config = {
        "connector.class": "SqlSourceConnector",
        "connection.url": sql_database.url,
        "mode": "incrementing",
        "topic.prefix": prefix,
        "poll.interval.ms": "200",
        "table.poll.interval.ms": "500",
        "tasks.max": "2",
        **JSON_WITH_SCHEMAS,
    }
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets")) as (_, client):
        assert client.post("/connectors", json={"name": "spread", "config": config}).status_code == 201
        for name in ("alpha", "beta", "gamma"):
            wait_until(lambda n=name: payloads(readers[n].read()) == [{"id": 1, "v": n}], 60, f"the row of {name}")
        wait_until(lambda: all_running(client, "spread", 2), 30, "two running tasks")
        sql_database.execute(f"CREATE TABLE delta (id {serial_key(sql_database)}, v VARCHAR(10) NOT NULL)")
        sql_database.execute("INSERT INTO delta (v) VALUES ('delta')")
        wait_until(lambda: payloads(readers["delta"].read()) == [{"id": 1, "v": "delta"}], 60, "the new table's row")
        wait_until(lambda: all_running(client, "spread", 2), 30, "two running tasks after the reconfiguration")
        for name in ("alpha", "beta", "gamma"):
            assert payloads(readers[name].read()) == [{"id": 1, "v": name}], "no table copied twice"
