"""From a sink record to the row it writes: the destination table, the key columns and the values.

Confluent's FieldsMetadata rules: `pk.mode=kafka` adds the record's topic, partition and offset as key
columns; `record_key` takes the key's fields (or the whole primitive key as one named column);
`record_value` takes key columns out of the value. `fields.whitelist` limits the value fields written;
key columns are written regardless. A record that cannot become a row (no value, a missing key, a
nested field) raises DataError, which the task reports as that record's failure.

Values may be Structs with schemas (any converter with schemas) or plain dicts (JSON without schemas);
only Structs can create or evolve tables, because only they say what type a column should have.

A row names its record by where it is (`origin`, `index`: a SinkRecord, or a batch and the record's place
in it), so a row made from a batch builds its `SinkRecord` only if it must be reported (`sink_batch_rows`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from connect.api import DataError, SinkRecord, SinkRecordBatch, Struct
from connect.api.data import DATE_NAME, TIME_NAME, TIMESTAMP_NAME, Schema, SchemaType
from connectors.sql.sink_config import (
    KAFKA_PK_DEFAULTS,
    PK_KAFKA,
    PK_RECORD_KEY,
    PK_RECORD_VALUE,
    SinkSettings,
)

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
KAFKA_SCHEMAS = (Schema(SchemaType.STRING), Schema(SchemaType.INT32), Schema(SchemaType.INT64))
"""The column schemas of pk.mode=kafka's topic, partition and offset."""

Origin = SinkRecord | SinkRecordBatch
"""Where a row's record is: the record itself, or the batch holding it."""


@dataclass(slots=True)
class SinkRow:
    """One record's write: `values` holds every column written (keys included), `schemas` their types
    (rows of one batch may share that dict: never change it). The record is `origin` or `origin[index]`."""

    origin: Origin
    index: int
    table: str
    delete: bool
    key_columns: tuple[str, ...]
    values: dict[str, Any]
    schemas: dict[str, Schema | None] = field(default_factory=dict)

    @property
    def record(self) -> SinkRecord:
        """The row's record; built now when the row came from a batch."""
        return record_at(self.origin, self.index)

    def key(self) -> tuple[Any, ...]:
        return tuple(self.values[c] for c in self.key_columns)


def record_at(origin: Origin, index: int) -> SinkRecord:
    return origin if isinstance(origin, SinkRecord) else origin[index]


def table_name(settings: SinkSettings, topic: str) -> str:
    return settings.table_name_format.replace("${topic}", topic)


def to_row(record: SinkRecord, settings: SinkSettings) -> SinkRow:
    kafka = (record.original_topic, record.original_kafka_partition, record.original_kafka_offset)
    table = table_name(settings, record.topic)
    return row_of(record, 0, table, kafka, record.key, record.key_schema, record.value, settings)


def row_of(
    origin: Origin,
    index: int,
    table: str,
    kafka: tuple[str, int, int],
    key: Any,
    key_schema: Schema | None,
    value: Any,
    settings: SinkSettings,
) -> SinkRow:
    """The row of one record, given by its parts (`kafka`: its topic, partition and offset as consumed)."""
    keys, key_schemas = _key_columns(kafka, key, key_schema, settings)
    if value is None:
        if not settings.delete_enabled:
            raise DataError("The record has a null value and delete.enabled is false")
        return SinkRow(origin, index, table, True, tuple(keys), keys, key_schemas)
    fields, field_schemas = _fields(value, "value")
    if settings.pk_mode == PK_RECORD_VALUE:
        names = settings.pk_fields or tuple(fields)
        missing = [n for n in names if n not in fields]
        if missing:
            raise DataError(f"The value has no primary key field(s) {', '.join(missing)}")
        keys = {n: fields[n] for n in names}
        key_schemas = {n: field_schemas[n] for n in names}
    values = dict(keys)
    schemas = dict(key_schemas)
    for name, value in fields.items():
        if name in values or (settings.fields_whitelist and name not in settings.fields_whitelist):
            continue
        values[name] = value
        schemas[name] = field_schemas[name]
    for name in keys:
        if keys[name] is None:
            raise DataError(f"The primary key column {name} is null")
    return SinkRow(origin, index, table, False, tuple(keys), values, schemas)


def _key_columns(
    kafka: tuple[str, int, int], key: Any, key_schema: Schema | None, settings: SinkSettings
) -> tuple[dict[str, Any], dict[str, Schema | None]]:
    if settings.pk_mode == PK_KAFKA:
        names = settings.pk_fields or KAFKA_PK_DEFAULTS
        return dict(zip(names, kafka, strict=True)), dict(zip(names, KAFKA_SCHEMAS, strict=True))
    if settings.pk_mode != PK_RECORD_KEY:
        return {}, {}
    return record_key_columns(key, key_schema, settings)


def record_key_columns(
    key: Any, schema: Schema | None, settings: SinkSettings
) -> tuple[dict[str, Any], dict[str, Schema | None]]:
    """pk.mode=record_key's key columns of one key, and their schemas."""
    if key is None:
        raise DataError("The record has a null key, and pk.mode=record_key needs one")
    if isinstance(key, Struct | Mapping):
        fields, schemas = _fields(key, "key")
        names = settings.pk_fields or tuple(fields)
        missing = [n for n in names if n not in fields]
        if missing:
            raise DataError(f"The key has no primary key field(s) {', '.join(missing)}")
        return {n: fields[n] for n in names}, {n: schemas[n] for n in names}
    if len(settings.pk_fields) != 1:
        raise DataError("A primitive key needs exactly one column name in pk.fields")
    name = settings.pk_fields[0]
    return {name: column_value(key, schema, name)}, {name: schema}


def _fields(value: Any, what: str) -> tuple[dict[str, Any], dict[str, Schema | None]]:
    if isinstance(value, Struct):
        raw = value.raw_values()
        values: dict[str, Any] = {}
        schemas: dict[str, Schema | None] = {}
        for f in value.schema.fields:
            field_value = raw.get(f.name)
            if field_value is None:
                field_value = f.schema.default  # what Struct.get gives for an unset field
            values[f.name] = column_value(field_value, f.schema, f.name)
            schemas[f.name] = f.schema
        return values, schemas
    if type(value) is dict or isinstance(value, Mapping):  # the exact-type test spares the ABC check
        values = {str(k): column_value(v, None, str(k)) for k, v in value.items()}
        return values, dict.fromkeys(values)
    raise DataError(f"The record's {what} must be a struct or a map to become a row, not {type(value).__name__}")


# Values a driver takes as they are: checked by exact type first, the one test most values need.
_PLAIN_TYPES = frozenset({str, float, bool, bytes, Decimal, dt.datetime, dt.date, dt.time})


def column_value(value: Any, schema: Schema | None, name: str) -> Any:
    kind = type(value)
    if kind in _PLAIN_TYPES or value is None:
        return value
    if kind is int:
        if schema is not None and schema.name is not None:
            return _logical_from_int(value, schema.name)
        return value
    if isinstance(value, Struct | Mapping | list | tuple):
        raise DataError(f"Field {name} is nested ({kind.__name__}); only primitive fields become columns")
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    return value


def _logical_from_int(value: int, logical: str) -> Any:
    """Logical types given as numbers (a converter without the logical type's Python form)."""
    if logical == DATE_NAME:
        return (_EPOCH + dt.timedelta(days=value)).date()
    if logical == TIMESTAMP_NAME:
        return _EPOCH + dt.timedelta(milliseconds=value)
    if logical == TIME_NAME:
        return (_EPOCH + dt.timedelta(milliseconds=value)).time()
    return value
