"""`Querier`: reads one table (or the query) in the configured mode, batch by batch, tracking its position.

As Confluent's TableQuerier: a query runs once per `poll.interval.ms`; its result stays open across
polls (`batch.max.rows` rows each) until it is exhausted, then the transaction ends (so the next query
sees rows committed since) and the querier waits for its next turn. Generated criteria (Confluent's
TimestampIncrementingCriteria), where ts is the COALESCE of the timestamp columns and end is the
database's now minus `timestamp.delay.interval.ms`:

- incrementing: `inc > last ORDER BY inc`
- timestamp: `ts > last AND ts < end ORDER BY ts`
- timestamp+incrementing: `ts < end AND ((ts = last AND inc > last_inc) OR ts > last) ORDER BY ts, inc`

In timestamp mode a row carries its own timestamp as offset only when the next row's timestamp is
larger (or the result ended); rows sharing a timestamp carry the offset from before them, so a restart
in the middle of such a run reads the run again rather than skipping its rest.

Only the task's thread uses a querier.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from connect.api import ConnectError, SourceOffset, SourceRecordBatch, Struct
from connect.api.batch import FieldOffsets
from connect.api.data import Schema
from connectors.sql.column_schemas import ColumnMapping, column_mapping, schema_for_value, timestamp_reader
from connectors.sql.source_config import (
    MODE_BULK,
    MODE_INCREMENTING,
    MODE_TIMESTAMP,
    MODE_TIMESTAMP_INCREMENTING,
)
from connectors.sql.source_offsets import INCREMENTING_FIELD, Position
from connectors.sql.tables import TableId

TS_LABEL = "__kconnect_ts"


@dataclass(frozen=True)
class QuerySettings:
    mode: str
    incrementing_column: str
    timestamp_columns: tuple[str, ...]
    delay_ms: int
    validate_non_null: bool
    numeric_mapping: str | None
    zone: dt.tzinfo
    query: str
    query_suffix: str
    topic: str


class Querier:
    """One table or the query; see the module docstring."""

    def __init__(
        self,
        settings: QuerySettings,
        table: TableId | None,
        partition: dict[str, str],
        position: Position,
    ) -> None:
        self.settings = settings
        self.table = table
        self.partition = partition
        self.position = position
        self.next_run = 0.0  # time.monotonic() of the next query
        self._result: sa.CursorResult[Any] | None = None
        self._peeked: sa.Row[Any] | None = None
        self._prepared: _Prepared | None = None
        self._read_ts = timestamp_reader(settings.zone)

    @property
    def uses_timestamp(self) -> bool:
        return self.settings.mode in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING)

    @property
    def uses_incrementing(self) -> bool:
        return self.settings.mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING)

    @property
    def querying(self) -> bool:
        return self._result is not None

    def read(self, connection: sa.Connection, max_rows: int) -> SourceRecordBatch | None:
        """Up to `max_rows` records; None when the query's result is exhausted (the querier is then idle)."""
        if self._result is None:
            self._start(connection)
        assert self._result is not None and self._prepared is not None
        rows: list[sa.Row[Any]] = []
        if self._peeked is not None:
            rows.append(self._peeked)
            self._peeked = None
        rows += self._result.fetchmany(max_rows - len(rows))
        if not rows:
            self.reset(connection)
            return None
        if self.settings.mode == MODE_TIMESTAMP:
            self._peeked = self._result.fetchone()
        return self._batch(rows)

    def reset(self, connection: sa.Connection) -> None:
        """Ends the query and its transaction (also after an error)."""
        result, self._result, self._peeked = self._result, None, None
        try:
            if result is not None:
                result.close()
        finally:
            if connection.in_transaction():
                connection.rollback()

    # -- the query -------------------------------------------------------------------------------

    def _start(self, connection: sa.Connection) -> None:
        if self._prepared is None:
            self._prepared = self._prepare(connection)
        params: dict[str, Any] = {}
        if self.uses_timestamp:
            end = database_now(connection, self.settings.zone) - dt.timedelta(milliseconds=self.settings.delay_ms)
            params["kc_end"] = self._bind_time(connection, end)
            params["kc_last"] = self._bind_time(connection, self.position.timestamp or _EPOCH)
        if self.uses_incrementing:
            params["kc_last_inc"] = -1 if self.position.incrementing is None else self.position.incrementing
        statement = self._prepared.statement
        streaming = connection.execution_options(stream_results=True)
        self._result = streaming.execute(statement, params)

    def _bind_time(self, connection: sa.Connection, instant: dt.datetime) -> Any:
        if connection.dialect.name == "postgresql":
            return instant  # the session's time zone is db.timezone: PostgreSQL compares instants
        local = instant.astimezone(self.settings.zone).replace(tzinfo=None)
        if connection.dialect.name == "sqlite" and self.table is None:
            return local.isoformat(sep=" ")  # the text form SQLAlchemy stores in SQLite
        return local

    def _prepare(self, connection: sa.Connection) -> _Prepared:
        if self.table is None:
            return _prepare_query(connection, self.settings)
        return _prepare_table(connection, self.settings, self.table)

    # -- records ---------------------------------------------------------------------------------

    def _batch(self, rows: Sequence[sa.Row[Any]]) -> SourceRecordBatch:
        prepared = self._prepared
        assert prepared is not None
        if prepared.inferred:
            prepared.infer_from(rows[0]._mapping, self.settings.zone)
        names, schema = prepared.names, prepared.value_schema()
        # Rows are tuples: read each field by position, the cheapest access a Row has.
        fields = rows[0]._fields
        columns = [
            (name, fields.index(name), convert) for name, convert in zip(names, prepared.converters, strict=True)
        ]
        values = []
        for row in rows:
            struct_values = {}
            for name, position, convert in columns:
                raw = row[position]
                struct_values[name] = None if raw is None else convert(raw)
            values.append(Struct.unchecked(schema, struct_values))
        return SourceRecordBatch(
            self.settings.topic,
            values,
            schema,
            source_partition=self.partition,
            source_offsets=self._offsets(rows),
        )

    def _offsets(self, rows: Sequence[sa.Row[Any]]) -> Sequence[SourceOffset | None] | None:
        mode = self.settings.mode
        if mode == MODE_BULK:
            return None
        prepared = self._prepared
        assert prepared is not None
        if mode == MODE_INCREMENTING:
            # One number per row; the runtime builds an offset map only for the records it needs.
            position = rows[0]._fields.index(prepared.incrementing)
            numbers = [int(row[position]) for row in rows]
            self.position = Position(None, numbers[-1])
            return FieldOffsets(INCREMENTING_FIELD, numbers)
        last_index = len(rows) - 1
        return [
            self._advance(row._mapping, rows[index + 1] if index < last_index else self._peeked, mode)
            for index, row in enumerate(rows)
        ]

    def _advance(self, mapping: Any, following: sa.Row[Any] | None, mode: str) -> dict[str, Any] | None:
        if mode == MODE_BULK:
            return None
        prepared = self._prepared
        assert prepared is not None
        timestamp = self._read_ts(mapping[TS_LABEL]) if self.uses_timestamp else None
        incrementing = int(mapping[prepared.incrementing]) if self.uses_incrementing else None
        if mode == MODE_TIMESTAMP:
            # Hold back: only when the next row is later can a restart skip this row's timestamp.
            next_ts = None if following is None else self._read_ts(following._mapping[TS_LABEL])
            if next_ts is None or timestamp is None or next_ts > timestamp:
                self.position = Position(timestamp, None)
            return self.position.to_offset(True, False)
        self.position = Position(timestamp, incrementing)
        return self.position.to_offset(self.uses_timestamp, self.uses_incrementing)


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def database_now(connection: sa.Connection, zone: dt.tzinfo) -> dt.datetime:
    if connection.dialect.name == "sqlite":
        return dt.datetime.now(dt.UTC)  # embedded: the database's clock is ours
    value = connection.execute(sa.select(sa.func.current_timestamp())).scalar_one()
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=zone)).astimezone(dt.UTC)
    raise ConnectError(f"The database's current time came back as {value!r}")


