"""Destination tables: reflected once and cached, created (`auto.create`) and evolved (`auto.evolve`).

Column types for Connect schemas (Confluent's dialects' `getSqlType`, per database through SQLAlchemy):
int8/int16 → SMALLINT, int32 → INTEGER, int64 → BIGINT, float32 → REAL, float64 → DOUBLE PRECISION
(MariaDB DOUBLE), boolean → BOOLEAN (MariaDB TINYINT(1)), string → TEXT (VARCHAR(256) as a MariaDB key,
which cannot be TEXT), bytes → BYTEA/BLOB (VARBINARY(255) as a MariaDB key), Decimal → NUMERIC with the
schema's scale (DECIMAL(65, scale) on MariaDB), Date → DATE, Time → TIME, Timestamp → TIMESTAMP
(MariaDB DATETIME(6)). Key columns are NOT NULL and form the primary key; other columns are nullable
exactly when their schema is optional.

Evolution only adds columns: a field the table lacks is added when its schema is optional or has a
default; a required field without a default cannot be added to a table that has rows, so that fails
the task as in Confluent's connector. Columns are never dropped or altered.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from connect.api import ConnectError
from connect.api.data import DATE_NAME, DECIMAL_NAME, DECIMAL_SCALE_PARAM, TIME_NAME, TIMESTAMP_NAME, Schema, SchemaType
from connectors.sql.sink_rows import SinkRow

log = logging.getLogger(__name__)


def column_type(schema: Schema, key: bool) -> Any:
    """The SQLAlchemy type of a column for `schema`; ConnectError for a type with no column equivalent."""
    if schema.name == DECIMAL_NAME:
        scale = int((schema.parameters or {}).get(DECIMAL_SCALE_PARAM, "0"))
        return sa.Numeric(asdecimal=True).with_variant(mysql.DECIMAL(65, scale), "mysql", "mariadb")
    if schema.name == DATE_NAME:
        return sa.Date()
    if schema.name == TIME_NAME:
        return sa.Time().with_variant(mysql.TIME(fsp=6), "mysql", "mariadb")
    if schema.name == TIMESTAMP_NAME:
        return sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
    kind = schema.type
    if kind in (SchemaType.INT8, SchemaType.INT16):
        return sa.SmallInteger()
    if kind is SchemaType.INT32:
        return sa.Integer()
    if kind is SchemaType.INT64:
        return sa.BigInteger()
    if kind is SchemaType.FLOAT32:
        return sa.REAL()
    if kind is SchemaType.FLOAT64:
        return sa.Double()
    if kind is SchemaType.BOOLEAN:
        return sa.Boolean()
    if kind is SchemaType.STRING:
        return sa.Text().with_variant(mysql.VARCHAR(256), "mysql", "mariadb") if key else sa.Text()
    if kind is SchemaType.BYTES:
        return sa.LargeBinary().with_variant(mysql.VARBINARY(255), "mysql", "mariadb") if key else sa.LargeBinary()
    raise ConnectError(f"A {kind.value} field has no column type")


class TableCache:
    """The destination tables a task writes, by name; only the task's thread uses it."""

    def __init__(self, auto_create: bool, auto_evolve: bool) -> None:
        self.auto_create = auto_create
        self.auto_evolve = auto_evolve
        self._tables: dict[str, sa.Table] = {}

    def forget(self) -> None:
        self._tables.clear()

    def table_for(self, connection: sa.Connection, name: str, rows: Sequence[SinkRow]) -> sa.Table:
        """The table `rows` go to, created or evolved first when allowed and needed (committed at once:
        DDL is not transactional on MariaDB anyway, and a created table must outlive a failed write).
        `rows` are a run of the writer's: they all write the same columns, so the first row tells which
        columns the table needs and their schemas."""
        table = self._tables.get(name)
        if table is None:
            table = self._reflect(connection, name)
        if table is None:
            if not self.auto_create:
                raise ConnectError(f"Table {name} is missing and auto-creation is disabled")
            table = self._create(connection, name, rows)
        missing = self._missing_columns(table, rows[0])
        if missing:
            if not self.auto_evolve:
                raise ConnectError(
                    f"Table {name} is missing fields ({', '.join(sorted(missing))}) and auto-evolution is disabled"
                )
            table = self._evolve(connection, table, missing)
        self._tables[name] = table
        return table

    @staticmethod
    def _reflect(connection: sa.Connection, name: str) -> sa.Table | None:
        if not sa.inspect(connection).has_table(name):
            return None
        return sa.Table(name, sa.MetaData(), autoload_with=connection)

    @staticmethod
    def _missing_columns(table: sa.Table, row: SinkRow) -> dict[str, Schema | None]:
        return {column: row.schemas.get(column) for column in row.values if column not in table.c}

    def _create(self, connection: sa.Connection, name: str, rows: Sequence[SinkRow]) -> sa.Table:
        first = rows[0]
        columns = []
        for column in first.values:
            schema = first.schemas.get(column)
            key = column in first.key_columns
            if schema is None:
                raise ConnectError(f"Cannot create table {name}: field {column} has no schema (records need schemas)")
            # autoincrement=False: SQLAlchemy would make a lone integer key SERIAL/AUTO_INCREMENT, and MariaDB
            # then replaces a written 0 with a generated number.
            columns.append(
                sa.Column(
                    column,
                    column_type(schema, key),
                    primary_key=key,
                    nullable=not key and schema.optional,
                    autoincrement=False,
                )
            )
        table = sa.Table(name, sa.MetaData(), *columns)
        log.info("Creating table %s", name)
        table.create(connection, checkfirst=True)
        connection.commit()
        reflected = self._reflect(connection, name)
        assert reflected is not None
        return reflected

    def _evolve(self, connection: sa.Connection, table: sa.Table, missing: dict[str, Schema | None]) -> sa.Table:
        preparer = connection.dialect.identifier_preparer
        for column, schema in missing.items():
            if schema is None:
                raise ConnectError(f"Cannot add column {column} to {table.name}: the field has no schema")
            if not schema.optional and schema.default is None:
                raise ConnectError(
                    f"Cannot ALTER {table.name} to add missing field {column}, "
                    "as the field is not optional and does not have a default value"
                )
            sql_type = column_type(schema, key=False).compile(dialect=connection.dialect)
            log.info("Adding column %s %s to table %s", column, sql_type, table.name)
            connection.execute(
                sa.text(f"ALTER TABLE {preparer.format_table(table)} ADD COLUMN {preparer.quote(column)} {sql_type}")
            )
        connection.commit()
        reflected = self._reflect(connection, table.name)
        assert reflected is not None
        return reflected
