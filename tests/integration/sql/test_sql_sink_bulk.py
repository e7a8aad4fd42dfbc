"""The SQL sink's bulk path on a real PostgreSQL (COPY, and COPY into a staging table for upserts, updates and
deletes), run through connect.testing's harness (the worker's record path over Kafka in memory): the rows it
leaves are the ones the INSERT statements left, a refused row costs the rest of the batch no more than a
few bulk attempts, and a run whose values COPY would read otherwise keeps the INSERT statements."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from connect.api import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    DATE_SCHEMA,
    FLOAT64_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    Struct,
)
from connect.testing import ConnectorHarness, wait_for
from connectors.sql import pg_bulk, sink_writer
from tests.fixtures.sql.plugin import SqlDatabase

# The sql group's database fixture, on PostgreSQL only.
pytestmark = [pytest.mark.integration, pytest.mark.parametrize("sql_database", ["postgresql"], indirect=True)]

KEY = Schema.struct([("id", INT64_SCHEMA)], name="key")
VALUE = Schema.struct(
    [
        ("id", INT64_SCHEMA),
        ("name", OPTIONAL_STRING_SCHEMA),
        ("amount", FLOAT64_SCHEMA),
        ("price", Schema.decimal(2)),
        ("active", BOOLEAN_SCHEMA),
        ("blob", BYTES_SCHEMA),
        ("day", DATE_SCHEMA),
        ("at", TIME_SCHEMA),
        ("stamp", TIMESTAMP_SCHEMA),
    ],
    name="value",
)
OSLO_NOON = dt.datetime(2026, 6, 1, 10, 0, tzinfo=dt.UTC)  # 12:00 wall time in Oslo (CEST)


@pytest.fixture
def harness() -> Iterator[ConnectorHarness]:
    with ConnectorHarness() as harness:
        yield harness


@pytest.fixture
def bulk_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The operations written through COPY, in order."""
    calls: list[str] = []
    original = pg_bulk.write

    def counting(connection: Any, table: Any, operation: str, *args: Any) -> None:
        calls.append(operation)
        original(connection, table, operation, *args)

    monkeypatch.setattr(pg_bulk, "write", counting)
    return calls


def value(id_: int, name: str | None = "n") -> Struct:
    return Struct(
        VALUE,
        {
            "id": id_,
            "name": name,
            "amount": id_ * 1.5,
            "price": Decimal(id_) / 4,
            "active": id_ % 2 == 0,
            "blob": bytes([id_ % 256, 0, 255]),
            "day": dt.date(2026, 1, 1) + dt.timedelta(days=id_),
            "at": dt.time(12, 30, 15, 123000),
            "stamp": OSLO_NOON,
        },
    )


def send(harness: ConnectorHarness, topic: str, ids: range, **names: str | None) -> None:
    for id_ in ids:
        key = Struct(KEY, {"id": id_})
        harness.send(topic, value(id_, names.get(str(id_), "n")), key, value_schema=VALUE, key_schema=KEY)


def sink(database: SqlDatabase, topic: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "connection.url": database.jdbc_url,
        "topics": topic,
        "table.name.format": "items",
        "pk.mode": "record_key",
        "auto.create": "true",
        "db.timezone": "Europe/Oslo",
        **extra,
    }


def rows(database: SqlDatabase, count: int) -> list[tuple[Any, ...]]:
    def written() -> list[tuple[Any, ...]] | None:
        try:
            found = database.rows("SELECT * FROM items ORDER BY id")
        except Exception:  # not created yet
            return None
        return found if len(found) >= count else None

    return wait_for(written, 30, f"{count} rows in items")


def test_inserts_through_copy_store_every_type_as_the_insert_statements_did(
    sql_database: SqlDatabase, harness: ConnectorHarness, bulk_calls: list[str]
) -> None:
    send(harness, "items", range(1, 4))
    harness.start("items-sink", sink(sql_database, "items"))

    stored = rows(sql_database, 3)
    assert bulk_calls and set(bulk_calls) == {"insert"}
    assert stored[0] == (
        1,
        "n",
        1.5,
        Decimal("0.25"),
        False,
        bytes([1, 0, 255]),
        dt.date(2026, 1, 2),
        dt.time(12, 30, 15, 123000),
        dt.datetime(2026, 6, 1, 12, 0),  # a timestamp column holds the instant's wall time in db.timezone
    )


