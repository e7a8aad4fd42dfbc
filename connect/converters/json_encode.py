"""Kafka Connect values -> what `orjson.dumps` writes as Kafka's JsonConverter payload.

Bytes become base64, maps with non-string keys `[[key, value], ...]`, Decimal base64 or (NUMERIC) an
exact `orjson.Fragment`, Date/Time/Timestamp integers. Compiled once per schema (see json_payload).
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

import orjson

from connect.api.data import DECIMAL_NAME, Schema, SchemaType, Struct
from connect.api.errors import DataError
from connect.converters import logical
from connect.converters.json_payload import (
    REQUIRED_NULL,
    Codec,
    JsonOptions,
    child_schema,
    expected_type,
    null_policy,
    with_null_handling,
)
from connect.converters.structs import raw_values


def compile_encoder(schema: Schema, options: JsonOptions) -> Codec:
    """value -> JSON-able for `schema`, null handling included."""
    convert = _convert_to_json(schema, options)
    return with_null_handling(schema, options, convert, REQUIRED_NULL, convert)


def _convert_to_json(schema: Schema, options: JsonOptions) -> Codec:
    """Converter for non-null values of `schema`."""
    if schema.name == DECIMAL_NAME:
        scale = logical.decimal_scale(schema)
        if options.decimal_numeric:
            return _decimal_numeric
        return lambda v: _b64(logical.decimal_to_bytes(v, scale))
    number = logical.TO_NUMBER.get(schema.name or "")
    if number is not None:
        return number
    kind = schema.type
    if kind in (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64):
        return _to_int(kind)
    if kind in (SchemaType.FLOAT32, SchemaType.FLOAT64):
        return _to_float(kind)
    if kind is SchemaType.BOOLEAN:
        return _to_bool
    if kind is SchemaType.STRING:
        return _to_str
    if kind is SchemaType.BYTES:
        return _bytes_to_json
    if kind is SchemaType.ARRAY:
        return _array_to_json(schema, options)
    if kind is SchemaType.MAP:
        return _map_to_json(schema, options)
    return _struct_to_json(schema, options)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _decimal_numeric(value: Any) -> Any:
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise DataError(f"Cannot encode non-finite Decimal {value} as a JSON number")
        return orjson.Fragment(format(value, "f"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    raise DataError(f"Invalid type for Decimal, expected Decimal but was {type(value).__name__}")


def _to_bool(value: Any) -> Any:
    # Struct fields take a fast path for a bool (`type(v) is plain`); this is for everything else, and for a
    # field's default, which is converted once up front.
    if isinstance(value, bool):
        return value
    raise DataError(f"Invalid type for BOOLEAN: {type(value).__name__}")


def _to_int(kind: SchemaType) -> Codec:
    def convert(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return int(value)
        raise DataError(f"Invalid type for {kind.name}: {type(value).__name__}")

    return convert


def _to_float(kind: SchemaType) -> Codec:
    def convert(value: Any) -> Any:
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return float(value)
        raise DataError(f"Invalid type for {kind.name}: {type(value).__name__}")

    return convert


def _to_str(value: Any) -> Any:
    if isinstance(value, str):
        return str(value)
    raise DataError(f"Invalid type for STRING: {type(value).__name__}")


def _bytes_to_json(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return _b64(bytes(value))
    raise DataError(f"Invalid type for bytes type: {type(value).__name__}")


def _array_to_json(schema: Schema, options: JsonOptions) -> Codec:
    item = compile_encoder(child_schema(schema.value_schema, "Array", "value"), options)

    def convert(value: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise DataError(f"Invalid type for ARRAY: {type(value).__name__}")
        return [item(v) for v in value]

    return convert


def _map_to_json(schema: Schema, options: JsonOptions) -> Codec:
    key_schema = child_schema(schema.key_schema, "Map", "key")
    key = compile_encoder(key_schema, options)
    val = compile_encoder(child_schema(schema.value_schema, "Map", "value"), options)
    object_mode = key_schema.type is SchemaType.STRING

    def convert(value: Any) -> Any:
        if not isinstance(value, dict):
            raise DataError(f"Invalid type for MAP: {type(value).__name__}")
        if object_mode:
            return {_key_text(key(k)): val(v) for k, v in value.items()}
        return [[key(k), val(v)] for k, v in value.items()]

    return convert


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else "null" if key is None else str(key)


def _struct_to_json(schema: Schema, options: JsonOptions) -> Codec:
    fields = []
    for f in schema.fields:
        convert = _convert_to_json(f.schema, options)
        must, null_value = null_policy(
            f.schema,
            options,
            convert,
            "Conversion error: null value for field that is required and has no default value",
        )
        fields.append((f.name, expected_type(f.schema), convert, must, null_value))

    def convert_struct(value: Any) -> Any:
        if not isinstance(value, Struct) or (value.schema is not schema and value.schema != schema):
            raise DataError("Mismatching schema.")
        values = raw_values(value)
        out = {}
        for name, plain, conv, must, null_value in fields:
            v = values.get(name)
            if v is None:
                if must:
                    raise DataError(null_value)
                out[name] = null_value
            elif type(v) is plain:
                out[name] = v
            else:
                out[name] = conv(v)
        return out

    return convert_struct


def schemaless_default(value: Any) -> Any:
    """orjson's `default` hook for values without a schema: what JSON has no native form for."""
    if isinstance(value, bytes | bytearray | memoryview):
        return _b64(bytes(value))
    if isinstance(value, Struct):
        return compile_encoder(value.schema, JsonOptions())(value)
    if isinstance(value, Decimal):
        return _decimal_numeric(value)
    if isinstance(value, set | frozenset):
        return list(value)
    raise DataError(f"Python type {type(value).__name__} does not have a corresponding schema type.")


def schemaless_to_json(value: Any) -> Any:
    """The JSON-able form of a schemaless value, maps with non-string keys as [[key, value], ...]."""
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: schemaless_to_json(v) for k, v in value.items()}
        return [[schemaless_to_json(k), schemaless_to_json(v)] for k, v in value.items()]
    if isinstance(value, list | tuple):
        return [schemaless_to_json(v) for v in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return schemaless_default(value)
