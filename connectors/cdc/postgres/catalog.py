"""What the connector reads from and sets up in the database's catalog, over an ordinary connection: the
server's readiness for logical decoding, the tables to capture and their columns and keys (Debezium reads
these out of band too: pgoutput's Relation messages carry no nullability), the publication and the slot.

Table filters are Debezium's: comma-separated regular expressions matched against the whole `schema.table`
(`table.include.list` / `table.exclude.list`) or schema name (`schema.include.list` / `.exclude.list`),
regardless of case; the system schemas are never captured.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import psycopg
from psycopg import sql

from connect.api.errors import ConnectError
from connectors.cdc.filters import matches_any, patterns
from connectors.cdc.postgres.defaults import FUNCTION_CALL
from connectors.cdc.postgres.events import ColumnInfo, TableInfo

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
ALL_TABLES, FILTERED, NO_TABLES, DISABLED = "all_tables", "filtered", "no_tables", "disabled"


def check_logical_decoding(connection: psycopg.Connection) -> None:
    """ConnectError naming the setting to change when the server cannot decode its WAL logically."""
    (level,) = _one(connection, "SHOW wal_level")
    if level != "logical":
        raise ConnectError(
            f"PostgreSQL runs with wal_level={level}: logical decoding needs wal_level=logical "
            "(set it in postgresql.conf and restart the server)"
        )


def _one(connection: psycopg.Connection, query: str, *args: object) -> tuple[object, ...]:
    with connection.cursor() as cursor:
        cursor.execute(query, args or None)
        row = cursor.fetchone()
    if row is None:
        raise ConnectError(f"no answer to {query}")
    return tuple(row)


@dataclass(frozen=True)
class TableFilter:
    """Debezium's include and exclude lists (an include list and its exclude list are exclusive)."""

    table_include: str = ""
    table_exclude: str = ""
    schema_include: str = ""
    schema_exclude: str = ""

    def captures(self, schema: str, table: str) -> bool:
        if schema in SYSTEM_SCHEMAS or schema.startswith("pg_temp"):
            return False
        full = f"{schema}.{table}"
        if self.schema_include and not matches_any(patterns(self.schema_include), schema):
            return False
        if matches_any(patterns(self.schema_exclude), schema):
            return False
        if self.table_include and not matches_any(patterns(self.table_include), full):
            return False
        return not matches_any(patterns(self.table_exclude), full)


