"""Connect values <-> JSON values for one Connect schema, as Confluent's JsonSchemaData converts them:
bytes as base64, Decimal as base64 of its unscaled bytes (`decimal.format=BASE64`, the default) or a
JSON number (`NUMERIC`), Date / Time / Timestamp as days / milliseconds, maps with non-string keys as
arrays of `{"key", "value"}` objects, a `io.confluent.connect.json.OneOf` struct as its one set branch;
a null takes the schema's default. Compiled once per schema; the functions run on the task's thread.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from decimal import Decimal
from typing import Any, NoReturn

import orjson

from connect.api.data import (
    DATE_NAME,
    DECIMAL_NAME,
    TIME_NAME,
    TIMESTAMP_NAME,
    Schema,
    SchemaType,
    Struct,
    StructColumns,
)
from connect.api.errors import DataError
from connect.converters.logical import (
    TO_NUMBER,
    days_to_date,
    decimal_from_bytes,
    decimal_scale,
    decimal_to_bytes,
    millis_to_time,
    millis_to_timestamp,
)
from connect.converters.schema_registry.jsonschema_from_connect import JSON_TYPE_ONE_OF, KEY_FIELD, VALUE_FIELD

Codec = Callable[[Any], Any]
_INTS = (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64)
_FLOATS = (SchemaType.FLOAT32, SchemaType.FLOAT64)


# ------------------------------------------------------------------------------------ Connect -> JSON


def compile_to_json(schema: Schema, decimal_numeric: bool) -> Codec:
    """A function from a Connect value of `schema` (None included) to what orjson writes."""
    encode = _to_json(schema, decimal_numeric)
    default, optional = schema.default, schema.optional

    def nullable(value: Any) -> Any:
        if value is None:
            if default is not None:
                return encode(default)
            if optional:
                return None
            raise DataError("Conversion error: null value for field that is required and has no default value")
        return encode(value)

    return nullable


def default_to_json(schema: Schema, value: Any) -> Any:
    """A Connect default as JSON (for the schema's `default`), decimals as numbers."""
    converted = compile_to_json(schema, True)(value)
    return orjson.loads(orjson.dumps(converted))


def _to_json(schema: Schema, decimal_numeric: bool) -> Codec:
    name, kind = schema.name, schema.type
    if name == DECIMAL_NAME:
        scale = decimal_scale(schema)
        if decimal_numeric:
            return lambda v: orjson.Fragment(format(Decimal(v) if isinstance(v, int) else v, "f"))
        return lambda v: base64.b64encode(decimal_to_bytes(v, scale)).decode("ascii")
    number = TO_NUMBER.get(name or "")
    if number is not None:
        return number
    if kind in _INTS:
        return _checked(int, kind)
    if kind in _FLOATS:
        return _checked((int, float), kind)
    if kind is SchemaType.BOOLEAN:
        return _checked(bool, kind)
    if kind is SchemaType.STRING:
        return _checked(str, kind)
    if kind is SchemaType.BYTES:
        return lambda v: base64.b64encode(bytes(v)).decode("ascii")
    if kind is SchemaType.ARRAY:
        assert schema.value_schema is not None
        item = compile_to_json(schema.value_schema, decimal_numeric)
        return lambda values: [item(v) for v in values]
    if kind is SchemaType.MAP:
        keys, values = schema.key_schema, schema.value_schema
        assert keys is not None and values is not None
        key, value = compile_to_json(keys, decimal_numeric), compile_to_json(values, decimal_numeric)
        if keys.type is SchemaType.STRING and not keys.optional:
            return lambda entries: {k: value(v) for k, v in entries.items()}
        return lambda entries: [{KEY_FIELD: key(k), VALUE_FIELD: value(v)} for k, v in entries.items()]
    if name == JSON_TYPE_ONE_OF:
        branches = [(f.name, _to_json(f.schema, decimal_numeric)) for f in schema.fields]

        def one_of(struct: Any) -> Any:
            values = _struct_values(struct)
            for field, branch in branches:
                if values.get(field) is not None:
                    return branch(values[field])
            return None

        return one_of
    fields = [(f.name, compile_to_json(f.schema, decimal_numeric)) for f in schema.fields]
    return lambda struct: {n: field(v) for (n, field), v in zip(fields, _ordered(struct, fields), strict=True)}


def _struct_values(value: Any) -> Any:
    if not isinstance(value, Struct):
        raise DataError(f"Invalid type for STRUCT: {type(value).__name__} (expected a Struct)")
    return value.raw_values()


def _ordered(struct: Any, fields: list[tuple[str, Codec]]) -> list[Any]:
    values = _struct_values(struct)
    return [values.get(name) for name, _ in fields]


def _checked(types: type | tuple[type, ...], kind: SchemaType) -> Codec:
    def check(value: Any) -> Any:
        if isinstance(value, types) and (kind is SchemaType.BOOLEAN or not isinstance(value, bool)):
            return value
        raise DataError(f"Invalid type for {kind.name}: {type(value).__name__}")

    return check


# ------------------------------------------------------------------------------------ JSON -> Connect


def compile_from_json(schema: Schema) -> Codec:
    """A function from a JSON value (None included) to the Connect value of `schema`."""
    decode = _from_json(schema)
    default, optional = schema.default, schema.optional

    def nullable(value: Any) -> Any:
        if value is None:
            if default is not None:
                return default
            if optional:
                return None
            raise DataError(f"Invalid null value for required {schema.type.name} field")
        return decode(value)

    return nullable


def default_from_json(schema: Schema, value: Any) -> Any:
    return compile_from_json(dataclasses_without_default(schema))(value)


def dataclasses_without_default(schema: Schema) -> Schema:
    return Schema(
        schema.type,
        schema.optional,
        None,
        schema.name,
        schema.version,
        schema.doc,
        schema.parameters,
        schema.fields,
        schema.key_schema,
        schema.value_schema,
    )


def _from_json(schema: Schema) -> Codec:
    name, kind = schema.name, schema.type
    if name == DECIMAL_NAME:
        scale = decimal_scale(schema)

        def decimal(value: Any) -> Decimal:
            if isinstance(value, str):
                return decimal_from_bytes(_unbase64(value), scale)
            if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
                return value if isinstance(value, Decimal) else Decimal(str(value))
            raise DataError(
                f"Invalid type for Decimal, expected a number or base64 text but was {type(value).__name__}"
            )

        return decimal
    if name == DATE_NAME:
        return lambda v: days_to_date(_int(v, kind))
    if name == TIME_NAME:
        return lambda v: millis_to_time(_int(v, kind))
    if name == TIMESTAMP_NAME:
        return lambda v: millis_to_timestamp(_int(v, kind))
    if kind in _INTS:
        return lambda v: _int(v, kind)
    if kind in _FLOATS:
        # A Decimal when the document was read with exact decimals (a schema with a Decimal field).
        numbers = (int, float, Decimal)
        return lambda v: float(v) if isinstance(v, numbers) and not isinstance(v, bool) else _wrong(v, kind)
    if kind is SchemaType.BOOLEAN:
        return lambda v: v if isinstance(v, bool) else _wrong(v, kind)
    if kind is SchemaType.STRING:
        return lambda v: v if isinstance(v, str) else _wrong(v, kind)
    if kind is SchemaType.BYTES:
        return lambda v: _unbase64(v) if isinstance(v, str) else _wrong(v, kind)
    if kind is SchemaType.ARRAY:
        assert schema.value_schema is not None
        item = compile_from_json(schema.value_schema)
        return lambda values: [item(v) for v in values] if isinstance(values, list) else _wrong(values, kind)
    if kind is SchemaType.MAP:
        return _map_from_json(schema)
    if name == JSON_TYPE_ONE_OF:
        return _one_of_from_json(schema)
    return _struct_from_json(schema)


def _map_from_json(schema: Schema) -> Codec:
    keys, values = schema.key_schema, schema.value_schema
    assert keys is not None and values is not None
    key, value = compile_from_json(keys), compile_from_json(values)
    if keys.type is SchemaType.STRING and not keys.optional:

        def string_keys(entries: Any) -> dict[Any, Any]:
            if not isinstance(entries, dict):
                raise DataError(f"Maps with string fields should be encoded as JSON objects, but found {entries!r}")
            return {k: value(v) for k, v in entries.items()}

        return string_keys

    def entry_list(entries: Any) -> dict[Any, Any]:
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise DataError("Maps with non-string fields should be encoded as JSON arrays of objects")
        return {key(e.get(KEY_FIELD)): value(e.get(VALUE_FIELD)) for e in entries}

    return entry_list


def _struct_from_json(schema: Schema) -> Codec:
    fields = [(f.name, compile_from_json(f.schema)) for f in schema.fields]
    unchecked = Struct.unchecked

    def struct(value: Any) -> Struct:
        if not isinstance(value, dict):
            _not_an_object(value)
        get = value.get
        return unchecked(schema, {name: field(get(name)) for name, field in fields})

    return struct


def compile_columns_from_json(schema: Schema) -> Callable[[list[Any]], StructColumns] | None:
    """For a struct schema with fields (not a OneOf), a function from JSON objects to their Connect values
    as columns: each field's values decoded as `compile_from_json` does, a null taking the field's default,
    so a column holds what `Struct.get` of the struct path's values gives. None for other schemas."""
    if schema.type is not SchemaType.STRUCT or schema.name == JSON_TYPE_ONE_OF or not schema.fields:
        return None
    fields = [(f.name, compile_from_json(f.schema)) for f in schema.fields]

    def columns(documents: list[Any]) -> StructColumns:
        for document in documents:
            if not isinstance(document, dict):
                _not_an_object(document)
        return StructColumns(schema, {name: [field(d.get(name)) for d in documents] for name, field in fields})

    return columns


def _not_an_object(value: Any) -> NoReturn:
    raise DataError(f"Structs should be encoded as JSON objects, but found {type(value).__name__}")


_JSON_KINDS: dict[SchemaType, tuple[type, ...]] = {
    SchemaType.INT8: (int,),
    SchemaType.INT16: (int,),
    SchemaType.INT32: (int,),
    SchemaType.INT64: (int,),
    SchemaType.FLOAT32: (int, float),
    SchemaType.FLOAT64: (int, float),
    SchemaType.BOOLEAN: (bool,),
    SchemaType.STRING: (str,),
    SchemaType.BYTES: (str, int, float),
    SchemaType.ARRAY: (list,),
    SchemaType.MAP: (dict, list),
    SchemaType.STRUCT: (dict,),
}


def _one_of_from_json(schema: Schema) -> Codec:
    branches = [(f.name, f.schema, _from_json(f.schema)) for f in schema.fields]

    def one_of(value: Any) -> Struct:
        for name, branch_schema, decode in branches:
            kinds = _JSON_KINDS[branch_schema.type]
            if isinstance(value, kinds) and (isinstance(value, bool) == (branch_schema.type is SchemaType.BOOLEAN)):
                names = {f.name for f in branch_schema.fields}
                if branch_schema.type is SchemaType.STRUCT and isinstance(value, dict) and not set(value) <= names:
                    continue  # an object with keys the struct lacks is another branch's
                values: dict[str, Any] = {f.name: None for f in schema.fields}
                values[name] = decode(value)
                return Struct.unchecked(schema, values)
        raise DataError(f"Did not find matching oneof field for data: {value!r}")

    return one_of


def _int(value: Any, kind: SchemaType) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return _wrong(value, kind)


def _wrong(value: Any, kind: SchemaType) -> NoReturn:
    raise DataError(f"Invalid value for {kind.name}: {value!r}")


def _unbase64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise DataError(f"Invalid base64 bytes: {text[:40]!r}") from None
