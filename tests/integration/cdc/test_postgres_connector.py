"""kconnect's PostgresConnector in a standalone worker, configured as Debezium's, against a real PostgreSQL 15
and Kafka: the rows already there as a snapshot, then every insert, update and delete in commit order; the
slot confirmed once Kafka holds the changes; a restart resumes without a new snapshot and without repeats;
keys Debezium has and kconnect does not are refused at validation with the reason."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import psycopg
import pytest
import sqlalchemy as sa
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from connectors.cdc.postgres.catalog import slot_state
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.replication_slots import drop_slot
from tests.support.standalone_workers import create_connector, running_worker, status_of, worker_props
from tests.support.topic_reads import high_watermark
from tests.support.waiting import holds_for, wait_until

pytestmark = pytest.mark.integration

JSON = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
}


@pytest.fixture
def database(postgres_database: SqlDatabase) -> Iterator[SqlDatabase]:
    postgres_database.execute(
        "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price numeric(8,2))",
        "INSERT INTO items VALUES (1, 'pen', 1.50), (2, 'ink', 7)",
    )
    yield postgres_database
    drop_slot(postgres_database, slot(postgres_database))


def slot(database: SqlDatabase) -> str:
    return f"kc_{database.name}"


def connector_config(database: SqlDatabase, prefix: str) -> dict[str, str]:
    url = sa.make_url(database.url)
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": str(url.host),
        "database.port": str(url.port),
        "database.user": str(url.username),
        "database.dbname": str(url.database),
        "topic.prefix": prefix,
        "plugin.name": "pgoutput",
        "slot.name": slot(database),
        "publication.name": slot(database),
        "publication.autocreate.mode": "filtered",
        "table.include.list": "public.items",
        "slot.retry.delay.ms": "500",
    }


def events(bootstrap: str, topic: str, count: int, timeout: float = 60) -> list[dict[str, Any] | None]:
    """The first `count` values of `topic` as JSON (None: a tombstone), waiting for them."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"t-{uuid.uuid4().hex}"})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    found: list[dict[str, Any] | None] = []

    def enough() -> bool:
        message = consumer.poll(0.5)
        if message is not None and message.error() is None:
            value = message.value()
            found.append(orjson.loads(value) if value else None)
        return len(found) >= count

    try:
        wait_until(enough, timeout, f"{count} events on {topic}")
        return found
    finally:
        consumer.close()


def task_state(client: httpx.Client) -> str | None:
    tasks = (status_of(client, "cdc") or {}).get("tasks") or []
    if tasks and tasks[0].get("state") == "FAILED":
        raise AssertionError(tasks[0].get("trace"))
    return tasks[0].get("state") if tasks else None


def confirmed_lsn(database: SqlDatabase) -> int:
    with psycopg.connect(**database.connection_params()) as connection:
        state = slot_state(connection, slot(database))
    return (state.confirmed_flush_lsn or 0) if state is not None else 0


def summary(event: dict[str, Any] | None) -> tuple[Any, ...] | None:
    if event is None:
        return None
    payload = event["payload"]
    row = payload["after"] or payload["before"]
    return payload["op"], row["id"], row["name"], payload["source"]["snapshot"]


