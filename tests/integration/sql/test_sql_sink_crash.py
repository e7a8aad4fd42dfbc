"""A `kconnect standalone` process running the SQL sink in upsert mode is killed with SIGKILL in the
middle of the stream; a new process resumes from the committed offsets and replays what the database
may already hold. The table ends with exactly one row per key, holding the values of its last record."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.sql_records import JSON_WITH_SCHEMAS, produce, struct_json
from tests.support.standalone_workers import KconnectProcess, all_running, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

KEYS = 500
ROUNDS = 40
KEY_FIELDS = [("id", "int32", False)]
VALUE_FIELDS = [("id", "int32", False), ("round", "int32", False), ("note", "string", True)]


def _count(database: SqlDatabase, where: str = "") -> int:
    try:
        return int(database.rows(f"SELECT COUNT(*) FROM crash {where}")[0][0])  # type: ignore[call-overload]
    except Exception:  # not created yet
        return 0


@pytest.mark.slow
def test_kill_9_mid_stream_leaves_one_row_per_key_with_the_last_values(
    sql_database: SqlDatabase, kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=2)
    produce(
        kafka_bootstrap,
        topic,
        [
            (
                struct_json(KEY_FIELDS, {"id": i}, "k"),
                struct_json(VALUE_FIELDS, {"id": i, "round": r, "note": f"{i}/{r}"}, "v"),
            )
            for r in range(ROUNDS)
            for i in range(KEYS)
        ],
    )
    worker = tmp_path / "worker.properties"
    props = worker_props(kafka_bootstrap, tmp_path / "offsets", **{"offset.flush.interval.ms": "500"})
    worker.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    connector = tmp_path / "sink.json"
    config = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "connection.url": sql_database.jdbc_url,
        "topics": topic,
        "table.name.format": "crash",
        "insert.mode": "upsert",
        "pk.mode": "record_key",
        "auto.create": "true",
        "batch.size": "100",
        "consumer.override.max.poll.records": "200",
        **JSON_WITH_SCHEMAS,
    }
    connector.write_text(json.dumps({"name": "crash-sink", "config": config}))

    first = KconnectProcess(worker, [connector], tmp_path / "first.log")
    try:
        first.url()
        # Killed once some keys have moved past their first rounds, long before the last.
        wait_until(lambda: _count(sql_database, "WHERE round >= 3") > 0, 120, "writes under way", interval=0.2)
    finally:
        first.kill()
    assert _count(sql_database, f"WHERE round = {ROUNDS - 1}") < KEYS, "the kill came before the end"

    second = KconnectProcess(worker, [connector], tmp_path / "second.log")
    try:
        with httpx.Client(base_url=second.url(), timeout=30) as client:
            wait_until(lambda: all_running(client, "crash-sink", 1), 60, "the sink to run again")
            wait_until(
                lambda: _count(sql_database, f"WHERE round = {ROUNDS - 1}") == KEYS,
                180,
                "every key at its last round",
                interval=0.5,
            )
    finally:
        assert second.terminate() == 0, second.log_tail()
    rows = sql_database.rows("SELECT id, round, note FROM crash ORDER BY id")
    assert rows == [(i, ROUNDS - 1, f"{i}/{ROUNDS - 1}") for i in range(KEYS)]
