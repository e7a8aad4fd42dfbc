"""The statements the sink runs for a run of alike rows: INSERT, the database's native upsert, UPDATE, DELETE.

Each is executed with all of the run's rows as one executemany, which the drivers send as multi-row
statements or a pipeline (psycopg 3 pipelines them, PyMySQL rewrites an INSERT into one multi-row
VALUES list, sqlite3 reuses one prepared statement). Upserts: PostgreSQL and SQLite
`INSERT … ON CONFLICT (key) DO UPDATE SET c = excluded.c`, MariaDB/MySQL
`INSERT … ON DUPLICATE KEY UPDATE c = VALUES(c)`; a replayed record then leaves exactly one row per key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql, postgresql, sqlite

from connect.api import ConfigError

UPSERT_DIALECTS = ("postgresql", "sqlite", "mysql", "mariadb")


def insert(table: sa.Table) -> sa.Executable:
    return sa.insert(table)


def upsert(table: sa.Table, dialect: str, columns: Sequence[str], key_columns: Sequence[str]) -> sa.Executable:
    updated = [c for c in columns if c not in key_columns]
    if dialect in ("postgresql", "sqlite"):
        module: Any = postgresql if dialect == "postgresql" else sqlite
        statement = module.insert(table)
        if not updated:
            upsert_statement: sa.Executable = statement.on_conflict_do_nothing(index_elements=list(key_columns))
        else:
            upsert_statement = statement.on_conflict_do_update(
                index_elements=list(key_columns), set_={c: statement.excluded[c] for c in updated}
            )
        return upsert_statement
    if dialect in ("mysql", "mariadb"):
        statement = mysql.insert(table)
        # With only key columns, "update" a key to itself: the row stays and no error is raised.
        assignments = {c: statement.inserted[c] for c in (updated or key_columns[:1])}
        return statement.on_duplicate_key_update(assignments)
    raise ConfigError(f"insert.mode=upsert is not supported for {dialect}; supported: {', '.join(UPSERT_DIALECTS)}")


def _key_criteria(table: sa.Table, key_columns: Sequence[str]) -> sa.ColumnElement[bool]:
    return sa.and_(*(table.c[c] == sa.bindparam(f"k_{c}", type_=table.c[c].type) for c in key_columns))


def update(table: sa.Table, columns: Sequence[str], key_columns: Sequence[str]) -> sa.Executable:
    values = {c: sa.bindparam(f"v_{c}", type_=table.c[c].type) for c in columns if c not in key_columns}
    return sa.update(table).where(_key_criteria(table, key_columns)).values(values)


def delete(table: sa.Table, key_columns: Sequence[str]) -> sa.Executable:
    return sa.delete(table).where(_key_criteria(table, key_columns))


def update_params(row: dict[str, Any], key_columns: Sequence[str]) -> dict[str, Any]:
    """Bind names of `update`: `k_<key column>` in the WHERE clause, `v_<column>` in SET."""
    return {(f"k_{c}" if c in key_columns else f"v_{c}"): v for c, v in row.items()}


def key_params(row: dict[str, Any], key_columns: Sequence[str]) -> dict[str, Any]:
    return {f"k_{c}": row[c] for c in key_columns}
