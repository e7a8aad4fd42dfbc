"""The SQL sink task on SQLite files: the write modes, key modes, DDL rules, refused records and retries."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from connect.api import ConnectError, DataError, RetriableError, SinkRecord, Struct
from connect.api.data import INT32_SCHEMA, INT64_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Schema
from connect.testing import FakeErrantRecordReporter
from connectors.sql.sink_task import SqlSinkTask
from tests.unit.connectors.sql.sqlite_fakes import SinkContext

KEY = Schema.struct([("id", INT32_SCHEMA)])
VALUE = Schema.struct([("id", INT32_SCHEMA), ("name", OPTIONAL_STRING_SCHEMA)])


def _record(
    id_: int | None, name: str | None, offset: int, *, tombstone: bool = False, topic: str = "people"
) -> SinkRecord:
    key = None if id_ is None else Struct(KEY, {"id": id_})
    value = None if tombstone else Struct(VALUE, {"id": id_ or 0, "name": name})
    return SinkRecord(topic, 0, KEY, key, VALUE, value, offset)


def _task(db: Path, reporter: FakeErrantRecordReporter | None = None, **props: str) -> tuple[SqlSinkTask, SinkContext]:
    task = SqlSinkTask()
    context = SinkContext(reporter)
    task.initialize(context)  # type: ignore[arg-type]
    task.start({"connection.url": f"jdbc:sqlite:{db}", **props})
    return task, context


def _rows(db: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(query).fetchall()


def test_upsert_keeps_one_row_per_key_with_the_last_values_and_tombstones_delete(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    task, _ = _task(
        db,
        **{
            "insert.mode": "upsert",
            "pk.mode": "record_key",
            "auto.create": "true",
            "delete.enabled": "true",
            "batch.size": "4",
        },
    )
    task.put([_record(i % 3, f"v{i}", i) for i in range(10)])
    task.put([_record(1, None, 10, tombstone=True), _record(1, "back", 11), _record(2, None, 12, tombstone=True)])
    task.put([_record(i % 3, f"v{i}", i) for i in range(7, 10)])  # a replay after a crash changes nothing
    task.stop()
    assert _rows(db, "SELECT id, name FROM people ORDER BY id") == [(0, "v9"), (1, "v7"), (2, "v8")]


def test_insert_update_and_the_kafka_key_mode(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    task, _ = _task(db, **{"pk.mode": "kafka", "auto.create": "true"})
    task.put([_record(1, "a", 5), _record(2, "b", 6)])
    task.stop()
    assert _rows(db, "SELECT __connect_topic, __connect_partition, __connect_offset, id, name FROM people") == [
        ("people", 0, 5, 1, "a"),
        ("people", 0, 6, 2, "b"),
    ]
    task, _ = _task(
        db, **{"insert.mode": "update", "pk.mode": "record_value", "pk.fields": "id", "table.name.format": "people"}
    )
    task.put([_record(2, "B", 7), _record(9, "nobody", 8)])  # an update of a missing key changes nothing
    task.stop()
    assert _rows(db, "SELECT id, name FROM people ORDER BY id") == [(1, "a"), (2, "B")]


def test_fields_whitelist_and_a_primitive_key_with_table_name_format(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    value = Schema.struct([("name", STRING_SCHEMA), ("secret", STRING_SCHEMA)])
    task, _ = _task(
        db,
        **{
            "pk.mode": "record_key",
            "pk.fields": "user_id",
            "fields.whitelist": "name",
            "auto.create": "true",
            "table.name.format": "t_${topic}",
        },
    )
    task.put([SinkRecord("users", 0, INT64_SCHEMA, 42, value, Struct(value, {"name": "ann", "secret": "x"}), 0)])
    task.stop()
    assert _rows(db, "SELECT * FROM t_users") == [(42, "ann")]


def test_missing_tables_and_columns_fail_the_task_unless_ddl_is_allowed(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    task, _ = _task(db)
    with pytest.raises(ConnectError, match="missing and auto-creation is disabled"):
        task.put([_record(1, "a", 0)])
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE people (id INTEGER)")
    with pytest.raises(ConnectError, match="missing fields \\(name\\) and auto-evolution is disabled"):
        task.put([_record(1, "a", 0)])
    task.stop()
    required = Schema.struct([("id", INT32_SCHEMA), ("must", STRING_SCHEMA)])
    task, _ = _task(db, **{"auto.evolve": "true"})
    task.put([_record(1, "a", 0)])
    with pytest.raises(ConnectError, match="not optional and does not have a default value"):
        task.put([SinkRecord("people", 0, None, None, required, Struct(required, {"id": 2, "must": "x"}), 1)])
    task.stop()
    assert _rows(db, "SELECT id, name FROM people") == [(1, "a")]


def test_refused_records_go_to_the_reporter_with_the_reason_and_the_rest_are_written(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    reporter = FakeErrantRecordReporter()
    task, _ = _task(db, reporter, **{"pk.mode": "record_key"})
    task.put([_record(1, "a", 0), _record(2, None, 1), _record(None, "no key", 2), _record(3, "c", 3)])
    task.stop()
    assert _rows(db, "SELECT id, name FROM people ORDER BY id") == [(1, "a"), (3, "c")]
    reasons = {record.kafka_offset: str(error) for record, error in reporter.reported}
    assert set(reasons) == {1, 2}
    assert "NOT NULL constraint failed: people.name" in reasons[1]
    assert "null key" in reasons[2]


def test_without_a_reporter_a_refused_record_fails_the_task(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    task, _ = _task(db, None)
    with pytest.raises(DataError, match="NOT NULL constraint failed"):
        task.put([_record(2, None, 1)])
    task.stop()


def test_an_unreachable_database_is_retried_max_retries_times_then_fails_with_the_reason(tmp_path: Path) -> None:
    db = tmp_path / "gone" / "x.db"
    task, context = _task(
        db, **{"max.retries": "2", "retry.backoff.ms": "10", "connection.attempts": "1", "auto.create": "true"}
    )
    for _ in range(2):
        with pytest.raises(RetriableError, match="unable to open database file"):
            task.put([_record(1, "a", 0)])
    with pytest.raises(
        ConnectError,
        match=r"failed 3 times in a row: Cannot connect to the database after 1 attempt\(s\): OperationalError: unable",
    ):
        task.put([_record(1, "a", 0)])
    assert context.timeouts == [10, 10]
    db.parent.mkdir()  # the database is back: a restarted task writes
    task, _ = _task(db, **{"auto.create": "true"})
    task.put([_record(1, "a", 0)])
    task.stop()
    assert _rows(db, "SELECT id, name FROM people") == [(1, "a")]
