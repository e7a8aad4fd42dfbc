"""Connect values -> the values fastavro writes, for one Connect schema (AvroData.fromConnectData): a
Struct becomes a dict (a null field takes the field's default), logical values their encoded primitive
(Decimal the unscaled two's-complement bytes, Date days, Time and Timestamp milliseconds), maps with
non-string keys lists of key/value records, a Connect union struct its one set branch. The Avro schema
fastavro writes with has its logical types taken out (`without_logical_types`), so the bytes are
exactly those primitives. Built once per schema; the functions run on the task's thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from connect.api.data import DECIMAL_NAME, Schema, SchemaType, Struct
from connect.api.errors import DataError
from connect.converters.logical import (
    TO_NUMBER,
    decimal_scale,
    decimal_to_bytes,
)
from connect.converters.schema_registry import avro_names as n

Encode = Callable[[Any], Any]


def without_logical_types(avro: Any) -> Any:
    """`avro` with every `logicalType` removed, recursively."""
    if isinstance(avro, list):
        return [without_logical_types(branch) for branch in avro]
    if not isinstance(avro, dict):
        return avro
    view = {k: v for k, v in avro.items() if k != n.LOGICAL_TYPE_PROP}
    kind = view.get("type")
    if isinstance(kind, dict | list):
        view["type"] = without_logical_types(kind)
    elif kind == "record":
        view["fields"] = [{**f, "type": without_logical_types(f["type"])} for f in view.get("fields", [])]
    elif kind == "array":
        view["items"] = without_logical_types(view["items"])
    elif kind == "map":
        view["values"] = without_logical_types(view["values"])
    return view


def compile_encoder(schema: Schema) -> Encode:
    """A function from a non-null Connect value of `schema` to what fastavro writes."""
    name = schema.name
    if name == DECIMAL_NAME:
        scale = decimal_scale(schema)
        return lambda value: decimal_to_bytes(value, scale)
    number = TO_NUMBER.get(name or "")
    if number is not None:
        return number
    kind = schema.type
    if kind is SchemaType.STRUCT:
        return _union_encoder(schema) if name == n.AVRO_TYPE_UNION else _struct_encoder(schema)
    if kind is SchemaType.ARRAY:
        assert schema.value_schema is not None
        item = _nullable(schema.value_schema)
        return lambda values: [item(v) for v in values]
    if kind is SchemaType.MAP:
        return _map_encoder(schema)
    if kind is SchemaType.BYTES:
        return _bytes
    return _identity


def _identity(value: Any) -> Any:
    return value


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    raise DataError(f"Invalid type for BYTES: {type(value).__name__}")


def _nullable(schema: Schema) -> Encode:
    """The encoder of `schema` that also takes None: the schema's default, else null if optional."""
    encode = compile_encoder(schema)
    default = schema.default
    optional = schema.optional
    if encode is _identity and default is None and optional:
        return _identity

    def nullable(value: Any) -> Any:
        if value is None:
            if default is not None:
                return encode(default)
            if not optional:
                raise DataError("Found null value for non-optional schema")
            return None
        return encode(value)

    return nullable


def _struct_encoder(schema: Schema) -> Encode:
    fields = [(f.name, _nullable(f.schema)) for f in schema.fields]

    def encode(value: Any) -> dict[str, Any]:
        if not isinstance(value, Struct):
            raise DataError(f"Invalid type for STRUCT: {type(value).__name__} (expected a Struct)")
        values = value.raw_values()
        try:
            return {name: field(values.get(name)) for name, field in fields}
        except DataError as exc:
            raise DataError(f"{exc} (in struct {schema.name or 'without a name'})") from None

    return encode


def _union_encoder(schema: Schema) -> Encode:
    branches = [(f.name, compile_encoder(f.schema)) for f in schema.fields]

    def encode(value: Any) -> Any:
        if not isinstance(value, Struct):
            raise DataError(f"Invalid type for a union struct: {type(value).__name__} (expected a Struct)")
        values = value.raw_values()
        for name, branch in branches:
            member = values.get(name)
            if member is not None:
                return branch(member)
        return None

    return encode


def _map_encoder(schema: Schema) -> Encode:
    keys, values = schema.key_schema, schema.value_schema
    assert keys is not None and values is not None
    value_encoder = _nullable(values)
    if keys.type is SchemaType.STRING and not keys.optional:
        if value_encoder is _identity:
            return dict
        return lambda entries: {k: value_encoder(v) for k, v in entries.items()}
    key_encoder = _nullable(keys)
    return lambda entries: [{n.KEY_FIELD: key_encoder(k), n.VALUE_FIELD: value_encoder(v)} for k, v in entries.items()]
