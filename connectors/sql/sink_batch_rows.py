"""From a `SinkRecordBatch` to its rows, with no `SinkRecord` built unless a record must be reported.

A batch whose values came as columns (`value_columns`: AvroConverter decodes a batch field by field)
becomes rows straight from those columns: each row's dict is zipped from the columns of the fields it
writes, and rows of the batch share one dict of column schemas, taken from the batch's Connect schema.
No Struct is built per record. A record the columns cannot settle (a null key column, a nested field
with a value, a key that is not one of the batch's usual shape) takes the record path instead
(`sink_rows.row_of`, on that one value as a Struct), so it gets the same row, or the same reason it
cannot become one, as through `put`. Schemaless values (JSON without schemas) whose maps all have the same
keys become columns the same way, and so do schemaless map keys under pk.mode=record_key. Other batches
(tombstones, maps of differing keys, records converted one by one) are read a record at a time from their
columns, also without a `SinkRecord` each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from connect.api import DataError, SinkRecordBatch
from connect.api.data import Schema, SchemaType
from connectors.sql.sink_config import KAFKA_PK_DEFAULTS, PK_KAFKA, PK_RECORD_KEY, PK_RECORD_VALUE, SinkSettings
from connectors.sql.sink_rows import KAFKA_SCHEMAS, SinkRow, column_value, record_key_columns, row_of, table_name

Refusal = tuple[int, str]
"""A record of the batch that cannot become a row: its index and the reason."""

_NESTED = frozenset({SchemaType.STRUCT, SchemaType.MAP, SchemaType.ARRAY})
_SCHEMALESS_NESTED = frozenset({dict, list})
# Primitive columns a converter gives in the driver's types already (what `column_value` leaves as it is).
_AS_THEY_ARE = frozenset(
    {
        SchemaType.INT8,
        SchemaType.INT16,
        SchemaType.INT32,
        SchemaType.INT64,
        SchemaType.FLOAT32,
        SchemaType.FLOAT64,
        SchemaType.BOOLEAN,
        SchemaType.STRING,
    }
)


def rows_of_batch(batch: SinkRecordBatch, settings: SinkSettings) -> tuple[list[SinkRow], list[Refusal]]:
    """The batch's rows, in record order, and the records that cannot become rows."""
    table = table_name(settings, batch.topic_partition.topic)
    columns = batch.value_columns
    by_record: set[int] = set()  # records left to the record path
    if columns is not None:
        schemas = {f.name: f.schema for f in columns.schema.fields}
        fields = {name: _column(values, schemas[name], name, by_record) for name, values in columns.columns.items()}
        return _rows_by_column(batch, fields, schemas, table, settings, by_record)
    maps = _map_fields(batch.values, by_record)
    if maps is not None:
        return _rows_by_column(batch, maps, dict.fromkeys(maps), table, settings, by_record)
    return _rows_by_record(batch, range(len(batch)), table, settings)


def _map_fields(values: Sequence[Any], by_record: set[int]) -> dict[str, Sequence[Any]] | None:
    """Schemaless values (JSON without schemas) as columns, when every value is a map with the same keys;
    a record with a nested value is left to the record path (`by_record`). None for any other batch."""
    if not values or type(values[0]) is not dict:
        return None
    shape = values[0].keys()
    if any(type(value) is not dict or value.keys() != shape for value in values):
        return None
    columns: dict[str, Sequence[Any]] = {}
    for name in values[0]:
        column = [value[name] for value in values]
        _flag_nested(column, by_record)
        columns[str(name)] = column
    return columns


def _flag_nested(column: Sequence[Any], by_record: set[int]) -> None:
    """Add the records whose value in `column` is a map or a list (no column takes one) to `by_record`."""
    if not _SCHEMALESS_NESTED.isdisjoint(map(type, column)):
        by_record.update(i for i, value in enumerate(column) if type(value) in _SCHEMALESS_NESTED)


def _rows_by_record(
    batch: SinkRecordBatch, indexes: Sequence[int], table: str, settings: SinkSettings
) -> tuple[list[SinkRow], list[Refusal]]:
    """Rows made one record at a time (`row_of`), from the batch's columns or, with value columns, the
    record's value as a Struct."""
    topic, partition = batch.topic_partition
    offsets, keys, key_schema = batch.offsets, batch.keys, batch.key_schema
    columns = batch.value_columns
    values: Sequence[Any] = batch.values if columns is None else ()
    rows: list[SinkRow] = []
    refused: list[Refusal] = []
    for index in indexes:
        value = values[index] if columns is None else columns.struct(index)
        kafka = (topic, partition, offsets[index])
        try:
            rows.append(row_of(batch, index, table, kafka, keys[index], key_schema, value, settings))
        except DataError as exc:
            refused.append((index, str(exc)))
    return rows, refused


@dataclass(slots=True)
class _Keys:
    """The key columns of a batch's rows: `names` and their `schemas`, and either `columns` (pk.mode=kafka
    and record_value: one list per key column, zipped with the fields) or `per_record` (record_key: each
    record's key columns, None for a record left to the record path)."""

    names: tuple[str, ...] = ()
    schemas: dict[str, Schema | None] = field(default_factory=dict)
    columns: list[Sequence[Any]] = field(default_factory=list)
    per_record: list[dict[str, Any] | None] = field(default_factory=list)


