"""`heartbeat.action.query`: SQL run on the database with every heartbeat (Debezium's `DatabaseHeartbeatImpl`).

Debezium's users run an upsert into a small captured table with it, so a slot whose tables are quiet still
has changes to confirm (kconnect's slot moves on while idle anyway: psycopg2 reports the server's position as
flushed once everything received is confirmed), or to see the connector's heartbeats in the database.
Errors are Debezium's (`PostgresConnectorTask`'s handler):
the server shutting down (57P01) or the query's table missing (42P01) fail the task, a server not accepting
connections yet (57P03) is retriable, anything else is logged and the next heartbeat tries again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import psycopg

from connect.api.errors import ConnectError, RetriableError

log = logging.getLogger(__name__)

_FATAL = frozenset({"57P01", "42P01"})  # admin_shutdown, undefined_table
_RETRIABLE = frozenset({"57P03"})  # cannot_connect_now


class HeartbeatAction:
    def __init__(self, query: str, connect: Callable[[], Any]) -> None:
        """`connect`: opens an autocommit connection for the query (kept, and opened again after a failure)."""
        self._query = query
        self._connect = connect
        self._connection: Any = None

    def run(self) -> None:
        try:
            if self._connection is None or self._connection.closed:
                self._connection = self._connect()
            self._connection.execute(self._query)
        except psycopg.Error as exc:
            state = exc.sqlstate or ""
            message = f"Could not execute heartbeat action query (Error: {state or 'no SQLSTATE'}): {exc}".strip()
            if state in _FATAL:
                raise ConnectError(message) from exc
            if state in _RETRIABLE:
                raise RetriableError(message) from exc
            log.error("%s", message)
            self.close()

    def close(self) -> None:
        if self._connection is not None:
            try:
                self._connection.close()
            except psycopg.Error as exc:
                log.debug("Closing the heartbeat action's connection: %s", exc)
            self._connection = None
