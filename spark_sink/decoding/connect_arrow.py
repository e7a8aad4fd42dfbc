"""Kafka Connect schemas as Arrow types, and Connect values (Structs, lists, maps) as Arrow arrays.

Types: integers and floats keep their width; Decimal is decimal128 (precision from the
`connect.decimal.precision` parameter, else 38); Date is date32; Timestamp is timestamp[us, UTC]
(Spark's resolution); Time is int32 milliseconds of the day, because Spark cannot write a TIME column
to Parquet yet. Values are converted one column at a time (one list per field, not one dict per row).
Pure functions, any thread; `arrow_schema` caches per Connect schema.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from connect.api import DataError, Schema, SchemaType, Struct
from connect.api.data import DATE_NAME, DECIMAL_NAME, DECIMAL_SCALE_PARAM, TIME_NAME, TIMESTAMP_NAME

PRECISION_PARAM = "connect.decimal.precision"
_MAX_PRECISION = 38
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DATE = dt.date(1970, 1, 1)
_TIMESTAMP = pa.timestamp("us", "UTC")
_TIME_MS = pa.time32("ms")

_PRIMITIVES = {
    SchemaType.INT8: pa.int8(),
    SchemaType.INT16: pa.int16(),
    SchemaType.INT32: pa.int32(),
    SchemaType.INT64: pa.int64(),
    SchemaType.FLOAT32: pa.float32(),
    SchemaType.FLOAT64: pa.float64(),
    SchemaType.BOOLEAN: pa.bool_(),
    SchemaType.STRING: pa.string(),
    SchemaType.BYTES: pa.binary(),
}


@functools.lru_cache(maxsize=256)
def arrow_type(schema: Schema) -> pa.DataType:
    if schema.name == DECIMAL_NAME:
        params = schema.parameters or {}
        scale = int(params.get(DECIMAL_SCALE_PARAM, "0"))
        precision = int(params.get(PRECISION_PARAM, str(_MAX_PRECISION)))
        if not 0 <= scale <= precision <= _MAX_PRECISION:
            raise DataError(f"Decimal with precision {precision} and scale {scale} does not fit Parquet's decimal128")
        return pa.decimal128(precision, scale)
    if schema.name == DATE_NAME:
        return pa.date32()
    if schema.name == TIME_NAME:
        return pa.int32()
    if schema.name == TIMESTAMP_NAME:
        return _TIMESTAMP
    if schema.type in _PRIMITIVES:
        return _PRIMITIVES[schema.type]
    # Nested fields are always nullable: a null parent has null children, which Arrow (and Spark's
    # conversion) rejects for non-nullable fields.
    if schema.type is SchemaType.ARRAY:
        return pa.list_(pa.field("element", arrow_type(_require(schema.value_schema, "array items"))))
    if schema.type is SchemaType.MAP:
        key = _require(schema.key_schema, "map keys")
        value = _require(schema.value_schema, "map values")
        return pa.map_(arrow_type(key), pa.field("value", arrow_type(value)))
    if schema.type is SchemaType.STRUCT:
        return pa.struct([pa.field(f.name, arrow_type(f.schema)) for f in schema.fields])
    raise DataError(f"Unsupported Connect schema type {schema.type}")


@functools.lru_cache(maxsize=256)
def arrow_schema(schema: Schema) -> pa.Schema:
    """A STRUCT value schema as the table's schema; any other schema as one column named `value`.

    Top-level fields keep Connect's optionality (required fields become non-nullable columns)."""
    if schema.type is SchemaType.STRUCT:
        return pa.schema([_field(f.name, f.schema) for f in schema.fields])
    return pa.schema([_field("value", schema)])


def _field(name: str, schema: Schema) -> pa.Field:
    return pa.field(name, arrow_type(schema), nullable=schema.optional or schema.default is not None)


def _require(schema: Schema | None, what: str) -> Schema:
    if schema is None:
        raise DataError(f"Connect schema without a schema for its {what}")
    return schema


def struct_table(values: Sequence[Struct], schema: Schema) -> pa.Table:
    """Struct values of one schema as a table, one column per field."""
    return fields_table({f.name: [v.get(f.name) for v in values] for f in schema.fields}, schema)


