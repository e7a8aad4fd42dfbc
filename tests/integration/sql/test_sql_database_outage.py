"""The SQL sink when its database goes away: under load it retries with back-off and carries on when the
database is back; away for longer than `max.retries` allows, the task fails with the database's reason,
and restarting it once the database is back loses nothing. PostgreSQL and MariaDB servers."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fixtures.sql.plugin import ServerDatabase, SqlDatabase
from tests.support.sql_records import JSON_WITH_SCHEMAS, produce, struct_json
from tests.support.standalone_workers import running_worker, status_of, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

KEY_FIELDS = [("id", "int32", False)]
VALUE_FIELDS = [("id", "int32", False), ("round", "int32", False)]
KEYS = 200


def _round(round_: int) -> list[tuple[bytes | None, bytes | None]]:
    return [
        (struct_json(KEY_FIELDS, {"id": i}, "k"), struct_json(VALUE_FIELDS, {"id": i, "round": round_}, "v"))
        for i in range(KEYS)
    ]


def _all_at_round(database: SqlDatabase, round_: int) -> bool:
    try:
        rows = database.rows("SELECT id, round FROM outage ORDER BY id")
    except Exception:  # the table is not there yet, or the database is still coming back
        return False
    return rows == [(i, round_) for i in range(KEYS)]


def _config(database: SqlDatabase, topic: str, **extra: str) -> dict[str, Any]:
    return {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "connection.url": database.jdbc_url,
        "topics": topic,
        "table.name.format": "outage",
        "insert.mode": "upsert",
        "pk.mode": "record_key",
        "auto.create": "true",
        "connection.attempts": "1",
        "batch.size": "50",
        **JSON_WITH_SCHEMAS,
        **extra,
    }


def _task_state(client: httpx.Client, connector: str) -> dict[str, Any] | None:
    status = status_of(client, connector)
    return status["tasks"][0] if status and status["tasks"] else None


def test_the_database_stopped_and_started_under_load_loses_nothing(
    server_database: ServerDatabase, kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    database, server = server_database.database, server_database.server
    topic = topic_factory()
    config = _config(database, topic, **{"max.retries": "1000", "retry.backoff.ms": "200"})
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets")) as (_, client):
        assert client.post("/connectors", json={"name": "outage-sink", "config": config}).status_code == 201
        produce(kafka_bootstrap, topic, _round(0))
        wait_until(lambda: _all_at_round(database, 0), 60, "the first round written", interval=0.5)
        producing = threading.Thread(target=lambda: [produce(kafka_bootstrap, topic, _round(r)) for r in range(1, 21)])
        producing.start()
        server.stop()
        try:
            wait_until(lambda: (_task_state(client, "outage-sink") or {}).get("state") == "RUNNING", 5, "the task")
            producing.join(60)
        finally:
            server.start()
        wait_until(lambda: _all_at_round(database, 20), 120, "every key at its last round", interval=0.5)
        assert (_task_state(client, "outage-sink") or {}).get("state") == "RUNNING"


def test_a_database_away_longer_than_the_retries_fails_the_task_and_a_restart_loses_nothing(
    server_database: ServerDatabase, kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    database, server = server_database.database, server_database.server
    topic = topic_factory()
    config = _config(database, topic, **{"max.retries": "2", "retry.backoff.ms": "100"})
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets")) as (_, client):
        assert client.post("/connectors", json={"name": "away-sink", "config": config}).status_code == 201
        produce(kafka_bootstrap, topic, _round(0))
        wait_until(lambda: _all_at_round(database, 0), 60, "the first round written", interval=0.5)
        server.stop()
        try:
            produce(kafka_bootstrap, topic, _round(1))
            failed = wait_until(
                lambda: (lambda t: t if t and t["state"] == "FAILED" else None)(_task_state(client, "away-sink")),
                60,
                "the task to fail",
            )
        finally:
            server.start()
        assert "failed 3 times in a row: Cannot connect to the database" in failed["trace"]
        assert client.post("/connectors/away-sink/tasks/0/restart").status_code == 204
        wait_until(lambda: _all_at_round(database, 1), 60, "the second round after the restart", interval=0.5)
