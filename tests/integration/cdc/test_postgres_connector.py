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
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from connectors.cdc.postgres.catalog import slot_state
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.cdc_connectors import postgres_connector, slot_name
from tests.support.replication_slots import drop_slot
from tests.support.standalone_workers import create_connector, running_worker, status_of, worker_props
from tests.support.topic_reads import high_watermark, read_topic
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
    drop_slot(postgres_database, slot_name(postgres_database))


def connector_config(database: SqlDatabase, prefix: str) -> dict[str, str]:
    return postgres_connector(database, prefix, "items", **{"slot.retry.delay.ms": "500"})


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
        state = slot_state(connection, slot_name(database))
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
    config = {**connector_config(database, "kcx"), "name": "cdc", "signal.data.collection": "public.signals"}
    del config["plugin.name"]  # Debezium's default is decoderbufs
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON)) as (_, client):
        answer = client.put("/connector-plugins/PostgresConnector/config/validate", json=config)
        assert answer.status_code == 200, answer.text
        errors = {c["value"]["name"]: c["value"]["errors"] for c in answer.json()["configs"] if c["value"]["errors"]}
        assert errors == {
            "plugin.name": [
                "kconnect speaks pgoutput, PostgreSQL's built-in logical decoding plug-in: set plugin.name=pgoutput"
            ],
            "signal.data.collection": [
                "signal.data.collection is not supported by kconnect's PostgreSQL connector yet"
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


def test_a_heartbeat_action_query_runs_with_every_heartbeat_and_a_broken_one_fails_the_task(
    database: SqlDatabase, kafka_bootstrap: str, tmp_path: Path
) -> None:
    """`heartbeat.action.query` upserting into a captured `beats` table runs with every heartbeat while the
    other captured table is quiet: its changes stream as events, and the heartbeats go to the topic named by
    `topic.heartbeat.name`. A query on a missing table fails the task, as Debezium's."""
    database.execute("CREATE TABLE beats (id int PRIMARY KEY, at timestamptz NOT NULL)")
    prefix = f"kc{uuid.uuid4().hex[:8]}"
    config = {
        **postgres_connector(database, prefix, "items,beats", **{"slot.retry.delay.ms": "500"}),
        "heartbeat.interval.ms": "500",
        "heartbeat.action.query": "INSERT INTO beats VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET at = now()",
        "topic.heartbeat.name": f"{prefix}-beats",
    }
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON)) as (_, client):
        create_connector(client, "cdc", config)
        wait_until(lambda: task_state(client) == "RUNNING", 60, "the task to run")
        beats = events(kafka_bootstrap, f"{prefix}.public.beats", 3)
        assert [(b["payload"]["op"], b["payload"]["after"]["id"]) for b in beats if b] == [("c", 1), ("u", 1), ("u", 1)]
        assert high_watermark(kafka_bootstrap, f"{prefix}-beats") >= 1, "heartbeats go to topic.heartbeat.name"

        client.delete("/connectors/cdc")
        broken = {**config, "heartbeat.action.query": "UPDATE missing SET x = 1"}
        create_connector(client, "cdc", broken)

        def failed() -> str:
            tasks = (status_of(client, "cdc") or {}).get("tasks") or []
            return str(tasks[0].get("trace")) if tasks and tasks[0].get("state") == "FAILED" else ""

        trace = wait_until(failed, 60, "the task with a broken heartbeat query to fail")
        assert "Could not execute heartbeat action query (Error: 42P01)" in trace


def test_a_slot_gone_while_the_connector_was_away_fails_initial_and_makes_when_needed_snapshot_again(
    database: SqlDatabase, kafka_bootstrap: str, tmp_path: Path
) -> None:
    """The connector's slot dropped while it was stopped, and a row inserted meanwhile: a new slot would stream
    from after that row. With snapshot.mode=initial the task fails saying so (Debezium's log position check);
    with when_needed it takes a new snapshot, the missed row among its rows, then streams on."""
    prefix = f"kc{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.items"
    props = worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON)
    with running_worker(props) as (_, client):
        create_connector(client, "cdc", connector_config(database, prefix))
        events(kafka_bootstrap, topic, 2)  # the snapshot
        database.execute("INSERT INTO items VALUES (3, 'nib', NULL)")
        events(kafka_bootstrap, topic, 3)
    drop_slot(database, slot_name(database))
    database.execute("INSERT INTO items VALUES (4, 'cap', 2)")

    with running_worker(props) as (_, client):
        create_connector(client, "cdc", connector_config(database, prefix))

        def failed() -> str:
            tasks = (status_of(client, "cdc") or {}).get("tasks") or []
            return str(tasks[0].get("trace")) if tasks and tasks[0].get("state") == "FAILED" else ""

        assert "no longer available on the server" in wait_until(failed, 60, "initial to refuse the gap")
        assert high_watermark(kafka_bootstrap, topic) == 3

        client.delete("/connectors/cdc")
        create_connector(client, "cdc", {**connector_config(database, prefix), "snapshot.mode": "when_needed"})
        again = events(kafka_bootstrap, topic, 7)[3:]
        assert [summary(e) for e in again] == [
            ("r", 1, "pen", "first"),
            ("r", 2, "ink", "true"),
            ("r", 3, "nib", "true"),
            ("r", 4, "cap", "last"),
        ]
        database.execute("INSERT INTO items VALUES (5, 'pad', 1)")
        assert summary(events(kafka_bootstrap, topic, 8)[7]) == ("c", 5, "pad", "false")


