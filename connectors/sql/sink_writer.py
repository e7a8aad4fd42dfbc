"""`SinkWriter`: writes one put's rows in one transaction, and finds the rows the database refuses.

Rows are cut into runs of consecutive rows with the same table, operation and columns, at most
`batch.size` long, so the order of writes to a key is kept (an insert, then the delete of the same
key, ...). Tables are created or evolved before the transaction begins. In upsert mode a run keeps
only the last row of each key: the outcome is the same and PostgreSQL refuses one statement touching
a row twice.

When the transaction fails for a reason of the data (not the connection), it is rolled back and the
rows are written again one by one, each in a transaction of its own: the rows the database refuses
are returned with its reason, for the task to report; the rest are written. Connection failures
propagate as `sa.exc.DBAPIError`s for which `is_connection_failure` is true.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa

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

    def write(self, connection: sa.Connection, rows: Sequence[SinkRow]) -> list[tuple[SinkRow, str]]:
        """Writes `rows`; the rows the database refused, with its reasons."""
        if not rows:
            return []
        runs = list(self._runs(rows))
        prepared = [(self.tables.table_for(connection, run[0].table, run), run) for run in runs]
        _end_transaction(connection)  # reflecting the tables began one
        try:
            with connection.begin():
                for table, run in prepared:
                    self._execute(connection, table, run)
            return []
        except sa.exc.DBAPIError as exc:
            if is_connection_failure(exc):
                raise
        return self._one_by_one(connection, prepared)

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
        if first.delete:
            connection.execute(statements.delete(table, keys), [statements.key_params(v, keys) for v in values])
            return
        mode = self.settings.insert_mode
        if mode == UPSERT:
            connection.execute(statements.upsert(table, dialect, list(first.values), keys), values)
        elif mode == UPDATE:
            if len(first.values) > len(keys):
                statement = statements.update(table, list(first.values), keys)
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