def test_upserts_updates_and_deletes_go_through_a_staging_table(
    sql_database: SqlDatabase, harness: ConnectorHarness, bulk_calls: list[str]
) -> None:
    send(harness, "items", range(1, 6))
    send(harness, "items", range(1, 3), **{"1": "again", "2": "again"})  # the same keys later: last one wins
    harness.send("items", None, Struct(KEY, {"id": 3}), key_schema=KEY)  # a tombstone
    harness.start("items-sink", sink(sql_database, "items", **{"insert.mode": "upsert", "delete.enabled": "true"}))

    wait_for(
        lambda: [r[:2] for r in rows(sql_database, 4)] == [(1, "again"), (2, "again"), (4, "n"), (5, "n")],
        30,
        "upserted and deleted rows",
    )
    assert {"upsert", "delete"} <= set(bulk_calls)

    harness.stop("items-sink")
    bulk_calls.clear()
    update = sink(sql_database, "updates", **{"insert.mode": "update"})
    send(harness, "updates", range(4, 7), **{"4": "updated", "6": "nowhere"})  # 6 has no row: nothing happens
    harness.start("update-sink", update)
    wait_for(lambda: rows(sql_database, 4)[2][:2] == (4, "updated"), 30, "the updated row")
    assert [r[0] for r in rows(sql_database, 4)] == [1, 2, 4, 5]
    assert bulk_calls == ["update"] * len(bulk_calls) and bulk_calls


def test_a_refused_row_among_many_costs_the_rest_a_few_bulk_attempts_and_goes_to_the_dead_letter_queue(
    sql_database: SqlDatabase,
    harness: ConnectorHarness,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sql_database.execute(
        "CREATE TABLE items (id BIGINT PRIMARY KEY, name TEXT NOT NULL, amount DOUBLE PRECISION, price NUMERIC,"
        " active BOOLEAN, blob BYTEA, day DATE, at TIME, stamp TIMESTAMP)"
    )
    attempts: list[int] = []
    original = sink_writer.SinkWriter._execute

    def counting(self: Any, connection: Any, table: Any, run: Any) -> None:
        attempts.append(len(run))
        original(self, connection, table, run)

    monkeypatch.setattr(sink_writer.SinkWriter, "_execute", counting)
    send(harness, "items", range(1000), **{"500": None})  # NOT NULL refuses this one
    config = sink(
        sql_database,
        "items",
        **{
            "batch.size": "1000",
            "consumer.override.max.poll.records": "1000",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": "items-dlq",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    harness.start("items-sink", config)

    assert len(rows(sql_database, 999)) == 999
    [refused] = harness.read("items-dlq", 1)
    assert dict(refused.headers)["__connect.errors.exception.message"].find(b"null value") >= 0
    # One put of 1000 (the consumer's batch): the first attempt, then halves down to the one row; each half
    # without it written in bulk.
    assert len(attempts) <= 2 + 2 * 10, attempts
    assert sum(1 for size in attempts if size == 1) <= 2, attempts


def test_a_run_whose_values_copy_would_read_otherwise_keeps_the_insert_statements(
    sql_database: SqlDatabase, harness: ConnectorHarness, bulk_calls: list[str]
) -> None:
    sql_database.execute("CREATE TABLE items (id BIGINT PRIMARY KEY, quantity INTEGER, note TEXT)")
    schemaless = {
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "false",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
    }
    config = sink(sql_database, "items", **{"pk.mode": "record_value", "pk.fields": "id", **schemaless})
    harness.start("items-sink", config)
    for id_, quantity, note in ((1, 2.5, "a"), (2, 3.5, "b")):  # floats in an integer column: rounded by a cast
        harness.send("items", {"id": id_, "quantity": quantity, "note": note}, converters=schemaless)

    assert rows(sql_database, 2) == [(1, 2, "a"), (2, 4, "b")]  # PostgreSQL rounds half to even
    assert bulk_calls == []
