"""A million rows from PostgreSQL through Kafka back into PostgreSQL with the two SQL connectors: the copy
equals the original row by row (integers, text, decimals, timestamps, booleans, nulls)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.sql.plugin import make_database
from tests.support.sql_records import JSON_WITH_SCHEMAS
from tests.support.standalone_workers import all_running, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

ROWS = 1_000_000


@pytest.mark.slow
def test_a_million_rows_round_trip_unchanged(
    request: pytest.FixtureRequest, kafka_bootstrap: str, tmp_path: Path
) -> None:
    database = make_database("postgresql", request, tmp_path)
    database.execute(
        "CREATE TABLE original (id BIGINT PRIMARY KEY, name TEXT NOT NULL, amount NUMERIC(12,2), "
        "at TIMESTAMP(3) NOT NULL, flag BOOLEAN)",
        # Every fifth amount and every seventh flag are null; timestamps have milliseconds.
        f"INSERT INTO original SELECT g, 'name-' || g || repeat('x', (g % 50)::int), "
        "CASE WHEN g % 5 = 0 THEN NULL ELSE (g % 100000) / 100.0 END, "
        "TIMESTAMP '2024-01-01' + g * INTERVAL '1.001 second', CASE WHEN g % 7 = 0 THEN NULL ELSE g % 2 = 0 END "
        f"FROM generate_series(1, {ROWS}) AS g",
    )
    prefix = "rt-"
    source = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector",
        "connection.url": database.jdbc_url,
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "table.whitelist": "original",
        "topic.prefix": prefix,
        "batch.max.rows": "5000",
        **JSON_WITH_SCHEMAS,
    }
    sink = {
        "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
        "connection.url": database.jdbc_url,
        "topics": prefix + "original",
        "table.name.format": "copy",
        "insert.mode": "upsert",
        "pk.mode": "record_value",
        "pk.fields": "id",
        "auto.create": "true",
        "consumer.override.max.poll.records": "5000",
        **JSON_WITH_SCHEMAS,
    }
    try:
        with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets")) as (_, client):
            assert client.post("/connectors", json={"name": "rt-source", "config": source}).status_code == 201
            assert client.post("/connectors", json={"name": "rt-sink", "config": sink}).status_code == 201

            def copied() -> int:
                try:
                    return int(database.rows("SELECT COUNT(*) FROM copy")[0][0])  # type: ignore[call-overload]
                except Exception:  # not created yet
                    return 0

            wait_until(lambda: copied() >= ROWS, 600, f"{ROWS} rows in the copy", interval=2)
            assert all_running(client, "rt-source", 1) and all_running(client, "rt-sink", 1)
        differences = database.rows(
            "SELECT COUNT(*) FROM ((SELECT * FROM original EXCEPT ALL SELECT id, name, amount, at, flag FROM copy) "
            "UNION ALL (SELECT id, name, amount, at, flag FROM copy EXCEPT ALL SELECT * FROM original)) d"
        )
        assert differences == [(0,)]
        assert copied() == ROWS
    finally:
        database.dispose()
