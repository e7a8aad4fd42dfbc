"""TimestampConverter: convert timestamps between strings, unix numbers, and Date/Time/Timestamp."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, ValidString
from connect.api.data import (
    DATE_NAME,
    DATE_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    TIME_NAME,
    TIME_SCHEMA,
    TIMESTAMP_NAME,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
)
from connect.api.errors import ConfigError, DataError
from connect.api.transform import R
from connect.converters import logical
from connect.converters.structs import field_value, new_struct
from connect.transforms.base import KeyValueTransformation
from connect.transforms.java_date_format import JavaDateFormat
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    SchemaCache,
    define_replace_null_with_default,
    optional_of,
    require_map,
    require_struct,
    struct_schema_like,
)

PURPOSE = "converting timestamp formats"
STRING, UNIX, DATE, TIME, TIMESTAMP = "string", "unix", "Date", "Time", "Timestamp"
_TARGET_SCHEMAS = {
    STRING: STRING_SCHEMA,
    UNIX: INT64_SCHEMA,
    DATE: DATE_SCHEMA,
    TIME: TIME_SCHEMA,
    TIMESTAMP: TIMESTAMP_SCHEMA,
}
_MICROS_PER_UNIT = {"seconds": 1_000_000, "milliseconds": 1000, "microseconds": 1}
_EPOCH = logical.EPOCH


def config_def() -> ConfigDef:
    definition = (
        ConfigDef()
        .define(
            "field",
            ConfigType.STRING,
            "",
            None,
            Importance.HIGH,
            "The field containing the timestamp, or empty if the entire value is a timestamp",
        )
        .define(
            "target.type",
            ConfigType.STRING,
            NO_DEFAULT,
            ValidString.in_(STRING, UNIX, DATE, TIME, TIMESTAMP),
            Importance.HIGH,
            "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
        )
        .define(
            "format",
            ConfigType.STRING,
            "",
            None,
            Importance.MEDIUM,
            "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when type=string "
            "or used to parse the input if the input is a string.",
        )
        .define(
            "unix.precision",
            ConfigType.STRING,
            "milliseconds",
            ValidString.in_("nanoseconds", "microseconds", "milliseconds", "seconds"),
            Importance.LOW,
            "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or nanoseconds. "
            "Used to generate the output when type=unix or used to parse the input if the input is a Long.",
        )
    )
    return define_replace_null_with_default(definition)


def _type_of_schema(schema: Schema) -> str:
    if schema.name == TIMESTAMP_NAME:
        return TIMESTAMP
    if schema.name == DATE_NAME:
        return DATE
    if schema.name == TIME_NAME:
        return TIME
    if schema.type is SchemaType.STRING:
        return STRING
    if schema.type is SchemaType.INT64:
        return UNIX
    raise DataError(f"Schema {schema} does not correspond to a known timestamp type format")


def _type_of_value(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return TIMESTAMP
    if isinstance(value, dt.date):
        return DATE
    if isinstance(value, dt.time):
        return TIME
    if isinstance(value, int) and not isinstance(value, bool):
        return UNIX
    if isinstance(value, str):
        return STRING
    raise DataError(f"TimestampConverter does not support {type(value).__name__} objects as timestamps")


class TimestampConverter(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.field: str = values["field"]
        self.target: str = values["target.type"]
        pattern: str = values["format"]
        if self.target == STRING and not pattern.strip():
            raise ConfigError("TimestampConverter requires format option to be specified when using string timestamps")
        try:
            self.format = JavaDateFormat(pattern) if pattern.strip() else None
        except ConfigError as exc:
            raise ConfigError(
                f"TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: {pattern} "
                f"({exc})"
            ) from None
        self.precision: str = values["unix.precision"]
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            return self.new_record(record, None, self._apply_schemaless(value))
        if not self.field:
            target_schema: Schema = self._schemas.get_or_build(schema, self._target_schema)
            converted = None if value is None else self.convert(value, _type_of_schema(schema))
            return self.new_record(record, target_schema, converted)
        if value is None:
            return self.new_record(record, self._schemas.get_or_build(schema, self._updated_schema), None)
        struct = require_struct(value, PURPOSE)
        updated: Schema = self._schemas.get_or_build(struct.schema, self._updated_schema)
        values = {}
        for f in struct.schema.fields:
            current = field_value(struct, f, self.replace_null_with_default)
            if f.name == self.field and current is not None:
                current = self.convert(current, _type_of_schema(f.schema))
            values[f.name] = current
        return self.new_record(record, updated, new_struct(updated, values))

    def _apply_schemaless(self, value: Any) -> Any:
        if not self.field:
            return None if value is None else self.convert(value, _type_of_value(value))
        if value is None:
            return None
        mapping = require_map(value, PURPOSE)
        current = mapping.get(self.field)
        if current is not None:
            mapping[self.field] = self.convert(current, _type_of_value(current))
        return mapping

    def _target_schema(self, schema: Schema) -> Schema:
        target = _TARGET_SCHEMAS[self.target]
        return optional_of(target) if schema.optional else target

    def _updated_schema(self, schema: Schema) -> Schema:
        if schema.field(self.field) is None:
            raise DataError(f"Field {self.field} does not exist in the schema")
        return struct_schema_like(
            schema,
            [(f.name, self._target_schema(f.schema) if f.name == self.field else f.schema) for f in schema.fields],
        )

    def convert(self, value: Any, source: str) -> Any:
        return self._from_instant(self._to_instant(value, source))

    def _to_instant(self, value: Any, source: str) -> dt.datetime:
        """Any supported representation as an aware UTC datetime."""
        if source == STRING:
            if self.format is None:
                raise DataError(
                    "TimestampConverter requires format option to be specified when using string timestamps"
                )
            if not isinstance(value, str):
                raise DataError(f"Expected string timestamp to be a String, but found {type(value).__name__}")
            return self.format.parse(value)
        if source == UNIX:
            if not isinstance(value, int) or isinstance(value, bool):
                raise DataError(f"Expected Unix timestamp to be a Long, but found {type(value).__name__}")
            if self.precision == "nanoseconds":
                return _EPOCH + dt.timedelta(microseconds=value // 1000)
            return _EPOCH + dt.timedelta(microseconds=value * _MICROS_PER_UNIT[self.precision])
        if source == DATE:
            if isinstance(value, int) and not isinstance(value, bool):
                value = logical.days_to_date(value)
            if isinstance(value, dt.datetime):
                return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
            if isinstance(value, dt.date):
                return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
            raise DataError(f"Expected Date to be a date, but found {type(value).__name__}")
        if source == TIME:
            if isinstance(value, int) and not isinstance(value, bool):
                value = logical.millis_to_time(value)
            if isinstance(value, dt.time):
                return dt.datetime.combine(logical.EPOCH_DATE, value.replace(tzinfo=None), tzinfo=dt.UTC)
            raise DataError(f"Expected Time to be a time, but found {type(value).__name__}")
        if isinstance(value, int) and not isinstance(value, bool):
            return logical.millis_to_timestamp(value)
        if isinstance(value, dt.datetime):
            return value.astimezone(dt.UTC) if value.tzinfo else value.replace(tzinfo=dt.UTC)
        raise DataError(f"Expected Timestamp to be a datetime, but found {type(value).__name__}")

    def _from_instant(self, instant: dt.datetime) -> Any:
        if self.target == STRING:
            assert self.format is not None  # configure requires a format for string targets
            return self.format.format(instant)
        if self.target == UNIX:
            micros = (instant - _EPOCH) // dt.timedelta(microseconds=1)
            if self.precision == "nanoseconds":
                return micros * 1000
            return micros // _MICROS_PER_UNIT[self.precision]
        if self.target == DATE:
            return instant.date()
        if self.target == TIME:
            return instant.time().replace(microsecond=instant.microsecond // 1000 * 1000)
        return instant


class TimestampConverterKey(TimestampConverter[R]):
    """Convert a timestamp in the record key (or the whole key)."""

    IS_KEY = True


class TimestampConverterValue(TimestampConverter[R]):
    """Convert a timestamp in the record value (or the whole value)."""

    IS_KEY = False
