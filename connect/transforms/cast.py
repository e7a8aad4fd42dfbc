"""Cast: cast fields, or the whole key/value, to another primitive type (Java's narrowing semantics)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, invalid_value
from connect.api.data import DATE_NAME, DECIMAL_NAME, TIME_NAME, TIMESTAMP_NAME, Schema, SchemaType
from connect.api.errors import ConfigError, DataError
from connect.api.transform import R
from connect.converters import logical
from connect.converters.structs import field_value, new_struct
from connect.converters.values import convert_to_string
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    SchemaCache,
    define_replace_null_with_default,
    require_map,
    require_struct,
    struct_schema_like,
)

PURPOSE = "cast types"
_OUTPUT_TYPES = {
    t.value: t
    for t in (
        SchemaType.INT8,
        SchemaType.INT16,
        SchemaType.INT32,
        SchemaType.INT64,
        SchemaType.FLOAT32,
        SchemaType.FLOAT64,
        SchemaType.BOOLEAN,
        SchemaType.STRING,
    )
}
_INPUT_TYPES = {*_OUTPUT_TYPES.values(), SchemaType.BYTES}
_INT_BITS = {SchemaType.INT8: 8, SchemaType.INT16: 16, SchemaType.INT32: 32, SchemaType.INT64: 64}
WHOLE_VALUE = ""


def parse_spec(name: str, spec: list[str]) -> dict[str, SchemaType]:
    """`["f1:int32", "f2:string"]` or `["int64"]` (whole value, key "") into field -> target type."""
    casts: dict[str, SchemaType] = {}
    is_whole_value = False
    for mapping in spec:
        parts = mapping.split(":")
        if len(parts) > 2:
            raise invalid_value(name, spec, f"Invalid cast mapping: {mapping}")
        if len(parts) == 1:
            target = parts[0].strip().lower()
            if target not in _OUTPUT_TYPES:
                raise invalid_value(name, spec, f"Invalid type found in casting spec: {parts[0].strip()}")
            casts[WHOLE_VALUE] = _OUTPUT_TYPES[target]
            is_whole_value = True
        else:
            field, target = parts[0].strip(), parts[1].strip().lower()
            if target not in _OUTPUT_TYPES:
                raise invalid_value(name, spec, f"Invalid type found in casting spec: {parts[1].strip()}")
            casts[field] = _OUTPUT_TYPES[target]
    if is_whole_value and len(casts) > 1:
        raise ConfigError(
            "Cast transformations that specify a type to cast the entire value to may only specify a single cast "
            "in their spec"
        )
    return casts


def _validate_spec(name: str, value: Any) -> None:
    if not value:
        raise invalid_value(name, value, "Must specify at least one field to cast.")
    parse_spec(name, value)


def config_def() -> ConfigDef:
    return define_replace_null_with_default(
        ConfigDef().define(
            "spec",
            ConfigType.LIST,
            NO_DEFAULT,
            _validate_spec,
            Importance.HIGH,
            "List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of "
            "Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, int64, "
            "float32, float64, boolean, and string. Note that binary fields can only be cast to string.",
        )
    )


def _wrap(number: int, bits: int) -> int:
    """Java's narrowing conversion of an integer to `bits` bits."""
    mask = (1 << bits) - 1
    number &= mask
    return number - (1 << bits) if number >= 1 << (bits - 1) else number


def _infer_type(value: Any) -> SchemaType | None:
    if isinstance(value, bool):
        return SchemaType.BOOLEAN
    if isinstance(value, int):
        return SchemaType.INT64
    if isinstance(value, float | Decimal):
        return SchemaType.FLOAT64
    if isinstance(value, str):
        return SchemaType.STRING
    if isinstance(value, bytes | bytearray):
        return SchemaType.BYTES
    return None


def _encode_logical(schema: Schema, value: Any) -> Any:
    if schema.name == DATE_NAME:
        return logical.date_to_days(value)
    if schema.name == TIME_NAME:
        return logical.time_to_millis(value)
    if schema.name == TIMESTAMP_NAME:
        return logical.timestamp_to_millis(value)
    return value


