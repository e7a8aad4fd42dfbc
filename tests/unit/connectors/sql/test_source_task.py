"""The SQL source task on SQLite files: offsets as Confluent stores them, resuming, ties, delays, queries."""

from __future__ import annotations

import datetime as dt
import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from connect.api import SourceRecord
from connect.api.data import FLOAT64_SCHEMA, INT16_SCHEMA, SchemaType
from connectors.sql.source_connector import SqlSourceConnector
from connectors.sql.source_task import SqlSourceTask
from tests.support.waiting import wait_until
from tests.unit.connectors.sql.sqlite_fakes import SourceContext, StoredOffsets


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(8,2), "
            "qty NUMERIC(4,0), updated TIMESTAMP NOT NULL)"
        )
    return path


def _insert(db: Path, *rows: tuple[str, str]) -> None:
    with sqlite3.connect(db) as connection:
        connection.executemany("INSERT INTO orders (name, price, qty, updated) VALUES (?, 1.25, 3, ?)", list(rows))


def _task(db: Path, offsets: StoredOffsets | None = None, **props: str) -> SqlSourceTask:
    connector = SqlSourceConnector()
    connector.initialize(SourceContext())  # type: ignore[arg-type]
    base = {"connection.url": f"jdbc:sqlite:{db}", "topic.prefix": "shop-", "poll.interval.ms": "50"}
    connector.start({**base, **props})
    [config] = connector.task_configs(1)
    connector.stop()
    task = SqlSourceTask()
    task.initialize(SourceContext(offsets))  # type: ignore[arg-type]
    task.start(config)
    return task


def _drain(task: SqlSourceTask, polls: int = 6) -> list[SourceRecord]:
    records: list[SourceRecord] = []
    for _ in range(polls):
        records += task.poll() or []
    return records


def test_timestamp_mode_holds_back_the_offset_inside_a_run_of_equal_timestamps(db: Path) -> None:
    _insert(
        db,
        ("a", "2024-01-01 00:00:01"),
        ("b", "2024-01-01 00:00:02"),
        ("c", "2024-01-01 00:00:02"),
        ("d", "2024-01-01 00:00:02"),
        ("e", "2024-01-01 00:00:03"),
    )
    task = _task(db, mode="timestamp", **{"timestamp.column.name": "updated", "batch.max.rows": "2"})
    records = _drain(task)
    task.stop()
    second_1, second_2, second_3 = 1704067201000, 1704067202000, 1704067203000
    assert [r.value.get("name") for r in records] == list("abcde")
    assert [r.source_offset["timestamp"] for r in records] == [second_1, second_1, second_1, second_2, second_3]
    assert records[0].source_partition == {"protocol": "1", "table": "orders"}
    assert records[0].source_offset == {"timestamp": second_1, "timestamp_nanos": 0}


def test_a_task_resumes_after_the_stored_offset_and_reads_the_legacy_partition(db: Path) -> None:
    _insert(db, *[(f"n{i}", "2024-01-01 00:00:00") for i in range(5)])
    offsets = StoredOffsets()
    offsets.store({"table": "orders"}, {"incrementing": 3})  # written by an older version: bare table name
    task = _task(db, offsets, mode="incrementing")
    records = _drain(task)
    task.stop()
    assert [r.value.get("id") for r in records] == [4, 5]
    assert records[-1].source_offset == {"incrementing": 5}


def test_timestamp_incrementing_offsets_carry_both_and_resume_inside_a_timestamp(db: Path) -> None:
    _insert(db, ("a", "2024-01-01 00:00:01.250000"), ("b", "2024-01-01 00:00:01.250000"), ("c", "2024-01-01 00:00:02"))
    offsets = StoredOffsets()
    offsets.store(
        {"protocol": "1", "table": "orders"},
        {"timestamp": 1704067201250, "timestamp_nanos": 250_000_000, "incrementing": 1},
    )
    task = _task(db, offsets, mode="timestamp+incrementing", **{"timestamp.column.name": "updated"})
    records = _drain(task)
    task.stop()
    assert [r.value.get("name") for r in records] == ["b", "c"]
    assert records[0].source_offset == {"incrementing": 2, "timestamp": 1704067201250, "timestamp_nanos": 250_000_000}


