"""MaskField: replace fields' values by their type's empty value, or by a `replacement`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, non_empty_string
from connect.api.errors import ConfigError, DataError
from connect.api.transform import R
from connect.converters.logical import EPOCH, EPOCH_DATE
from connect.converters.structs import field_value, new_struct
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    define_replace_null_with_default,
    require_map,
    require_struct,
)

PURPOSE = "mask fields"


def _non_empty_list(name: str, value: Any) -> None:
    if not value:
        raise ConfigError(f"Invalid value {value} for configuration {name}: Empty list")


def config_def() -> ConfigDef:
    definition = (
        ConfigDef()
        .define("fields", ConfigType.LIST, NO_DEFAULT, _non_empty_list, Importance.HIGH, "Names of fields to mask.")
        .define(
            "replacement",
            ConfigType.STRING,
            None,
            non_empty_string,
            Importance.LOW,
            "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty string values "
            "only).",
        )
    )
    return define_replace_null_with_default(definition)


def _empty_like(value: Any) -> Any:
    """The null-ish value of a value's type, as Kafka's MaskField's PRIMITIVE_VALUE_MAPPING."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, Decimal):
        return Decimal(0)
    if isinstance(value, str):
        return ""
    if isinstance(value, bytes | bytearray):
        return b""
    if isinstance(value, dt.datetime):
        return EPOCH
    if isinstance(value, dt.date):
        return EPOCH_DATE
    if isinstance(value, dt.time):
        return dt.time(0)
    if isinstance(value, list | tuple):
        return []
    if isinstance(value, Mapping):
        return {}
    raise DataError(f"Cannot mask value of type: {type(value).__name__}")


def _replacement_for(value: Any, replacement: str) -> Any:
    """The replacement converted to the value's type; only numbers and strings can take one."""
    try:
        if isinstance(value, bool):
            raise DataError(f"Cannot mask value of type {type(value).__name__} with custom replacement.")
        if isinstance(value, int):
            return int(replacement)
        if isinstance(value, float):
            return float(replacement)
        if isinstance(value, Decimal):
            return Decimal(replacement)
        if isinstance(value, str):
            return replacement
    except (ValueError, InvalidOperation):
        raise DataError(f"Unable to convert {replacement} ({type(replacement).__name__}) to number") from None
    raise DataError(f"Cannot mask value of type {type(value).__name__} with custom replacement.")


class MaskField(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.fields = set(values["fields"])
        self.replacement: str | None = values["replacement"]
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]

    def masked(self, value: Any) -> Any:
        if value is None:
            return None
        return _empty_like(value) if self.replacement is None else _replacement_for(value, self.replacement)

    def apply(self, record: R) -> R | None:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            updated = require_map(value, PURPOSE)
            for name in self.fields:
                if name in updated:
                    updated[name] = self.masked(updated[name])
            return self.new_record(record, None, updated)
        struct = require_struct(value, PURPOSE)
        values = {}
        for f in struct.schema.fields:
            current = field_value(struct, f, self.replace_null_with_default)
            if f.name in self.fields and current is not None:
                current = self.masked(current)
            values[f.name] = current
        return self.new_record(record, schema, new_struct(struct.schema, values))


class MaskFieldKey(MaskField[R]):
    """Mask fields of the record key."""

    IS_KEY = True


class MaskFieldValue(MaskField[R]):
    """Mask fields of the record value."""

    IS_KEY = False