def _rows_by_column(
    batch: SinkRecordBatch,
    fields: dict[str, Sequence[Any]],
    schemas: Mapping[str, Schema | None],
    table: str,
    settings: SinkSettings,
    by_record: set[int],
) -> tuple[list[SinkRow], list[Refusal]]:
    """Rows zipped from the value columns `fields` (and the key columns), records in `by_record` and those
    the keys add to it made by the record path."""
    count = len(batch)
    keys = _keys(batch, fields, schemas, settings, by_record)
    if keys is None:  # every record gets the record path's reason
        return _rows_by_record(batch, range(count), table, settings)
    whitelist = settings.fields_whitelist
    written = [name for name in fields if name not in keys.names and (not whitelist or name in whitelist)]
    row_schemas = {**keys.schemas, **{name: schemas[name] for name in written}}
    names = (*keys.names, *written) if keys.columns else tuple(written)
    tuples = zip(*keys.columns, *(fields[name] for name in written), strict=True) if names else repeat(())
    per_record = keys.per_record
    rows: list[SinkRow] = []
    refused: list[Refusal] = []
    for index, row in zip(range(count), tuples, strict=False):
        if index in by_record:
            one, reasons = _rows_by_record(batch, (index,), table, settings)
            rows += one
            refused += reasons
            continue
        if per_record:
            values = dict(per_record[index] or ())
            values.update(zip(names, row, strict=True))
        else:
            values = dict(zip(names, row, strict=True))
        rows.append(SinkRow(batch, index, table, False, keys.names, values, row_schemas))
    return rows, refused


def _keys(
    batch: SinkRecordBatch,
    fields: dict[str, Sequence[Any]],
    schemas: Mapping[str, Schema | None],
    settings: SinkSettings,
    by_record: set[int],
) -> _Keys | None:
    """The batch's key columns by pk.mode, records that need the record path added to `by_record`; None
    when no record can have its key (pk.fields names a field the values lack)."""
    mode = settings.pk_mode
    if mode == PK_KAFKA:
        names = settings.pk_fields or KAFKA_PK_DEFAULTS
        (topic, partition), count = batch.topic_partition, len(batch)
        kafka: list[Sequence[Any]] = [[topic] * count, [partition] * count, batch.offsets]
        return _Keys(names, dict(zip(names, KAFKA_SCHEMAS, strict=True)), kafka)
    if mode == PK_RECORD_VALUE:
        names = settings.pk_fields or tuple(fields)
        if any(name not in fields for name in names):
            return None
        columns = [fields[name] for name in names]
        for column in columns:
            if None in column:
                by_record.update(i for i, value in enumerate(column) if value is None)
        return _Keys(names, {name: schemas[name] for name in names}, columns)
    if mode == PK_RECORD_KEY:
        return _map_keys(batch, settings, by_record) or _record_keys(batch, settings, by_record)
    return _Keys()


def _column(values: Sequence[Any], schema: Schema, name: str, by_record: set[int]) -> Sequence[Any]:
    """A field's column as the rows write it (`column_value` per value, where that changes anything)."""
    kind = schema.type
    if kind in _NESTED:  # a value makes its record fail, as the record path says
        by_record.update(i for i, value in enumerate(values) if value is not None)
        return values
    if kind in _AS_THEY_ARE and schema.name is None:
        return values
    try:
        return [column_value(value, schema, name) for value in values]
    except DataError:  # a value unlike its schema: the record path says which records fail
        by_record.update(range(len(values)))
        return values


def _map_keys(batch: SinkRecordBatch, settings: SinkSettings, by_record: set[int]) -> _Keys | None:
    """pk.mode=record_key with schemaless keys that are all maps with the same keys: the key columns as
    columns; a record whose key column is null or nested is left to the record path. None otherwise."""
    keys = batch.keys
    if batch.key_schema is not None or not keys or type(keys[0]) is not dict:
        return None
    shape = keys[0].keys()
    if any(type(key) is not dict or key.keys() != shape for key in keys):
        return None
    names = settings.pk_fields or tuple(str(name) for name in keys[0])
    if any(name not in shape for name in names):
        return None
    columns: list[Sequence[Any]] = [[key[name] for key in keys] for name in names]
    for column in columns:
        _flag_nested(column, by_record)
        if None in column:
            by_record.update(i for i, value in enumerate(column) if value is None)
    schemas: dict[str, Schema | None] = dict.fromkeys(names)
    return _Keys(names, schemas, columns)


def _record_keys(batch: SinkRecordBatch, settings: SinkSettings, by_record: set[int]) -> _Keys:
    """pk.mode=record_key: the key columns of the first good key and each record's key columns. A record
    whose key fails, has a null column, or differs in columns from the first is left to the record path."""
    keys = _Keys()
    first: tuple[str, ...] | None = None
    key_schema = batch.key_schema
    for index, key in enumerate(batch.keys):
        try:
            values, schemas = record_key_columns(key, key_schema, settings)
        except DataError:
            values = None
        if values is not None and first is None:
            first = keys.names = tuple(values)
            keys.schemas = schemas
        if values is None or None in values.values() or tuple(values) != first:
            by_record.add(index)
            values = None
        keys.per_record.append(values)
    return keys