def test_rows_newer_than_the_delay_wait_and_timestamp_initial_skips_older_rows(db: Path) -> None:
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    _insert(db, ("old", "2020-01-01 00:00:00"), ("recent", str(now - dt.timedelta(minutes=5))), ("fresh", str(now)))
    task = _task(
        db,
        mode="timestamp",
        **{
            "timestamp.column.name": "updated",
            "timestamp.delay.interval.ms": "60000",
            "timestamp.initial": str(int(dt.datetime(2021, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)),
        },
    )
    records = _drain(task)
    task.stop()
    assert [r.value.get("name") for r in records] == ["recent"]


def test_db_timezone_reads_zoneless_timestamps_as_wall_clock_times_there(db: Path) -> None:
    _insert(db, ("a", "2024-07-01 12:00:00"))
    task = _task(db, mode="bulk", **{"db.timezone": "Europe/Berlin"})
    [record] = _drain(task, polls=1)
    task.stop()
    assert record.value.get("updated") == dt.datetime(2024, 7, 1, 10, 0, tzinfo=dt.UTC)  # CEST is UTC+2


def test_schema_types_and_numeric_mapping(db: Path) -> None:
    _insert(db, ("a", "2024-01-01 00:00:00"))
    task = _task(db, mode="bulk")
    [record] = _drain(task, polls=1)
    task.stop()
    fields = {f.name: f.schema for f in record.value_schema.fields}
    assert fields["price"].name == "org.apache.kafka.connect.data.Decimal" and fields["price"].parameters == {
        "scale": "2"
    }
    assert record.value.get("price") == Decimal("1.25")
    assert fields["name"].type is SchemaType.STRING and not fields["name"].optional
    assert fields["updated"].name == "org.apache.kafka.connect.data.Timestamp"
    assert record.value_schema.name == "orders" and record.topic == "shop-orders"
    assert record.source_offset is None and record.source_partition == {"table": "orders"}

    task = _task(db, mode="bulk", **{"numeric.mapping": "best_fit"})
    [record] = _drain(task, polls=1)
    task.stop()
    fields = {f.name: f.schema for f in record.value_schema.fields}
    assert fields["price"] == FLOAT64_SCHEMA.as_optional() and record.value.get("price") == 1.25
    assert fields["qty"] == INT16_SCHEMA.as_optional() and record.value.get("qty") == 3


def test_query_mode_with_suffix_and_incrementing_column(db: Path) -> None:
    _insert(db, *[(f"n{i}", "2024-01-01 00:00:00") for i in range(4)])
    task = _task(
        db,
        mode="incrementing",
        query="SELECT id, name FROM orders WHERE name <> 'n1'",
        **{"incrementing.column.name": "id", "query.suffix": "LIMIT 2"},
    )
    records = _drain(task, polls=3)
    _insert(db, ("late", "2024-01-01 00:00:00"))
    records += _drain(task, polls=8)
    task.stop()
    assert [r.value.get("name") for r in records] == ["n0", "n2", "n3", "late"]
    assert records[0].topic == "shop-" and records[0].source_partition == {"query": "query"}


def test_nullable_incrementing_columns_are_refused_unless_allowed(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE t (seq INTEGER, v TEXT)")
        connection.execute("INSERT INTO t VALUES (1, 'a')")
    task = _task(path, mode="incrementing", **{"incrementing.column.name": "seq"})
    with pytest.raises(Exception, match="nullable"):
        task.poll()
    task.stop()
    task = _task(path, mode="incrementing", **{"incrementing.column.name": "seq", "validate.non.null": "false"})
    assert [r.value.get("v") for r in _drain(task)] == ["a"]
    task.stop()


def test_tables_are_spread_over_tasks_and_new_tables_reconfigure_the_connector(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with sqlite3.connect(path) as connection:
        for name in ("a", "b", "c", "skip_me"):
            connection.execute(f"CREATE TABLE {name} (id INTEGER PRIMARY KEY)")
    context = SourceContext()
    connector = SqlSourceConnector()
    connector.initialize(context)  # type: ignore[arg-type]
    props = {
        "connection.url": f"sqlite:///{path}",
        "mode": "bulk",
        "topic.prefix": "",
        "table.blacklist": "skip_me",
        "table.poll.interval.ms": "50",
    }
    connector.start(props)
    try:
        configs: Any = connector.task_configs(2)
        assert [c["tables"] for c in configs] == ['[[null, null, "a"], [null, null, "b"]]', '[[null, null, "c"]]']
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE d (id INTEGER PRIMARY KEY)")
        wait_until(lambda: context.reconfigurations > 0, 10, "a reconfiguration request")
        assert [c["tables"] for c in connector.task_configs(5)][-1] == '[[null, null, "d"]]'
    finally:
        connector.stop()
