"""ExtractField: replace the key or value with one of its fields (nested paths with syntax V2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, ValidString
from connect.api.data import Field, Schema, SchemaType, Struct
from connect.api.errors import ConfigError, DataError
from connect.api.transform import R
from connect.converters.structs import field_value
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    define_replace_null_with_default,
    require_map_or_none,
    require_struct_or_none,
)

PURPOSE = "field extraction"
FIELD_SYNTAX_VERSION_CONFIG = "field.syntax.version"


def config_def() -> ConfigDef:
    definition = (
        ConfigDef()
        .define(
            "field",
            ConfigType.STRING,
            NO_DEFAULT,
            None,
            Importance.MEDIUM,
            "Field name to extract.",
        )
        .define(
            FIELD_SYNTAX_VERSION_CONFIG,
            ConfigType.STRING,
            "V1",
            ValidString.in_("V1", "V2", ignore_case=True),
            Importance.HIGH,
            "Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited "
            "to access the elements at the root level of the struct or map. If set to `V2`, the syntax will "
            "support accessing nested elements. To access nested elements, dotted notation is used. If dots are "
            "already included in the field name, then backtick pairs can be used to wrap field names containing "
            "dots.",
        )
    )
    return define_replace_null_with_default(definition)


def parse_field_path(path: str, version: str) -> list[str]:
    """The path's steps: one for V1; for V2 split on dots outside `backticks` (\\` escapes a backtick)."""
    if version.upper() == "V1":
        return [path]
    steps: list[str] = []
    current: list[str] = []
    quoted = False
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == "\\" and i + 1 < len(path) and path[i + 1] == "`":
            current.append("`")
            i += 2
            continue
        if ch == "`":
            quoted = not quoted
        elif ch == "." and not quoted:
            steps.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    if quoted:
        raise ConfigError(f"Invalid field path {path}: unclosed backtick")
    steps.append("".join(current))
    return steps


def field_at(schema: Schema, steps: list[str]) -> Field | None:
    current: Schema | None = schema
    found: Field | None = None
    for step in steps:
        if current is None or current.type is not SchemaType.STRUCT:
            return None
        found = current.field(step)
        if found is None:
            return None
        current = found.schema
    return found


def struct_value_at(struct: Struct, steps: list[str], replace_null_with_default: bool) -> Any:
    current: Any = struct
    for step in steps:
        if not isinstance(current, Struct):
            return None
        f = current.schema.field(step)
        if f is None:
            return None
        current = field_value(current, f, replace_null_with_default)
    return current


def map_value_at(value: Mapping[str, Any], steps: list[str]) -> Any:
    current: Any = value
    for step in steps:
        if not isinstance(current, Mapping):
            return None
        current = current.get(step)
    return current


class ExtractField(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.field: str = values["field"]
        self.steps = parse_field_path(self.field, values[FIELD_SYNTAX_VERSION_CONFIG])
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]

    def apply(self, record: R) -> R | None:
        schema = self.operating_schema(record)
        if schema is None:
            value = require_map_or_none(self.operating_value(record), PURPOSE)
            return self.new_record(record, None, None if value is None else map_value_at(value, self.steps))
        struct = require_struct_or_none(self.operating_value(record), PURPOSE)
        f = field_at(schema, self.steps)
        if f is None:
            raise DataError(f"Unknown field: {self.field}")
        extracted = None if struct is None else struct_value_at(struct, self.steps, self.replace_null_with_default)
        return self.new_record(record, f.schema, extracted)


class ExtractFieldKey(ExtractField[R]):
    """Replace the record key with one of its fields."""

    IS_KEY = True


class ExtractFieldValue(ExtractField[R]):
    """Replace the record value with one of its fields."""

    IS_KEY = False