class _Prepared:
    """The statement of a querier and how its columns become fields (types inferred for a query)."""

    def __init__(
        self,
        statement: sa.Executable,
        name: str | None,
        mappings: dict[str, ColumnMapping | None],
        nullable: dict[str, bool],
        incrementing: str,
        inferred: bool,
    ) -> None:
        self.statement = statement
        self.schema_name = name
        self.mappings = mappings
        self.nullable = nullable
        self.incrementing = incrementing
        self.inferred = inferred
        self._schema: Schema | None = None
        self.names: list[str] = []
        self.converters: list[Any] = []
        self._build()

    def _build(self) -> None:
        known = {n: m for n, m in self.mappings.items() if m is not None}
        self.names = list(known)
        self.converters = [m.convert for m in known.values()]
        fields = [(n, m.schema.as_optional() if self.nullable.get(n, True) else m.schema) for n, m in known.items()]
        self._schema = Schema.struct(fields, name=self.schema_name)

    def infer_from(self, mapping: Any, zone: dt.tzinfo) -> None:
        changed = False
        for name in mapping:
            if name == TS_LABEL:
                continue
            value = mapping[name]
            if self.mappings.get(name) is None and value is not None:
                self.mappings[name] = schema_for_value(value, zone)
                changed = True
        if changed:
            self._build()

    def value_schema(self) -> Schema:
        assert self._schema is not None
        return self._schema