def test_snapshot_then_stream_then_resume_without_repeats(
    database: SqlDatabase, kafka_bootstrap: str, tmp_path: Path
) -> None:
    prefix = f"kc{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.items"
    props = worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON)
    with running_worker(props) as (_, client):
        create_connector(client, "cdc", connector_config(database, prefix))
        wait_until(lambda: task_state(client) == "RUNNING", 60, "the task to run")
        snapshot = events(kafka_bootstrap, topic, 2)
        assert [summary(e) for e in snapshot] == [("r", 1, "pen", "first"), ("r", 2, "ink", "last")]
        database.execute("INSERT INTO items VALUES (3, 'nib', NULL)")
        database.execute("UPDATE items SET name = 'pencil' WHERE id = 1", "DELETE FROM items WHERE id = 2")
        streamed = events(kafka_bootstrap, topic, 6)[2:]
        assert [summary(e) for e in streamed] == [
            ("c", 3, "nib", "false"),
            ("u", 1, "pencil", "false"),
            ("d", 2, "", "false"),  # default identity: the old row is its key; name falls back to ""
            None,  # the tombstone
        ]
        # As Debezium's, the slot is confirmed up to the commit before the last stored change's transaction.
        delete = streamed[2]
        assert delete is not None
        insert_commit = int(orjson.loads(delete["payload"]["source"]["sequence"])[0])
        wait_until(lambda: confirmed_lsn(database) >= insert_commit, 30, "the slot confirmed past the insert")

    database.execute("INSERT INTO items VALUES (4, 'cap', 2)")
    with running_worker(props) as (_, client):
        # A standalone worker forgets connectors made through REST; the offsets stay, under the same name.
        create_connector(client, "cdc", connector_config(database, prefix))
        wait_until(lambda: task_state(client) == "RUNNING", 60, "the task to run again")
        # The server resends the update's transaction (the slot was confirmed before it): nothing of it is
        # written again, and no second snapshot is made.
        assert [summary(e) for e in events(kafka_bootstrap, topic, 7)[6:]] == [("c", 4, "cap", "false")]
        # ... nor after it.
        holds_for(lambda: high_watermark(kafka_bootstrap, topic) == 7, 3.0, "the topic to hold 7 records")


def test_keys_kconnect_does_not_implement_are_refused_with_the_reason(
    database: SqlDatabase, kafka_bootstrap: str, tmp_path: Path
) -> None:
    config = {**connector_config(database, "kcx"), "name": "cdc", "provide.transaction.metadata": "true"}
    del config["plugin.name"]  # Debezium's default is decoderbufs
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON)) as (_, client):
        answer = client.put("/connector-plugins/PostgresConnector/config/validate", json=config)
        assert answer.status_code == 200, answer.text
        errors = {c["value"]["name"]: c["value"]["errors"] for c in answer.json()["configs"] if c["value"]["errors"]}
        assert errors == {
            "plugin.name": [
                "kconnect speaks pgoutput, PostgreSQL's built-in logical decoding plug-in: set plugin.name=pgoutput"
            ],
            "provide.transaction.metadata": [
                "provide.transaction.metadata is not supported by kconnect's PostgreSQL connector yet"
            ],
        }
        assert answer.status_code == httpx.codes.OK


def test_heartbeats_move_the_slot_past_transactions_of_tables_that_are_not_captured(
    database: SqlDatabase, kafka_bootstrap: str, tmp_path: Path
) -> None:
    """A publication of all tables, only `items` captured, heartbeat.interval.ms=500: a transaction on another
    table brings no event but its commit, and the heartbeat that carries that commit's position lets the slot
    be confirmed past it (without heartbeats the slot would wait for the next change to `items`)."""
    database.execute("CREATE TABLE other (id int PRIMARY KEY)")
    prefix = f"kc{uuid.uuid4().hex[:8]}"
    config = {**connector_config(database, prefix), "publication.autocreate.mode": "all_tables"}
    config["heartbeat.interval.ms"] = "500"
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON)) as (_, client):
        create_connector(client, "cdc", config)
        wait_until(lambda: task_state(client) == "RUNNING", 60, "the task to run")
        events(kafka_bootstrap, f"{prefix}.public.items", 2)  # the snapshot
        (before,) = database.rows("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")[0]
        database.execute("INSERT INTO other VALUES (1)")
        (beat,) = events(kafka_bootstrap, f"__debezium-heartbeat.{prefix}", 1)
        assert beat is not None and set(beat["payload"]) == {"ts_ms"}
        assert beat["schema"]["name"] == "io.debezium.connector.common.Heartbeat"
        wait_until(lambda: confirmed_lsn(database) > int(str(before)), 30, "the slot confirmed past the other table")
