"""Reading tables for a snapshot, consistent with a slot: every row committed before the slot's consistent
point, none after, so the stream that starts there continues without a gap or a repeat.

A new slot exports a snapshot of the database as of its consistent point; a transaction that imports it
(`SET TRANSACTION SNAPSHOT`, REPEATABLE READ, as Debezium's `PostgresSnapshotChangeEventSource` does) sees
exactly that state. Values are read as their types' text output (what pgoutput sends, not a cast to text,
which trims `char(n)` and spells booleans out) with the replication stream's session settings, so one
decoder turns both into Connect values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.string import TextLoader

from connectors.cdc.postgres.replication import SESSION_OPTIONS

FETCH_SIZE = 10240  # Debezium's snapshot.fetch.size


class SnapshotReader:
    """One REPEATABLE READ transaction, on the exported snapshot `snapshot_name` if given."""

    def __init__(self, connection_params: Mapping[str, Any], snapshot_name: str | None) -> None:
        params = dict(connection_params)
        params["options"] = f"{params.get('options', '')} {SESSION_OPTIONS}".strip()
        self._connection = psycopg.connect(**params, autocommit=False)
        with self._connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            if snapshot_name is not None:
                cursor.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot_name)))

    def rows(
        self, schema: str, table: str, columns: Sequence[str], fetch_size: int = FETCH_SIZE
    ) -> Iterator[tuple[str | None, ...]]:
        """Every row of `schema.table`, its `columns` as text, read through a server-side cursor."""
        table_name = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))
        query = sql.SQL("SELECT {} FROM {}").format(sql.SQL(", ").join(map(sql.Identifier, columns)), table_name)
        with self._connection.cursor(name=f"kconnect_snapshot_{schema}_{table}") as cursor:
            for type_oid in self._column_types(table_name, columns):
                cursor.adapters.register_loader(type_oid, TextLoader)
            cursor.itersize = fetch_size
            cursor.execute(query)
            yield from cursor

    def _column_types(self, table_name: sql.Composable, columns: Sequence[str]) -> set[int]:
        query = sql.SQL("SELECT atttypid FROM pg_attribute WHERE attrelid = {}::regclass AND attname = ANY({})").format(
            sql.Literal(table_name.as_string(self._connection)), sql.Literal(list(columns))
        )
        with self._connection.cursor() as cursor:
            cursor.execute(query)
            return {int(row[0]) for row in cursor.fetchall()}

    def close(self) -> None:
        """Ends the transaction (it only read) and the connection."""
        self._connection.rollback()
        self._connection.close()