def _prepare_table(connection: sa.Connection, settings: QuerySettings, table_id: TableId) -> _Prepared:
    try:
        table = sa.Table(table_id.name, sa.MetaData(), schema=table_id.sqlalchemy_schema, autoload_with=connection)
    except sa.exc.NoSuchTableError:
        raise ConnectError(f"Table {table_id.fqn} does not exist") from None
    dialect = connection.dialect.name
    # Plain str names: SQLAlchemy's quoted_name is a str subclass, which JSON encoders refuse as keys.
    mappings = {
        str(c.name): column_mapping(c.type, settings.numeric_mapping, settings.zone, dialect) for c in table.columns
    }
    nullable = {str(c.name): bool(c.nullable) for c in table.columns}
    incrementing = settings.incrementing_column or _auto_increment_column(table)
    columns = [table.c[name] for name, mapping in mappings.items() if mapping is not None]
    statement = sa.select(*columns)
    if settings.mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING) and incrementing not in table.c:
        raise ConnectError(f"Incrementing column {incrementing} not found in {table_id.fqn}")
    if settings.mode in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING):
        missing = [c for c in settings.timestamp_columns if c not in table.c]
        if missing:
            raise ConnectError(f"Timestamp column(s) {', '.join(missing)} not found in {table_id.fqn}")
    if settings.validate_non_null:
        _check_non_null(table, settings, incrementing, table_id)
    statement = _with_criteria(statement, settings, {c.name: c for c in table.columns}, incrementing)
    if settings.query_suffix:
        statement = statement.suffix_with(settings.query_suffix)
    return _Prepared(statement, str(table_id.name), mappings, nullable, incrementing, inferred=False)


def _auto_increment_column(table: sa.Table) -> str:
    for column in table.columns:
        if column.autoincrement is True:
            return column.name
    keys = list(table.primary_key.columns)
    if len(keys) == 1 and isinstance(keys[0].type, sa.Integer):
        return keys[0].name
    return ""


def _check_non_null(table: sa.Table, settings: QuerySettings, incrementing: str, table_id: TableId) -> None:
    checked = []
    if settings.mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING):
        checked.append(incrementing)
    if settings.mode in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING):
        checked += settings.timestamp_columns
    nullable = [name for name in checked if table.c[name].nullable and not table.c[name].primary_key]
    if nullable:
        raise ConnectError(
            f"Cannot make incremental queries using {'/'.join(nullable)} of {table_id.fqn}: "
            "the column(s) are nullable (set validate.non.null=false to allow it)"
        )


def _with_criteria(
    statement: sa.Select[Any], settings: QuerySettings, columns: dict[str, Any], incrementing: str
) -> sa.Select[Any]:
    mode = settings.mode
    if mode == MODE_BULK:
        return statement
    inc = columns[incrementing] if mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING) else None
    if mode == MODE_INCREMENTING:
        assert inc is not None
        return statement.where(inc > sa.bindparam("kc_last_inc")).order_by(inc.asc())
    ts_columns = [columns[c] for c in settings.timestamp_columns]
    ts = ts_columns[0] if len(ts_columns) == 1 else sa.func.coalesce(*ts_columns, type_=ts_columns[0].type)
    last = sa.bindparam("kc_last", type_=ts_columns[0].type)
    end = sa.bindparam("kc_end", type_=ts_columns[0].type)
    statement = statement.add_columns(ts.label(TS_LABEL))
    if mode == MODE_TIMESTAMP:
        return statement.where(ts > last, ts < end).order_by(ts.asc())
    assert inc is not None
    return statement.where(
        ts < end, sa.or_(sa.and_(ts == last, inc > sa.bindparam("kc_last_inc")), ts > last)
    ).order_by(ts.asc(), inc.asc())


def _prepare_query(connection: sa.Connection, settings: QuerySettings) -> _Prepared:
    quote = connection.dialect.identifier_preparer.quote
    mode = settings.mode
    sql = f"SELECT * FROM ({settings.query}) kconnect_query"
    inc = quote(settings.incrementing_column) if settings.incrementing_column else ""
    if mode in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING):
        quoted = [quote(c) for c in settings.timestamp_columns]
        ts = quoted[0] if len(quoted) == 1 else f"COALESCE({', '.join(quoted)})"
        sql = f"SELECT kconnect_query.*, {ts} AS {TS_LABEL} FROM ({settings.query}) kconnect_query"
        if mode == MODE_TIMESTAMP:
            sql += f" WHERE {ts} > :kc_last AND {ts} < :kc_end ORDER BY {ts} ASC"
        else:
            sql += (
                f" WHERE {ts} < :kc_end AND (({ts} = :kc_last AND {inc} > :kc_last_inc) OR {ts} > :kc_last)"
                f" ORDER BY {ts}, {inc} ASC"
            )
    elif mode == MODE_INCREMENTING:
        sql += f" WHERE {inc} > :kc_last_inc ORDER BY {inc} ASC"
    if settings.query_suffix:
        sql += " " + settings.query_suffix
    # Column names and types are only known from the rows: fields are added as values show their type.
    probe = connection.execute(sa.text(f"SELECT * FROM ({settings.query}) kconnect_query WHERE 1 = 0"))
    columns = probe.keys()  # (iterating the result itself would give rows)
    names = [str(name) for name in columns]
    probe.close()
    if connection.in_transaction():
        connection.rollback()
    return _Prepared(
        sa.text(sql),
        None,
        dict.fromkeys(names),
        dict.fromkeys(names, True),
        settings.incrementing_column,
        inferred=True,
    )
