"""PostgreSQL's bulk path for the sink: `COPY … FROM STDIN` through psycopg 3, inside the put's transaction.

- insert: COPY straight into the table;
- upsert, update, delete: COPY into a temporary staging table of the run's columns, then one statement
  from it: `INSERT … SELECT … ON CONFLICT (key) DO UPDATE`, `UPDATE … FROM`, `DELETE … USING`. A staging
  table is made once per connection and shape (`CREATE TEMPORARY TABLE IF NOT EXISTS`, so a savepoint or
  transaction rolled back with its creation costs nothing but its making again) and emptied by each commit
  (`ON COMMIT DELETE ROWS`): no catalog change per put. A second run of the same shape in one transaction
  empties it first.

COPY hands every value to the server as text, which the server parses by the column's type, where an
INSERT's parameters arrive typed and are cast. The two agree on the values a column naturally holds
(ints in integer columns, strings in text columns, ...), so a run goes this way only when each column's
values are all of the Python types that column takes as they are (`copyable`); any other run (a float in
an integer column, a bool in a text column) keeps the statements it had, so no value is written otherwise
than before. One difference is bridged: an aware datetime into a `timestamp without time zone` column is
converted to the session's zone (`db.timezone`) first, as the server's cast would (COPY's text parser would
drop the offset instead).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import operator
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

_NONE = type(None)
_NUMBERS = frozenset({int, float, Decimal, _NONE})


def applies(connection: sa.Connection) -> bool:
    """COPY is used on PostgreSQL through psycopg 3 (the driver `kconnect[sql]` installs)."""
    return connection.dialect.name == "postgresql" and connection.dialect.driver == "psycopg"


def _types_taken(column_type: sa.types.TypeEngine[Any]) -> frozenset[type]:
    """The Python types a column of `column_type` takes through COPY exactly as an INSERT would store them."""
    if isinstance(column_type, sa.Boolean):
        return frozenset({bool, _NONE})
    if isinstance(column_type, sa.Integer):
        return frozenset({int, _NONE})
    if isinstance(column_type, sa.Float | sa.Numeric):
        return _NUMBERS
    if isinstance(column_type, sa.LargeBinary):
        return frozenset({bytes, _NONE})
    if isinstance(column_type, sa.DateTime):
        return frozenset({dt.datetime, _NONE})
    if isinstance(column_type, sa.Date):
        return frozenset({dt.date, _NONE})
    if isinstance(column_type, sa.Time):
        return frozenset({dt.time, _NONE})
    return frozenset({str, _NONE})  # text, and types whose text input a string is (uuid, json, enums, ...)


def copyable(table: sa.Table, columns: Sequence[str], values: Sequence[dict[str, Any]]) -> bool:
    """Every value of every column is of a type its column takes as it is (see the module docstring)."""
    for name in columns:
        taken = _types_taken(table.c[name].type)
        if not {type(row[name]) for row in values} <= taken:
            return False
    return True


def _cell_adapter(table: sa.Table, zone: dt.tzinfo) -> dict[str, Any]:
    """Per column of `table`, a function for its values when COPY would read them otherwise than a cast."""
    adapters = {}
    for column in table.c:
        if isinstance(column.type, sa.DateTime) and not column.type.timezone:
            adapters[column.name] = lambda value: (
                value.astimezone(zone).replace(tzinfo=None) if value is not None and value.tzinfo else value
            )
    return adapters


def _identifier(table: sa.Table) -> Any:
    from psycopg import sql

    return sql.Identifier(table.schema, table.name) if table.schema else sql.Identifier(table.name)


def _names(columns: Sequence[str]) -> Any:
    """`columns` as a comma-separated list of quoted identifiers."""
    from psycopg import sql

    return sql.SQL(", ").join(map(sql.Identifier, columns))


def _copy(cursor: Any, target: Any, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    from psycopg import sql

    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(target, _names(columns))
    with cursor.copy(statement) as copy:
        write = copy.write_row
        for row in rows:
            write(row)


def _rows(
    table: sa.Table, columns: Sequence[str], values: Sequence[dict[str, Any]], zone: dt.tzinfo
) -> Iterable[tuple[Any, ...]]:
    adapters = _cell_adapter(table, zone)
    if not any(name in adapters for name in columns):
        if len(columns) == 1:
            return ((row[columns[0]],) for row in values)
        return map(operator.itemgetter(*columns), values)
    cells = [(name, adapters.get(name)) for name in columns]
    return (tuple(row[name] if adapt is None else adapt(row[name]) for name, adapt in cells) for row in values)


def write(
    connection: sa.Connection,
    table: sa.Table,
    operation: str,
    columns: Sequence[str],
    key_columns: Sequence[str],
    values: Sequence[dict[str, Any]],
    zone: dt.tzinfo,
    used: set[str],
) -> None:
    """Write a run of alike rows (`operation`: insert, upsert, update or delete) in the open transaction;
    `used` holds the staging tables the transaction wrote to (a new set for each transaction).
    The driver's errors come as SQLAlchemy's `DBAPIError`s, as the statements' would (a lost connection
    invalidates the connection)."""
    import psycopg

    driver_connection = connection.connection.driver_connection
    cursor = driver_connection.cursor()  # type: ignore[union-attr]
    try:
        _write(cursor, table, operation, columns, key_columns, values, zone, used)
    except psycopg.Error as exc:
        lost = connection.dialect.is_disconnect(exc, driver_connection, cursor)  # type: ignore[arg-type]
        if lost:
            connection.invalidate(exc)
        raise sa.exc.DBAPIError.instance(
            f"COPY into {table.name}", None, exc, psycopg.Error, connection_invalidated=lost
        ) from exc
    finally:
        cursor.close()


def _write(
    cursor: Any,
    table: sa.Table,
    operation: str,
    columns: Sequence[str],
    key_columns: Sequence[str],
    values: Sequence[dict[str, Any]],
    zone: dt.tzinfo,
    used: set[str],
) -> None:
    rows = _rows(table, columns, values, zone)
    target = _identifier(table)
    if operation == "insert":
        _copy(cursor, target, columns, rows)
        return
    stage = _stage(cursor, table, target, columns, used)
    _copy(cursor, stage, columns, rows)
    cursor.execute(_from_stage(operation, target, stage, columns, key_columns))


def _stage(cursor: Any, table: sa.Table, target: Any, columns: Sequence[str], used: set[str]) -> Any:
    """The staging table for `table`'s `columns`, made if need be, empty (`used`: the staging tables this
    transaction wrote to)."""
    from psycopg import sql

    shape = "\0".join((table.schema or "", table.name, *columns)).encode()
    name = f"kconnect_stage_{hashlib.sha1(shape).hexdigest()[:20]}"
    stage = sql.Identifier(name)
    names = _names(columns)
    cursor.execute(
        sql.SQL(
            "CREATE TEMPORARY TABLE IF NOT EXISTS {} ON COMMIT DELETE ROWS AS SELECT {} FROM {} WITH NO DATA"
        ).format(stage, names, target)
    )
    if name in used:
        cursor.execute(sql.SQL("DELETE FROM {}").format(stage))
    used.add(name)
    return stage


def _from_stage(operation: str, target: Any, stage: Any, columns: Sequence[str], key_columns: Sequence[str]) -> Any:
    from psycopg import sql

    def joined(template: str, names: Iterable[str], separator: str) -> Any:
        return sql.SQL(separator).join(sql.SQL(template).format(name=sql.Identifier(n)) for n in names)

    names = _names(columns)
    keys = _names(key_columns)
    updated = [c for c in columns if c not in key_columns]
    matching = joined("t.{name} = s.{name}", key_columns, " AND ")
    if operation == "upsert":
        action = (
            sql.SQL("DO UPDATE SET {}").format(joined("{name} = EXCLUDED.{name}", updated, ", "))
            if updated
            else sql.SQL("DO NOTHING")
        )
        return sql.SQL("INSERT INTO {} ({}) SELECT {} FROM {} ON CONFLICT ({}) {}").format(
            target, names, names, stage, keys, action
        )
    if operation == "update":
        return sql.SQL("UPDATE {} AS t SET {} FROM {} AS s WHERE {}").format(
            target, joined("{name} = s.{name}", updated, ", "), stage, matching
        )
    if operation == "delete":
        return sql.SQL("DELETE FROM {} AS t USING {} AS s WHERE {}").format(target, stage, matching)
    raise ValueError(f"No bulk statement for {operation}")