def captured_tables(connection: psycopg.Connection, tables: TableFilter) -> list[tuple[str, str]]:
    """The ordinary and partitioned tables `tables` captures, by schema and name."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'p') ORDER BY n.nspname, c.relname"
        )
        return [(str(s), str(t)) for s, t in cursor.fetchall() if tables.captures(str(s), str(t))]


def _qualified(schema: str, table: str) -> sql.Composable:
    return sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))


def table_info(connection: psycopg.Connection, schema: str, table: str) -> TableInfo:
    """The table's columns in order (dropped ones left out) and its key: the primary key in key order, else
    the columns of its first unique index (`first_unique_index`)."""
    relation = _qualified(schema, table).as_string(connection)
    with connection.cursor() as cursor:
        # With each column its array element type, and an enum's (or an enum array's) labels in sort order.
        # Generated columns are left out: pgoutput never sends them (nor are they in its Relation messages).
        cursor.execute(
            "SELECT a.attname, a.atttypid, a.atttypmod, a.attnotnull, "
            "CASE WHEN t.typcategory = 'A' THEN t.typelem END, "
            "(SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e "
            "WHERE e.enumtypid = CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE t.oid END), "
            "pg_catalog.pg_get_expr(d.adbin, d.adrelid), tn.nspname, t.typname "
            "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
            "JOIN pg_namespace tn ON tn.oid = t.typnamespace "
            "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
            "WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' "
            "ORDER BY a.attnum",
            (relation,),
        )
        columns = tuple(
            ColumnInfo(
                str(name),
                int(oid),
                int(typmod),
                optional=not bool(not_null),
                element_oid=None if element is None else int(element),
                enum_labels=None if labels is None else tuple(str(label) for label in labels),
                default_expression=None if default is None else str(default),
                type_name=(str(type_schema), str(type_name)) if labels is not None else None,
            )
            for name, oid, typmod, not_null, element, labels, default, type_schema, type_name in cursor.fetchall()
        )
        cursor.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
            "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = %s::regclass AND i.indisprimary "
            "ORDER BY array_position(i.indkey, a.attnum)",
            (relation,),
        )
        keys = tuple(str(name) for (name,) in cursor.fetchall())
        if not keys:
            # As pgjdbc's `getIndexInfo(unique=true)` lists them: clustered first, then hash, then the others,
            # by index name, then column position.
            cursor.execute(
                "SELECT ci.relname, k.n, trim(both '\"' from pg_catalog.pg_get_indexdef(ci.oid, k.n, false)) "
                "FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ci ON ci.oid = i.indexrelid "
                "JOIN pg_catalog.pg_am am ON am.oid = ci.relam "
                "CROSS JOIN LATERAL information_schema._pg_expandarray(i.indkey) AS k "
                "WHERE i.indrelid = %s::regclass AND i.indisunique "
                "ORDER BY CASE WHEN i.indisclustered THEN 1 WHEN am.amname = 'hash' THEN 2 ELSE 3 END, "
                "ci.relname, k.n",
                (relation,),
            )
            keys = first_unique_index([(str(index), int(position), column) for index, position, column in cursor])
    return TableInfo(schema, table, columns, keys)


# `PostgresConnection.isTableUniqueIndexIncluded`: an index on a function or an expression is no key.
_EXPRESSION = re.compile(r"\(+(?:.+(?:[+ - * / < > = ~ ! @ # % ^ & | ` ?] ?.+)+)+\)")


def first_unique_index(rows: Sequence[tuple[str, int, str | None]]) -> tuple[str, ...]:
    """The key of a table with no primary key: the columns of its first unique index none of whose columns
    is a function or an expression (Debezium's `JdbcConnection.readTableUniqueIndices`); `rows` are
    (index, position from 1, column) in pgjdbc's order. Empty: no such index, the events have no key."""
    chosen: dict[int, str] = {}
    first: str | None = None
    excluded: set[str] = set()
    for index, position, column in rows:
        if index in excluded or position == 0:
            continue
        if column is None or FUNCTION_CALL.fullmatch(column) or _EXPRESSION.fullmatch(column):
            excluded.add(index)
            if first is None or index == first:
                first = None
                chosen.clear()
            continue
        if first is None:
            first = index
        if index != first:
            break
        chosen[position] = column
    return tuple(chosen[position] for position in sorted(chosen))


def ensure_publication(connection: psycopg.Connection, name: str, mode: str, tables: Sequence[tuple[str, str]]) -> None:
    """Debezium's `publication.autocreate.mode`: create the publication if missing (all tables, the captured
    ones, or none), and keep a filtered one's table list in step; `disabled` only requires that it exists."""
    (exists,) = _one(connection, "SELECT count(*) > 0 FROM pg_publication WHERE pubname = %s", name)
    publication = sql.Identifier(name)
    listed = sql.SQL(", ").join(_qualified(schema, table) for schema, table in tables)
    with connection.cursor() as cursor:
        if mode == DISABLED:
            if not exists:
                raise ConnectError(
                    f"Publication {name} does not exist and publication.autocreate.mode=disabled: create it "
                    "(CREATE PUBLICATION ... FOR TABLE ...) or choose another mode"
                )
        elif mode == ALL_TABLES and not exists:
            cursor.execute(sql.SQL("CREATE PUBLICATION {} FOR ALL TABLES").format(publication))
        elif mode == NO_TABLES and not exists:
            cursor.execute(sql.SQL("CREATE PUBLICATION {}").format(publication))
        elif mode == FILTERED:
            if not tables:
                raise ConnectError(f"No table matches the connector's filters: publication {name} would be empty")
            statement = "ALTER PUBLICATION {} SET TABLE {}" if exists else "CREATE PUBLICATION {} FOR TABLE {}"
            cursor.execute(sql.SQL(statement).format(publication, listed))
    connection.commit()


@dataclass(frozen=True)
class SlotState:
    plugin: str
    active: bool
    confirmed_flush_lsn: int | None


def slot_state(connection: psycopg.Connection, name: str) -> SlotState | None:
    """The slot `name` as pg_replication_slots shows it; None if there is none."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT plugin, active, confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s",
            (name,),
        )
        row = cursor.fetchone()
    if row is None:
        return None
    plugin, active, confirmed = row
    return SlotState(str(plugin), bool(active), None if confirmed is None else int(confirmed))