def cast_value(schema: Schema | None, value: Any, target: SchemaType) -> Any:
    if value is None:
        return None
    inferred = _infer_type(value) if schema is None else schema.type
    if inferred is None:
        raise DataError(
            f"Cast transformation was passed a value of type {type(value).__name__} which is not supported by "
            "Connect's data API"
        )
    if inferred not in _INPUT_TYPES:
        raise DataError(
            f"Cast transformation does not support casting from {inferred.name.lower()}; supported types are "
            + ", ".join(sorted(t.value for t in _INPUT_TYPES))
        )
    if target is SchemaType.STRING:
        return convert_to_string(schema, value)
    if schema is not None and schema.name in (DATE_NAME, TIME_NAME, TIMESTAMP_NAME):
        value = _encode_logical(schema, value)
    try:
        return _cast(value, target)
    except (ValueError, ArithmeticError):
        raise DataError(f"Value ({value}) was out of range for requested data type") from None


def _cast(value: Any, target: SchemaType) -> Any:
    if isinstance(value, bytes | bytearray):
        raise DataError(f"Unexpected type in Cast transformation: {type(value).__name__}")
    if target is SchemaType.BOOLEAN:
        if isinstance(value, str):
            return value.strip().lower() == "true"
        return int(value) != 0
    if target in _INT_BITS:
        bits = _INT_BITS[target]
        if isinstance(value, str):
            number = int(value.strip())
            if not -(1 << (bits - 1)) <= number < 1 << (bits - 1):
                raise ValueError(value)
            return number
        if isinstance(value, float | Decimal):
            if value != value:  # NaN narrows to 0 in Java
                return 0
            return _wrap(int(value), bits) if bits < 64 else max(min(int(value), (1 << 63) - 1), -(1 << 63))
        return _wrap(int(value), bits)
    if isinstance(value, str):
        return float(value.strip())
    return float(value)


def _cast_schema(schema: Schema, target: SchemaType) -> Schema:
    default = None if schema.default is None else cast_value(schema, schema.default, target)
    return Schema(target, optional=schema.optional, default=default)


class Cast(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.casts = parse_spec("spec", values["spec"])
        self.whole_value = self.casts.get(WHOLE_VALUE)
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            return self.new_record(record, None, self._cast_schemaless(value))
        if self.whole_value is not None:
            cast_schema: Schema = self._schemas.get_or_build(schema, lambda s: _cast_schema(s, self.casts[WHOLE_VALUE]))
            return self.new_record(record, cast_schema, cast_value(schema, value, self.whole_value))
        if value is None:
            return record
        struct = require_struct(value, PURPOSE)
        updated: Schema = self._schemas.get_or_build(struct.schema, self._updated_schema)
        values = {}
        for f in struct.schema.fields:
            current = field_value(struct, f, self.replace_null_with_default)
            target = self.casts.get(f.name)
            values[f.name] = current if target is None else cast_value(f.schema, current, target)
        return self.new_record(record, updated, new_struct(updated, values))

    def _cast_schemaless(self, value: Any) -> Any:
        if self.whole_value is not None:
            return cast_value(None, value, self.whole_value)
        if value is None:
            return None
        updated = require_map(value, PURPOSE)
        for name, target in self.casts.items():
            if name in updated:
                updated[name] = cast_value(None, updated[name], target)
        return updated

    def _updated_schema(self, schema: Schema) -> Schema:
        fields = []
        for f in schema.fields:
            target = self.casts.get(f.name)
            bytes_to_number = f.schema.type is SchemaType.BYTES and f.schema.name != DECIMAL_NAME
            if target is not None and target is not SchemaType.STRING and bytes_to_number:
                raise DataError(f"Unexpected type in Cast transformation: bytes cannot be cast to {target.value}")
            fields.append((f.name, f.schema if target is None else _cast_schema(f.schema, target)))
        return struct_schema_like(schema, fields)


class CastKey(Cast[R]):
    """Cast fields of the record key, or the whole key."""

    IS_KEY = True


class CastValue(Cast[R]):
    """Cast fields of the record value, or the whole value."""

    IS_KEY = False
