"""`heartbeat.action.query` runs on a connection of its own with every heartbeat; its errors are Debezium's:
fatal for a server shutting down or a missing table, retriable for a server not accepting connections yet,
logged (and the connection opened again) for anything else."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from connect.api.errors import ConnectError, RetriableError
from connectors.cdc.postgres.heartbeat_action import HeartbeatAction


class FakeConnection:
    def __init__(self, error: psycopg.Error | None = None) -> None:
        self.error = error
        self.executed: list[str] = []
        self.closed = False

    def execute(self, query: str) -> None:
        if self.error is not None:
            raise self.error
        self.executed.append(query)

    def close(self) -> None:
        self.closed = True


def action(*connections: FakeConnection) -> tuple[HeartbeatAction, list[FakeConnection]]:
    pending, opened = list(connections), []

    def connect() -> Any:
        opened.append(pending.pop(0))
        return opened[-1]

    return HeartbeatAction("UPDATE beats SET at = now()", connect), opened


def sql_error(state: str) -> psycopg.Error:
    return psycopg.errors.lookup(state)("boom")


def test_the_query_runs_on_one_connection_kept_between_heartbeats() -> None:
    heartbeat, opened = action(FakeConnection())
    heartbeat.run()
    heartbeat.run()
    assert len(opened) == 1 and opened[0].executed == ["UPDATE beats SET at = now()"] * 2
    heartbeat.close()
    assert opened[0].closed


@pytest.mark.parametrize(
    ("state", "error"), [("57P01", ConnectError), ("42P01", ConnectError), ("57P03", RetriableError)]
)
def test_a_server_shutting_down_or_a_missing_table_fails_and_a_server_starting_up_is_retried(
    state: str, error: type[Exception]
) -> None:
    heartbeat, _ = action(FakeConnection(sql_error(state)))
    with pytest.raises(error, match=rf"Could not execute heartbeat action query \(Error: {state}\)") as raised:
        heartbeat.run()
    assert (type(raised.value) is RetriableError) == (state == "57P03")


def test_any_other_error_is_logged_and_the_next_heartbeat_tries_on_a_new_connection(
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken, fresh = FakeConnection(sql_error("23505")), FakeConnection()
    heartbeat, opened = action(broken, fresh)
    heartbeat.run()
    assert "Could not execute heartbeat action query (Error: 23505)" in caplog.text and broken.closed
    heartbeat.run()
    assert opened == [broken, fresh] and fresh.executed == ["UPDATE beats SET at = now()"]