def test_a_restart_inside_a_transaction_continues_its_counts_without_a_second_begin(
    database: SqlDatabase, kafka_bootstrap: str, tmp_path: Path
) -> None:
    """provide.transaction.metadata, and a worker stopped while one large transaction streams: the restarted
    task reads the transaction's counts back from the stored offset, so the events number 1..N once each,
    and the transaction has one BEGIN and one END."""
    rows = 40_000
    prefix = f"kc{uuid.uuid4().hex[:8]}"
    topic, transactions = f"{prefix}.public.items", f"{prefix}.transaction"
    config = {**connector_config(database, prefix), "snapshot.mode": "no_data", "max.batch.size": "256"}
    config["provide.transaction.metadata"] = "true"
    props = worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON, **{"value.converter.schemas.enable": "false"})
    with running_worker(props) as (_, client):
        create_connector(client, "cdc", config)
        wait_until(lambda: task_state(client) == "RUNNING", 60, "the task to run")
        database.execute(f"INSERT INTO items SELECT g, 'n' || g, NULL FROM generate_series(10, {rows + 9}) g")
        wait_until(lambda: high_watermark(kafka_bootstrap, topic) > 0, 60, "the transaction's first events")
    stopped_at = high_watermark(kafka_bootstrap, topic)
    assert stopped_at < rows, "the worker should have stopped inside the transaction"

    with running_worker(props) as (_, client):
        create_connector(client, "cdc", config)
        wait_until(lambda: high_watermark(kafka_bootstrap, topic) >= rows, 120, "the rest of the transaction")
        holds_for(lambda: high_watermark(kafka_bootstrap, transactions) == 2, 2.0, "a BEGIN and an END, no more")
    found = [orjson.loads(value) for value in read_topic(kafka_bootstrap, topic, 1, "read_uncommitted")]
    assert [event["transaction"]["data_collection_order"] for event in found] == list(range(1, rows + 1))
    assert [event["transaction"]["total_order"] for event in found] == list(range(1, rows + 1))
    begin, end = (event for event in events(kafka_bootstrap, transactions, 2) if event)
    assert (begin["status"], end["status"], end["event_count"]) == ("BEGIN", "END", rows)
    assert end["data_collections"] == [{"data_collection": "public.items", "event_count": rows}]
    xid = begin["id"].split(":")[0]
    assert {event["transaction"]["id"].split(":")[0] for event in found} == {xid}


def test_a_lost_replication_connection_is_taken_up_again_without_loss_or_repeats(
    database: SqlDatabase, kafka_bootstrap: str, tmp_path: Path
) -> None:
    """The server ends the task's walsender (as a restart of the server does, or its wal_sender_timeout while
    the connector is paused): the task connects again and streams on from the last change it processed."""
    prefix = f"kc{uuid.uuid4().hex[:8]}"
    topic = f"{prefix}.public.items"
    config = {**connector_config(database, prefix), "snapshot.mode": "no_data"}
    active = f"SELECT active_pid FROM pg_replication_slots WHERE slot_name = '{slot_name(database)}' AND active"
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets", **JSON)) as (_, client):
        create_connector(client, "cdc", config)
        wait_until(lambda: task_state(client) == "RUNNING" and database.rows(active) != [], 60, "streaming")
        database.execute("INSERT INTO items VALUES (3, 'nib', NULL)")
        events(kafka_bootstrap, topic, 1)
        (walsender,) = database.rows(active)[0]
        database.execute(f"SELECT pg_terminate_backend({walsender})")
        database.execute("INSERT INTO items VALUES (4, 'cap', 2)", "UPDATE items SET name = 'pen 2' WHERE id = 1")
        found = events(kafka_bootstrap, topic, 3)
        holds_for(lambda: high_watermark(kafka_bootstrap, topic) == 3, 2.0, "no change written twice")
        assert task_state(client) == "RUNNING"
    assert [summary(e) for e in found] == [
        ("c", 3, "nib", "false"),
        ("c", 4, "cap", "false"),
        ("u", 1, "pen 2", "false"),
    ]
