"""What the JSON payload encoders and decoders share: options, the expected-type test, null handling.

`json_encode.compile_encoder(schema)` / `json_decode.compile_decoder(schema)` turn a schema into a
closure that converts one value, so the per-record work is a loop over precomputed (field, expected
type, converter) tuples: a field whose Python type already is its JSON type (int, float, str, bool)
costs one `type() is` test. Closures hold no mutable state; any thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from connect.api.data import DATE_NAME, DECIMAL_NAME, TIME_NAME, TIMESTAMP_NAME, Schema, SchemaType
from connect.api.errors import DataError

Codec = Callable[[Any], Any]


class _Never:
    """A type no value has: fields of this expected type always go through their converter."""


@dataclass(frozen=True)
class JsonOptions:
    decimal_numeric: bool = False
    replace_null_with_default: bool = True


_PLAIN_TYPES: dict[SchemaType, type] = {
    SchemaType.INT8: int,
    SchemaType.INT16: int,
    SchemaType.INT32: int,
    SchemaType.INT64: int,
    SchemaType.FLOAT32: float,
    SchemaType.FLOAT64: float,
    SchemaType.BOOLEAN: bool,
    SchemaType.STRING: str,
}
REQUIRED_NULL = "Conversion error: null value for field that is required and has no default value"
_LOGICAL_NAMES = (DECIMAL_NAME, DATE_NAME, TIME_NAME, TIMESTAMP_NAME)


def expected_type(schema: Schema) -> type:
    """The Python type a value of `schema` has when it needs no conversion at all."""
    if schema.name in _LOGICAL_NAMES:
        return _Never
    return _PLAIN_TYPES.get(schema.type, _Never)


def null_policy(schema: Schema, options: JsonOptions, convert: Codec, message: str) -> tuple[bool, Any]:
    """(raise on null, value to use for null) for a schema, with its default converted once."""
    if schema.default is not None and options.replace_null_with_default:
        return False, convert(schema.default)
    if schema.optional:
        return False, None
    return True, message


def with_null_handling(
    schema: Schema, options: JsonOptions, convert: Codec, null_message: str, default_convert: Codec
) -> Codec:
    """`convert` for non-null values of `schema`, wrapped with the schema's null policy and a fast path
    for values that already have the plain Python type (most of them: no call, no conversion)."""
    raise_on_null, null_value = null_policy(schema, options, default_convert, null_message)
    plain = expected_type(schema)

    def codec(value: Any) -> Any:
        if value is None:
            if raise_on_null:
                raise DataError(null_value)
            return null_value
        if type(value) is plain:
            return value
        return convert(value)

    return codec


def child_schema(schema: Schema | None, what: str, part: str) -> Schema:
    if schema is None:
        raise DataError(f"{what} schema has no {part} schema")
    return schema
