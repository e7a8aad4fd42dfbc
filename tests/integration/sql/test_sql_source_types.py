"""The SQL source task on each database without Kafka: column types become the documented Connect
types and values, zoneless timestamps are read in `db.timezone`, and rows younger than
`timestamp.delay.interval.ms` wait for their turn."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from connect.api import SourceRecord
from connect.api.data import SchemaType
from connectors.sql.source_connector import SqlSourceConnector
from connectors.sql.source_task import SqlSourceTask
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.waiting import wait_until
from tests.unit.connectors.sql.sqlite_fakes import SourceContext

pytestmark = pytest.mark.integration

TYPES = {
    "sqlite": {
        "flag": "BOOLEAN",
        "small": "SMALLINT",
        "big": "BIGINT",
        "ratio": "DOUBLE",
        "price": "NUMERIC(8,2)",
        "label": "VARCHAR(20)",
        "payload": "BLOB",
        "day": "DATE",
        "clock": "TIME",
        "at": "TIMESTAMP",
    },
    "postgresql": {
        "flag": "BOOLEAN",
        "small": "SMALLINT",
        "big": "BIGINT",
        "ratio": "DOUBLE PRECISION",
        "price": "NUMERIC(8,2)",
        "label": "VARCHAR(20)",
        "payload": "BYTEA",
        "day": "DATE",
        "clock": "TIME",
        "at": "TIMESTAMP",
    },
    "mariadb": {
        "flag": "BOOLEAN",
        "small": "SMALLINT",
        "big": "BIGINT",
        "ratio": "DOUBLE",
        "price": "DECIMAL(8,2)",
        "label": "VARCHAR(20)",
        "payload": "BLOB",
        "day": "DATE",
        "clock": "TIME",
        "at": "DATETIME(6)",
    },
}
EXPECTED_TYPES = {
    "flag": (SchemaType.BOOLEAN, None),
    "small": (SchemaType.INT16, None),
    "big": (SchemaType.INT64, None),
    "ratio": (SchemaType.FLOAT64, None),
    "price": (SchemaType.BYTES, "org.apache.kafka.connect.data.Decimal"),
    "label": (SchemaType.STRING, None),
    "payload": (SchemaType.BYTES, None),
    "day": (SchemaType.INT32, "org.apache.kafka.connect.data.Date"),
    "clock": (SchemaType.INT32, "org.apache.kafka.connect.data.Time"),
    "at": (SchemaType.INT64, "org.apache.kafka.connect.data.Timestamp"),
}


def _task(database: SqlDatabase, **props: str) -> SqlSourceTask:
    connector = SqlSourceConnector()
    connector.initialize(SourceContext())  # type: ignore[arg-type]
    connector.start({"connection.url": database.jdbc_url, "topic.prefix": "t-", "poll.interval.ms": "100", **props})
    [config] = connector.task_configs(1)
    connector.stop()
    task = SqlSourceTask()
    task.initialize(SourceContext())  # type: ignore[arg-type]
    task.start(config)
    return task


def _poll(task: SqlSourceTask, polls: int) -> list[SourceRecord]:
    records: list[SourceRecord] = []
    for _ in range(polls):
        records += task.poll() or []
    return records


def test_column_types_become_connect_types_and_values(sql_database: SqlDatabase) -> None:
    types = TYPES[sql_database.kind]
    columns = ", ".join(f"{name} {sql_type}" for name, sql_type in types.items())
    sql_database.execute(f"CREATE TABLE typed (id INTEGER PRIMARY KEY, {columns})")
    blob = "X'00ff10'" if sql_database.kind != "postgresql" else "'\\x00ff10'::bytea"
    sql_database.execute(
        f"INSERT INTO typed VALUES (1, TRUE, -7, 9000000000, 0.25, 12.34, 'zoë', {blob}, "
        "'2024-02-29', '13:45:30', '2024-07-01 12:00:00.123456')"
    )
    task = _task(sql_database, mode="bulk", **{"db.timezone": "Europe/Berlin"})
    [record] = _poll(task, 1)
    task.stop()
    fields = {f.name: f.schema for f in record.value_schema.fields}
    assert {name: (fields[name].type, fields[name].name) for name in EXPECTED_TYPES} == EXPECTED_TYPES
    value: Any = record.value
    assert [value.get(n) for n in ("flag", "small", "big", "ratio", "price", "label", "payload")] == [
        True,
        -7,
        9000000000,
        0.25,
        Decimal("12.34"),
        "zoë",
        b"\x00\xff\x10",
    ]
    assert value.get("day") == dt.date(2024, 2, 29)
    assert value.get("clock") == dt.time(13, 45, 30)
    # 12:00 in Berlin in July (CEST, UTC+2) is 10:00 UTC.
    assert value.get("at") == dt.datetime(2024, 7, 1, 10, 0, 0, 123456, tzinfo=dt.UTC)


def test_rows_inside_the_delay_wait_until_it_passed(sql_database: SqlDatabase) -> None:
    sql_database.execute(f"CREATE TABLE late (id INTEGER PRIMARY KEY, at {TYPES[sql_database.kind]['at']} NOT NULL)")
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    sql_database.execute(f"INSERT INTO late VALUES (1, '{now - dt.timedelta(minutes=10)}')")
    sql_database.execute(f"INSERT INTO late VALUES (2, '{now + dt.timedelta(seconds=1)}')")  # committed "late"
    task = _task(
        sql_database,
        mode="timestamp+incrementing",
        **{"timestamp.column.name": "at", "incrementing.column.name": "id", "timestamp.delay.interval.ms": "2000"},
    )
    try:
        first = _poll(task, 3)
        assert [r.value.get("id") for r in first] == [1]
        seen = [r.value.get("id") for r in first]
        wait_until(lambda: seen.extend(r.value.get("id") for r in task.poll() or []) or 2 in seen, 15, "the late row")
        assert seen == [1, 2]
    finally:
        task.stop()
