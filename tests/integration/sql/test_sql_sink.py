"""The SQL sink against real databases and a real broker: upserts leave one row per key with the last
values, tombstones delete, tables are created and evolved from the records' schemas, and a record the
database refuses goes to the dead letter queue with the database's reason while the others are written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.sql_records import JSON_WITH_SCHEMAS, TopicReader, produce, struct_json
from tests.support.standalone_workers import running_worker, status_of, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

KEY_FIELDS = [("id", "int32", False)]
VALUE_FIELDS = [("id", "int32", False), ("name", "string", True), ("amount", "double", True)]
EVOLVED_FIELDS = [*VALUE_FIELDS, ("city", "string", True)]


def _key(id_: int) -> bytes | None:
    return struct_json(KEY_FIELDS, {"id": id_}, "key")


def _sink_config(database: SqlDatabase, topic: str, **extra: str) -> dict[str, Any]:
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "connection.url": database.jdbc_url,
        "topics": topic,
        **JSON_WITH_SCHEMAS,
        **extra,
    }


def _rows(database: SqlDatabase, table: str, columns: str) -> list[tuple[Any, ...]] | None:
    try:
        return database.rows(f"SELECT {columns} FROM {table} ORDER BY id")
    except Exception:  # the table may not exist yet
        return None


def test_upserts_deletes_and_schema_changes_end_as_one_row_per_key_with_the_last_values(
    sql_database: SqlDatabase, kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=2)
    records: list[tuple[bytes | None, bytes | None]] = []
    for round_ in range(3):  # every key three times: the last values must win
        for id_ in range(10):
            records.append(
                (
                    _key(id_),
                    struct_json(
                        VALUE_FIELDS, {"id": id_, "name": f"n{id_}-{round_}", "amount": id_ * 1.5 + round_}, "v"
                    ),
                )
            )
    records.append((_key(3), None))  # a tombstone deletes key 3
    records.append(
        (_key(11), struct_json(EVOLVED_FIELDS, {"id": 11, "name": "new", "amount": 1.0, "city": "Oslo"}, "v"))
    )
    table = "orders_sink"
    config = _sink_config(
        sql_database,
        topic,
        **{
            "insert.mode": "upsert",
            "pk.mode": "record_key",
            "auto.create": "true",
            "auto.evolve": "true",
            "delete.enabled": "true",
            "table.name.format": table,
            "batch.size": "7",
        },
    )
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets")) as (_, client):
        assert client.post("/connectors", json={"name": "orders-sink", "config": config}).status_code == 201
        produce(kafka_bootstrap, topic, records)
        expected = [(i, f"n{i}-2", i * 1.5 + 2, None) for i in range(10) if i != 3] + [(11, "new", 1.0, "Oslo")]
        wait_until(
            lambda: _rows(sql_database, table, "id, name, amount, city") == expected,
            60,
            "the upserted, deleted and evolved rows",
            interval=0.5,
        )
        status = status_of(client, "orders-sink")
        assert status is not None and status["tasks"][0]["state"] == "RUNNING"


def test_a_record_the_database_refuses_goes_to_the_dead_letter_queue_and_the_rest_are_written(
    sql_database: SqlDatabase, kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory()
    dlq = topic_factory()
    sql_database.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, amount FLOAT)")
    fields = [("id", "int32", False), ("name", "string", True), ("amount", "double", True)]
    names = ["ann", None, "cid", "dee"]  # the second breaks NOT NULL
    produce(
        kafka_bootstrap,
        topic,
        [(None, struct_json(fields, {"id": i, "name": n, "amount": 1.0}, "v")) for i, n in enumerate(names)],
    )
    config = _sink_config(
        sql_database,
        topic,
        **{
            "insert.mode": "insert",
            "table.name.format": "people",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    reader = TopicReader(kafka_bootstrap, dlq)
    try:
        with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets")) as (_, client):
            assert client.post("/connectors", json={"name": "people-sink", "config": config}).status_code == 201
            wait_until(
                lambda: _rows(sql_database, "people", "id, name") == [(0, "ann"), (2, "cid"), (3, "dee")],
                60,
                "the good rows",
                interval=0.5,
            )
            wait_until(lambda: reader.read(), 60, "the refused record in the dead letter queue")
            status = status_of(client, "people-sink")
            assert status is not None and status["tasks"][0]["state"] == "RUNNING"
        assert len(reader.values) == 1 and reader.values[0]["payload"]["id"] == 1
        reason = reader.headers[0]["__connect.errors.exception.message"].decode()
        assert "null" in reason.lower(), reason  # the database's own words for the NOT NULL violation
    finally:
        reader.close()