def fields_table(columns: Mapping[str, Sequence[Any]], schema: Schema) -> pa.Table:
    """Struct values of `schema` given as one list per field (what `Struct.get` gives for each field,
    as in `StructColumns`) as a table: `struct_table` of the same values, without a Struct per value."""
    arrays = [to_array(columns[f.name], f.schema) for f in schema.fields]
    return pa.Table.from_arrays(arrays, schema=arrow_schema(schema))


def value_table(values: Sequence[Any], schema: Schema) -> pa.Table:
    if schema.type is SchemaType.STRUCT:
        return struct_table(values, schema)
    return pa.Table.from_arrays([to_array(values, schema)], schema=arrow_schema(schema))


def to_array(values: Sequence[Any], schema: Schema) -> pa.Array:
    """Connect values of `schema` (None for null) as an Arrow array of `arrow_type(schema)`."""
    kind = arrow_type(schema)
    try:
        # Values all of the Python type a converter gives (AvroConverter's datetimes, dates, times) are
        # converted by Arrow in C; any other mix (epoch numbers, datetimes for a Date) one by one.
        if schema.name == TIMESTAMP_NAME:
            if _only(values, dt.datetime):
                return pa.array(values, kind)  # naive as UTC, aware ones at their instant, like _timestamp_us
            return pa.array([_timestamp_us(v) for v in values], pa.int64()).cast(kind)
        if schema.name == TIME_NAME:
            if _only(values, dt.time):
                return pa.array(values, _TIME_MS).cast(kind)  # whole milliseconds, like _time_ms
            return pa.array([_time_ms(v) for v in values], pa.int32())
        if schema.name == DATE_NAME:
            if _only(values, dt.date):
                return pa.array(values, kind)
            return pa.array([_date(v) for v in values], kind)
        if schema.type is SchemaType.STRUCT:
            return _struct_array(values, schema, kind)
        if schema.type is SchemaType.ARRAY:
            return _list_array(values, _require(schema.value_schema, "array items"), kind)
        if schema.type is SchemaType.MAP:
            return _map_array(values, schema, kind)
        return pa.array(values, kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError) as exc:
        raise DataError(f"Values do not match their Connect schema {schema.type.value}: {exc}") from None


def _struct_array(values: Sequence[Any], schema: Schema, kind: pa.DataType) -> pa.Array:
    children = [to_array([None if v is None else v.get(f.name) for v in values], f.schema) for f in schema.fields]
    mask = pa.array([v is None for v in values], pa.bool_())
    return pa.StructArray.from_arrays(children, fields=list(kind), mask=mask)


def _offsets(values: Sequence[Any]) -> tuple[pa.Array, list[Any]]:
    offsets = [0]
    for v in values:
        offsets.append(offsets[-1] + (len(v) if v is not None else 0))
    return pa.array(offsets, pa.int32()), [v is None for v in values]


def _list_array(values: Sequence[Any], items: Schema, kind: pa.DataType) -> pa.Array:
    offsets, nulls = _offsets(values)
    flat = to_array([x for v in values if v is not None for x in v], items)
    return pa.ListArray.from_arrays(offsets, flat, type=kind, mask=pa.array(nulls, pa.bool_()))


def _map_array(values: Sequence[Any], schema: Schema, kind: pa.DataType) -> pa.Array:
    offsets, nulls = _offsets(values)
    keys = to_array([k for v in values if v is not None for k in v], _require(schema.key_schema, "map keys"))
    items = to_array([x for v in values if v is not None for x in v.values()], _require(schema.value_schema, "values"))
    return pa.MapArray.from_arrays(offsets, keys, items, type=kind, mask=pa.array(nulls, pa.bool_()))


def _only(values: Sequence[Any], kind: type) -> bool:
    """Every value is exactly of `kind` (not a subclass: a datetime is a date) or None."""
    return set(map(type, values)) <= {kind, type(None)}


def _timestamp_us(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        delta = aware - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return int(value) * 1000  # epoch milliseconds, Connect's encoded form


def _time_ms(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return int(value)


def _date(value: Any) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value.date() if isinstance(value, dt.datetime) else value
    return _EPOCH_DATE + dt.timedelta(days=int(value))
