"""Which tables the source copies: listing them from the database's metadata and applying the filters.

A `TableId` is (catalog, schema, name) as Confluent's connector names tables: PostgreSQL tables are
`database.schema.table`, MariaDB/MySQL ones `database.table` (a MySQL database is a JDBC catalog),
SQLite ones `table`. Its unquoted dotted form is the `table` of the source partition.

Filters (Confluent's semantics): `table.whitelist`/`table.blacklist` list names, each matched against
the bare, the schema-qualified and the fully-qualified name; `table.include.list`/`table.exclude.list`
are regular expressions matched against the whole fully-qualified name. `schema.pattern` and
`catalog.pattern` are SQL LIKE patterns; without them PostgreSQL is searched in every schema but its
own catalogs, MariaDB/MySQL in the connection's database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

_SYSTEM_SCHEMAS = {
    "postgresql": re.compile(r"pg_catalog|information_schema|pg_toast.*|pg_temp.*"),
    "mysql": re.compile(r"mysql|information_schema|performance_schema|sys", re.IGNORECASE),
}


@dataclass(frozen=True, order=True)
class TableId:
    catalog: str | None
    schema: str | None
    name: str

    @property
    def fqn(self) -> str:
        """The unquoted fully-qualified name, as in Confluent's offsets and `table.include.list`."""
        return ".".join(part for part in (self.catalog, self.schema, self.name) if part)

    @property
    def sqlalchemy_schema(self) -> str | None:
        """What SQLAlchemy calls the table's schema: the schema, or for MariaDB/MySQL the database."""
        return self.schema if self.schema is not None else self.catalog

    def names(self) -> set[str]:
        qualified = {self.name, self.fqn}
        if self.schema:
            qualified.add(f"{self.schema}.{self.name}")
        return qualified


@dataclass(frozen=True)
class TableFilter:
    whitelist: tuple[str, ...] = ()
    blacklist: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    schema_pattern: str | None = None
    catalog_pattern: str | None = None
    table_types: tuple[str, ...] = ("TABLE",)

    def accepts(self, table: TableId) -> bool:
        names = table.names()
        if self.whitelist and not names & set(self.whitelist):
            return False
        if self.blacklist and names & set(self.blacklist):
            return False
        if self.include and not any(re.fullmatch(p, table.fqn) for p in self.include):
            return False
        return not (self.exclude and any(re.fullmatch(p, table.fqn) for p in self.exclude))


def like_to_regex(pattern: str) -> re.Pattern[str]:
    """A SQL LIKE pattern (`%` any run, `_` one character) as a regular expression."""
    parts = [".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern]
    return re.compile("".join(parts))


def list_tables(connection: sa.Connection, table_filter: TableFilter) -> list[TableId]:
    """The tables and views the filter accepts, sorted."""
    inspector = sa.inspect(connection)
    dialect = "mysql" if connection.dialect.name in ("mysql", "mariadb") else connection.dialect.name
    catalog = connection.engine.url.database if dialect == "postgresql" else None
    found: list[TableId] = []
    for schema in _schemas(inspector, dialect, table_filter):
        names: list[str] = []
        if "TABLE" in table_filter.table_types:
            names += inspector.get_table_names(schema=schema)
        if "VIEW" in table_filter.table_types:
            names += inspector.get_view_names(schema=schema)
        for name in names:
            if dialect == "mysql":
                table = TableId(schema, None, name)
            elif dialect == "postgresql":
                table = TableId(catalog, schema, name)
            else:
                table = TableId(None, None, name)
            if table_filter.accepts(table):
                found.append(table)
    return sorted(set(found))


def _schemas(inspector: sa.Inspector, dialect: str, table_filter: TableFilter) -> list[str | None]:
    if dialect == "sqlite":
        return [None]
    pattern = table_filter.schema_pattern
    if dialect == "mysql":
        pattern = table_filter.catalog_pattern or pattern
    if pattern is None and dialect == "mysql":
        return [inspector.default_schema_name]
    system = _SYSTEM_SCHEMAS.get(dialect)
    regex = like_to_regex(pattern) if pattern is not None else None
    return [
        schema
        for schema in inspector.get_schema_names()
        if (regex.fullmatch(schema) if regex else not (system and system.fullmatch(schema)))
    ]


def encode_tables(tables: Sequence[TableId]) -> str:
    """The task config value listing a task's tables."""
    return json.dumps([[t.catalog, t.schema, t.name] for t in tables])


def decode_tables(text: str) -> list[TableId]:
    return [TableId(catalog, schema, name) for catalog, schema, name in json.loads(text)]


def spread(tables: Sequence[TableId], max_tasks: int) -> list[list[TableId]]:
    """Tables split over at most `max_tasks` groups of sizes differing by at most one, in order
    (Confluent's ConnectorUtils.groupPartitions); no empty group."""
    groups = min(max_tasks, len(tables))
    if groups <= 0:
        return []
    size, extra = divmod(len(tables), groups)
    result: list[list[TableId]] = []
    start = 0
    for index in range(groups):
        end = start + size + (1 if index < extra else 0)
        result.append(list(tables[start:end]))
        start = end
    return result
