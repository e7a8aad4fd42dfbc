"""One table's change events as Debezium writes them (`RelationalChangeRecordEmitter`,
`PostgresChangeRecordEmitter`): the key and value schemas named after the table's topic, and the records
of an insert (`c`), a snapshot row (`r`), an update (`u`), a delete (`d`, then a tombstone), a TRUNCATE
(`t`, with neither key nor key schema), and an update of the primary key (a delete carrying the new key in header
`__debezium.newkey`, a tombstone, then a create carrying the old key in `__debezium.oldkey`).

Rows arrive as pgoutput's text tuples in the table's column order. An update's `before` is null unless the
server sent the old row (REPLICA IDENTITY FULL, or a key change); an unchanged TOASTed value is taken from
the old row when there is one, else written as `unavailable.value.placeholder`. A NOT NULL column missing
from a delete's old row (the server sends only the key under the default identity) gets the value Debezium
falls back to for its type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from connect.api.data import Field, Schema, SchemaType, Struct
from connect.api.errors import DataError
from connectors.cdc.column_mappers import ColumnMappers, Convert, MappedColumn
from connectors.cdc.envelope import Operation, TransactionPosition, envelope, envelope_schema
from connectors.cdc.naming import key_schema_name, value_schema_name
from connectors.cdc.postgres.composite_types import array_placeholder, column_kind
from connectors.cdc.postgres.defaults import default_value
from connectors.cdc.postgres.pgoutput import UNCHANGED_TOAST, Tuple
from connectors.cdc.postgres.source_info import SOURCE_SCHEMA
from connectors.cdc.postgres.types import CHARACTER_TYPES, ColumnType, Modes, column_length

PK_UPDATE_NEWKEY_HEADER = "__debezium.newkey"
PK_UPDATE_OLDKEY_HEADER = "__debezium.oldkey"
DEFAULT_PLACEHOLDER = "__debezium_unavailable_value"
CONTEXT_HEADER_PREFIX = "__debezium.context."


def context_headers(server: str, task_id: str, run_id: str) -> tuple[tuple[str, Schema | None, Any], ...]:
    """Debezium's `DebeziumHeaderProducer.contextHeaders`: the connector's logical name (`topic.prefix`), the
    task, the connector's kind and this run of the task."""
    string = Schema(SchemaType.STRING)
    return (
        (CONTEXT_HEADER_PREFIX + "connectorLogicalName", string, server),
        (CONTEXT_HEADER_PREFIX + "taskId", string, task_id),
        (CONTEXT_HEADER_PREFIX + "connectorName", string, "postgresql"),
        (CONTEXT_HEADER_PREFIX + "runId", string, run_id),
    )


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type_oid: int
    type_modifier: int
    optional: bool  # the column is nullable
    element_oid: int | None = None  # an array's element type
    enum_labels: tuple[str, ...] | None = None  # an enum's (or an enum array's) labels, in their sort order
    default_expression: str | None = None  # `pg_get_expr` of its default, if it has one
    type_name: tuple[str, str] | None = None  # an enum's (or an enum array's) type: schema and name


def with_default(column: ColumnInfo, kind: ColumnType) -> ColumnType:
    """`kind` with the column's default in its schema, as Debezium's `TableSchemaBuilder.addField` puts it."""
    enum = column.type_name if column.enum_labels is not None and column.element_oid is None else None
    default = default_value(column.type_oid, column.default_expression, kind, enum)
    if default is None:
        return kind
    return ColumnType(dataclasses.replace(kind.schema, default=default), kind.decode, kind.fallback)


@dataclass(frozen=True)
class TableInfo:
    schema: str
    name: str
    columns: tuple[ColumnInfo, ...]  # in the table's order, as the server's Relation message sends them
    key_columns: tuple[str, ...]  # the primary key (or `message.key.columns`); empty: events have no key


@dataclass(frozen=True)
class ChangeRecord:
    topic: str
    key_schema: Schema | None
    key: Struct | None
    value_schema: Schema | None
    value: Struct | None  # None: a tombstone
    headers: tuple[tuple[str, Schema | None, Any], ...] = ()


