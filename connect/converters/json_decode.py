"""What `orjson.loads` read from a Kafka JsonConverter payload -> Kafka Connect values.

The inverse of json_encode, with Kafka's error texts. Compiled once per schema (see json_payload).
"""

from __future__ import annotations

import base64
import binascii
from decimal import Decimal
from typing import Any

from connect.api.data import DATE_NAME, DECIMAL_NAME, TIME_NAME, TIMESTAMP_NAME, Schema, SchemaType
from connect.api.errors import DataError
from connect.converters import logical
from connect.converters.json_payload import (
    Codec,
    JsonOptions,
    child_schema,
    expected_type,
    null_policy,
    with_null_handling,
)
from connect.converters.structs import new_struct


class InexactNumber(Exception):
    """A Decimal arrived as a JSON float that orjson parsed lossily: re-parse with exact decimals."""


def compile_decoder(schema: Schema, options: JsonOptions) -> Codec:
    """parsed JSON -> Connect value for `schema`, null handling included."""
    message = f"Invalid null value for required {schema.type.name} field"
    # The default is already a Connect value: it needs no conversion.
    return with_null_handling(schema, options, _convert_to_connect(schema, options), message, lambda default: default)


def _convert_to_connect(schema: Schema, options: JsonOptions) -> Codec:
    if schema.name == DECIMAL_NAME:
        return _decimal_from_json(logical.decimal_scale(schema))
    if schema.name == DATE_NAME:
        return lambda v: logical.days_to_date(_integral(v, "Date"))
    if schema.name == TIME_NAME:
        return lambda v: logical.millis_to_time(_integral(v, "Time"))
    if schema.name == TIMESTAMP_NAME:
        return lambda v: logical.millis_to_timestamp(_integral(v, "Timestamp"))
    kind = schema.type
    if kind in (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64):
        return _int_from_json(kind)
    if kind in (SchemaType.FLOAT32, SchemaType.FLOAT64):
        return _float_from_json(kind)
    if kind in (SchemaType.BOOLEAN, SchemaType.STRING):
        return _wrong_json(kind)
    if kind is SchemaType.BYTES:
        return _bytes_from_json
    if kind is SchemaType.ARRAY:
        return _array_from_json(schema, options)
    if kind is SchemaType.MAP:
        return _map_from_json(schema, options)
    return _struct_from_json(schema, options)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int | float | Decimal):
        return "NUMBER"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, list):
        return "ARRAY"
    if isinstance(value, dict):
        return "OBJECT"
    return type(value).__name__


def _integral(value: Any, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise DataError(f"Invalid type for {what}, underlying representation should be integer but was {_json_type(value)}")


def _int_from_json(kind: SchemaType) -> Codec:
    def convert(value: Any) -> Any:
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return int(value)
        raise DataError(f"Invalid value for {kind.name} field: expected a number but found {_json_type(value)}")

    return convert


def _float_from_json(kind: SchemaType) -> Codec:
    def convert(value: Any) -> Any:
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return float(value)
        raise DataError(f"Invalid value for {kind.name} field: expected a number but found {_json_type(value)}")

    return convert


def _wrong_json(kind: SchemaType) -> Codec:
    def fail(value: Any) -> Any:
        raise DataError(f"Invalid value for {kind.name} field: found {_json_type(value)}")

    return fail


def _bytes_from_json(value: Any) -> Any:
    if not isinstance(value, str):
        raise DataError(f"Invalid bytes field: expected a base64 string but found {_json_type(value)}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise DataError("Invalid bytes field") from None


def _decimal_from_json(scale: int) -> Codec:
    def convert(value: Any) -> Any:
        if isinstance(value, Decimal):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return Decimal(value)
        if isinstance(value, float):
            raise InexactNumber
        if isinstance(value, str):
            return logical.decimal_from_bytes(_bytes_from_json(value), scale)
        raise DataError(
            "Invalid type for Decimal, underlying representation should be numeric or bytes but was "
            + _json_type(value)
        )

    return convert


def _array_from_json(schema: Schema, options: JsonOptions) -> Codec:
    item = compile_decoder(child_schema(schema.value_schema, "Array", "value"), options)

    def convert(value: Any) -> Any:
        if not isinstance(value, list):
            raise DataError(f"Arrays should be encoded as JSON arrays, but found {_json_type(value)}")
        return [item(v) for v in value]

    return convert


def _map_from_json(schema: Schema, options: JsonOptions) -> Codec:
    key_schema = child_schema(schema.key_schema, "Map", "key")
    key = compile_decoder(key_schema, options)
    val = compile_decoder(child_schema(schema.value_schema, "Map", "value"), options)
    object_mode = key_schema.type is SchemaType.STRING

    def convert(value: Any) -> Any:
        if object_mode:
            if not isinstance(value, dict):
                raise DataError(
                    f"Maps with string fields should be encoded as JSON objects, but found {_json_type(value)}"
                )
            return {k: val(v) for k, v in value.items()}
        if not isinstance(value, list):
            raise DataError(
                f"Maps with non-string fields should be encoded as JSON array of tuples, but found {_json_type(value)}"
            )
        result = {}
        for entry in value:
            if not isinstance(entry, list):
                raise DataError(f"Found invalid map entry instead of array tuple: {_json_type(entry)}")
            if len(entry) != 2:
                raise DataError(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
            try:
                result[key(entry[0])] = val(entry[1])
            except TypeError:
                raise DataError(f"Map key is not hashable: {entry[0]!r}") from None
        return result

    return convert


def _struct_from_json(schema: Schema, options: JsonOptions) -> Codec:
    fields = []
    for f in schema.fields:
        convert = _convert_to_connect(f.schema, options)
        must, null_value = null_policy(
            f.schema, options, lambda default: default, f"Invalid null value for required {f.schema.type.name} field"
        )
        fields.append((f.name, expected_type(f.schema), convert, must, null_value))

    def convert_struct(value: Any) -> Any:
        if not isinstance(value, dict):
            raise DataError(f"Structs should be encoded as JSON objects, but found {_json_type(value)}")
        values = {}
        for name, plain, conv, must, null_value in fields:
            v = value.get(name)
            if v is None:
                if must:
                    raise DataError(null_value)
                values[name] = null_value
            elif type(v) is plain:
                values[name] = v
            else:
                values[name] = conv(v)
        return new_struct(schema, values)

    return convert_struct
