"""`SinkWriter`: writes one put's rows in one transaction, and finds the rows the database refuses.

Rows are cut into runs of consecutive rows with the same table, operation and columns, at most
`batch.size` long, so the order of writes to a key is kept (an insert, then the delete of the same
key, ...). Tables are created or evolved before the transaction begins. In upsert mode a run keeps
only the last row of each key: the outcome is the same and PostgreSQL refuses one statement touching
a row twice.

On PostgreSQL a run goes through COPY (`pg_bulk`) where its values allow, else through the statements of
`sink_statements` as one executemany.

When the transaction fails for a reason of the data (not the connection), it is rolled back and written
again in one transaction with each run under a savepoint: a run the database refuses is split in halves,
each tried again under its own savepoint, until the refused rows stand alone, so the rest keeps the bulk
path (k refused rows of n cost about k·log2(n) attempts). The refused rows are returned with the database's
reason, for the task to report; the rest are written. SQLite, whose Python driver cannot be trusted with
savepoints, writes the rows one by one instead, each in a transaction of its own. Connection failures
propagate as `sa.exc.DBAPIError`s for which `is_connection_failure` is true.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa

from connectors.sql import pg_bulk
from connectors.sql import sink_statements as statements
from connectors.sql.connection import describe_error
from connectors.sql.sink_config import UPDATE, UPSERT, SinkSettings
from connectors.sql.sink_rows import SinkRow
from connectors.sql.sink_tables import TableCache


def is_connection_failure(exc: BaseException) -> bool:
    """Whether `exc` means the database could not be reached (retry later), not that it refused data."""
    if isinstance(exc, sa.exc.DBAPIError):
        return exc.connection_invalidated or isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError)
    return isinstance(exc, sa.exc.DisconnectionError | sa.exc.TimeoutError)


class SinkWriter:
    def __init__(self, settings: SinkSettings, zone: dt.tzinfo) -> None:
        self.settings = settings
        self.zone = zone
        self.tables = TableCache(settings.auto_create, settings.auto_evolve)
        self._stages_used: set[str] = set()  # by the current transaction (`pg_bulk`)

    def write(self, connection: sa.Connection, rows: Sequence[SinkRow]) -> list[tuple[SinkRow, str]]:
        """Writes `rows`; the rows the database refused, with its reasons."""
        if not rows:
            return []
        runs = list(self._runs(rows))
        prepared = [(self.tables.table_for(connection, run[0].table, run), run) for run in runs]
        _end_transaction(connection)  # reflecting the tables began one
        self._stages_used = set()
        try:
            with connection.begin():
                for table, run in prepared:
                    self._execute(connection, table, run)
            return []
        except sa.exc.DBAPIError as exc:
            if is_connection_failure(exc):
                raise
        if connection.dialect.name == "sqlite":
            return self._one_by_one(connection, prepared)
        return self._isolating_refusals(connection, prepared)

    def _isolating_refusals(
        self, connection: sa.Connection, prepared: list[tuple[sa.Table, list[SinkRow]]]
    ) -> list[tuple[SinkRow, str]]:
        refused: list[tuple[SinkRow, str]] = []
        _end_transaction(connection)
        self._stages_used = set()
        with connection.begin():
            for table, run in prepared:
                self._write_or_split(connection, table, run, refused)
        return refused

    def _write_or_split(
        self, connection: sa.Connection, table: sa.Table, run: list[SinkRow], refused: list[tuple[SinkRow, str]]
    ) -> None:
        try:
            with connection.begin_nested():
                self._execute(connection, table, run)
            return
        except sa.exc.DBAPIError as exc:
            if is_connection_failure(exc):
                raise
            if len(run) == 1:
                refused.append((run[0], describe_error(exc)))
                return
        middle = len(run) // 2
        self._write_or_split(connection, table, run[:middle], refused)
        self._write_or_split(connection, table, run[middle:], refused)

    def _one_by_one(
        self, connection: sa.Connection, prepared: list[tuple[sa.Table, list[SinkRow]]]
    ) -> list[tuple[SinkRow, str]]:
        refused: list[tuple[SinkRow, str]] = []
        for table, run in prepared:
            for row in run:
                _end_transaction(connection)
                try:
                    with connection.begin():
                        self._execute(connection, table, [row])
                except sa.exc.DBAPIError as exc:
                    if is_connection_failure(exc):
                        raise
                    refused.append((row, describe_error(exc)))
        return refused

    def _runs(self, rows: Sequence[SinkRow]) -> Iterator[list[SinkRow]]:
        size = self.settings.batch_size or len(rows)

        def shape(row: SinkRow) -> tuple[str, bool, tuple[str, ...]]:
            return row.table, row.delete, tuple(row.values)

        for _, alike in itertools.groupby(rows, key=shape):
            group = list(alike)
            if self.settings.insert_mode == UPSERT and not group[0].delete:
                group = list({row.key(): row for row in group}.values())
            for start in range(0, len(group), size):
                yield group[start : start + size]

    def _execute(self, connection: sa.Connection, table: sa.Table, run: Sequence[SinkRow]) -> None:
        first = run[0]
        keys = first.key_columns
        dialect = connection.dialect.name
        values = [self._adapt(row.values, dialect) for row in run]
        operation = "delete" if first.delete else self.settings.insert_mode
        columns = list(first.values)
        if operation == UPDATE and len(columns) <= len(keys):
            return  # nothing to set
        if pg_bulk.applies(connection) and pg_bulk.copyable(table, columns, values):
            if operation == UPDATE:  # one row per key, the last: as the updates one after the other would leave it
                values = list({tuple(v[c] for c in keys): v for v in values}.values())
            pg_bulk.write(connection, table, operation, columns, keys, values, self.zone, self._stages_used)
            return
        if first.delete:
            connection.execute(statements.delete(table, keys), [statements.key_params(v, keys) for v in values])
            return
        mode = self.settings.insert_mode
        if mode == UPSERT:
            connection.execute(statements.upsert(table, dialect, list(first.values), keys), values)
        elif mode == UPDATE:
            statement = statements.update(table, columns, keys)
            connection.execute(statement, [statements.update_params(v, keys) for v in values])
        else:
            connection.execute(statements.insert(table), values)

    def _adapt(self, values: dict[str, Any], dialect: str) -> dict[str, Any]:
        if dialect == "postgresql":
            return values  # sessions are in db.timezone; PostgreSQL converts instants itself
        # Elsewhere timestamps are stored as wall-clock times of db.timezone.
        return {
            name: value.astimezone(self.zone).replace(tzinfo=None)
            if isinstance(value, dt.datetime) and value.tzinfo is not None
            else value
            for name, value in values.items()
        }


def _end_transaction(connection: sa.Connection) -> None:
    if connection.in_transaction():
        connection.rollback()