@dataclass(frozen=True)
class EventContext:
    """What every event of one change shares: its `source` block, when it was processed, its transaction."""

    source: Struct
    processed_ns: int
    transaction: TransactionPosition | None = None


@dataclass
class TableEvents:
    """The schemas of one table's events, and the events of its rows' changes."""

    table: TableInfo
    topic: str
    modes: Modes = field(default_factory=Modes)
    placeholder: str = DEFAULT_PLACEHOLDER
    tombstones_on_delete: bool = True
    # Debezium's `__debezium.context.*` headers (`extended.headers.enabled`), on every record after its own
    context_headers: tuple[tuple[str, Schema | None, Any], ...] = ()
    # Columns left out of `before` and `after` (`column.exclude.list`); a key column stays in the key.
    excluded_columns: frozenset[str] = frozenset()
    # `column.truncate.*` and `column.mask.*`: applied to `before` and `after`, never to the key.
    mappers: ColumnMappers = field(default_factory=lambda: ColumnMappers([]))

    def __post_init__(self) -> None:
        self._types: list[ColumnType | None] = []
        self._mapped: dict[int, Convert] = {}  # column position → its mapper's converter
        value_fields: list[tuple[str, Schema]] = []
        for position, column in enumerate(self.table.columns):
            kind = column_kind(
                column.type_oid, column.type_modifier, self.modes, column.element_oid, column.enum_labels
            )
            if kind is not None and column.optional:
                kind = kind.optional()
            if kind is not None:
                kind = with_default(column, kind)
            self._types.append(kind)
            if kind is not None and column.name not in self.excluded_columns:
                value_fields.append((column.name, self._mapped_schema(position, column, kind.schema)))
        self.skipped = [c.name for c, kind in zip(self.table.columns, self._types, strict=True) if kind is None]
        row = Schema.struct(value_fields)
        self.value_schema = Schema(
            SchemaType.STRUCT, optional=True, name=value_schema_name(self.topic), fields=row.fields
        )
        positions = {column.name: index for index, column in enumerate(self.table.columns)}
        self._key_positions = [positions[name] for name in self.table.key_columns]
        self.key_schema: Schema | None = None
        if self._key_positions:
            key_fields = []
            for index, position in enumerate(self._key_positions):
                kind = self._types[position]
                if kind is None:
                    raise DataError(f"key column {self.table.columns[position].name} has a type with no mapping")
                key_fields.append(Field(self.table.columns[position].name, index, kind.schema))
            self.key_schema = Schema(SchemaType.STRUCT, name=key_schema_name(self.topic), fields=tuple(key_fields))
        self.envelope_schema = envelope_schema(self.topic, self.value_schema, SOURCE_SCHEMA)

    def _mapped_schema(self, position: int, column: ColumnInfo, schema: Schema) -> Schema:
        """The column's value schema with its mapper's parameters (Debezium's `alterFieldSchema`); keeps the
        mapper's converter for `_row`."""
        mapper = (
            self.mappers.mapper_for(f"{self.table.schema}.{self.table.name}.{column.name}") if self.mappers else None
        )
        if mapper is None:
            return schema
        described = MappedColumn(
            column.type_oid in CHARACTER_TYPES, column_length(column.type_oid, column.type_modifier)
        )
        convert = mapper.converter(described)
        if convert is not None:
            self._mapped[position] = convert
        parameters = mapper.parameters(described)
        if not parameters:
            return schema
        return dataclasses.replace(schema, parameters={**(schema.parameters or {}), **parameters})

    def _values(self, texts: Tuple, old: Tuple | None = None) -> list[Any]:
        if len(texts) != len(self.table.columns):
            raise DataError(f"{len(texts)} values for the {len(self.table.columns)} columns of {self.topic}")
        values: list[Any] = []
        for position, (text, kind) in enumerate(zip(texts, self._types, strict=True)):
            if kind is None:
                values.append(None)
                continue
            if text is UNCHANGED_TOAST:
                text = old[position] if old is not None else None
                if text is None or text is UNCHANGED_TOAST:
                    values.append(self._placeholder(kind))
                    continue
            if text is None:
                values.append(None if kind.schema.optional else kind.fallback)
            elif isinstance(text, str):
                values.append(kind.decode(text))
            else:
                raise DataError(f"binary tuple values are not read (pgoutput's `binary` option is off): {self.topic}")
        return values

    def _placeholder(self, kind: ColumnType) -> Any:
        if kind.schema.type is SchemaType.STRING:
            return self.placeholder
        if kind.schema.type is SchemaType.BYTES and kind.schema.name is None:
            return self.placeholder.encode()
        if kind.schema.type is SchemaType.ARRAY and (values := array_placeholder(kind.schema, self.placeholder)):
            return values
        raise DataError(f"no placeholder for an unchanged TOASTed value of type {kind.schema.type.name}")

    def _row(self, values: Sequence[Any]) -> Struct:
        if self._mapped:
            values = [self._mapped[p](v) if p in self._mapped else v for p, v in enumerate(values)]
        row = {
            column.name: value
            for column, kind, value in zip(self.table.columns, self._types, values, strict=True)
            if kind is not None and column.name not in self.excluded_columns
        }
        return Struct(self.value_schema, row)

    def _key(self, values: Sequence[Any]) -> Struct | None:
        if self.key_schema is None:
            return None
        return Struct(
            self.key_schema,
            {f.name: values[p] for f, p in zip(self.key_schema.fields, self._key_positions, strict=True)},
        )

    def _record(
        self, key: Struct | None, value: Struct | None, headers: tuple[tuple[str, Schema | None, Any], ...] = ()
    ) -> ChangeRecord:
        schema = self.envelope_schema if value is not None else None
        return ChangeRecord(self.topic, self.key_schema, key, schema, value, (*headers, *self.context_headers))

    def _envelope(
        self, op: Operation, at: EventContext, before: Struct | None = None, after: Struct | None = None
    ) -> Struct:
        return envelope(
            self.envelope_schema, op, at.source, at.processed_ns, before=before, after=after, transaction=at.transaction
        )

    def insert(self, new: Tuple, at: EventContext) -> list[ChangeRecord]:
        values = self._values(new)
        return [self._record(self._key(values), self._envelope(Operation.CREATE, at, after=self._row(values)))]

    def read(self, row: Tuple, at: EventContext) -> list[ChangeRecord]:
        """A row of a snapshot."""
        values = self._values(row)
        return [self._record(self._key(values), self._envelope(Operation.READ, at, after=self._row(values)))]

    def update(self, new: Tuple, old: Tuple | None, at: EventContext) -> list[ChangeRecord]:
        new_values = self._values(new, old)
        old_values = self._values(old) if old is not None else None
        new_key = self._key(new_values)
        old_key = self._key(old_values) if old_values is not None else None
        after = self._row(new_values)
        before = self._row(old_values) if old_values is not None else None
        if old_key is None or old_key == new_key:
            return [self._record(new_key, self._envelope(Operation.UPDATE, at, before, after))]
        new_key_header = ((PK_UPDATE_NEWKEY_HEADER, self.key_schema, new_key),)
        deleted = self._record(old_key, self._envelope(Operation.DELETE, at, before), new_key_header)
        created = self._record(
            new_key,
            self._envelope(Operation.CREATE, at, after=after),
            ((PK_UPDATE_OLDKEY_HEADER, self.key_schema, old_key),),
        )
        return [deleted, *self._tombstone(old_key, new_key_header), created]

    def delete(self, old: Tuple, at: EventContext) -> list[ChangeRecord]:
        values = self._values(old)
        key = self._key(values)
        return [self._record(key, self._envelope(Operation.DELETE, at, self._row(values))), *self._tombstone(key)]

    def truncate(self, at: EventContext) -> list[ChangeRecord]:
        """A TRUNCATE of the table (`t`): no key and no key schema (as Debezium's `EventDispatcher` sends it),
        no rows, only the source block."""
        value = self._envelope(Operation.TRUNCATE, at)
        return [ChangeRecord(self.topic, None, None, self.envelope_schema, value, self.context_headers)]

    def _tombstone(
        self, key: Struct | None, headers: tuple[tuple[str, Schema | None, Any], ...] = ()
    ) -> list[ChangeRecord]:
        """The delete's tombstone, with the delete's own headers (as Debezium copies them)."""
        return [self._record(key, None, headers)] if self.tombstones_on_delete else []
