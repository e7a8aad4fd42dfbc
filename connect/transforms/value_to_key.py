"""ValueToKey: replace the key with a new key made of fields of the value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance
from connect.api.data import Schema
from connect.api.errors import ConfigError, DataError
from connect.api.transform import R
from connect.converters.structs import field_value, new_struct
from connect.transforms.base import BuiltinTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    SchemaCache,
    define_replace_null_with_default,
    require_map,
    require_struct,
)

PURPOSE = "copying fields from value to key"


def _non_empty_list(name: str, value: Any) -> None:
    if not value:
        raise ConfigError(f"Invalid value {value} for configuration {name}: Empty list")


def config_def() -> ConfigDef:
    return define_replace_null_with_default(
        ConfigDef().define(
            "fields",
            ConfigType.LIST,
            NO_DEFAULT,
            _non_empty_list,
            Importance.HIGH,
            "Field names on the record value to extract as the record key.",
        )
    )


class ValueToKey(BuiltinTransformation[R]):
    """Replace the record key with a new key formed from a subset of fields in the record value."""

    def config(self) -> ConfigDef:
        return config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = config_def().parse(configs)
        self.fields: list[str] = values["fields"]
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        if record.value is None:
            return record
        if record.value_schema is None:
            value = require_map(record.value, PURPOSE)
            return record.with_(key_schema=None, key={name: value.get(name) for name in self.fields})
        struct = require_struct(record.value, PURPOSE)
        key_schema: Schema = self._schemas.get_or_build(struct.schema, self._key_schema)
        values = {}
        for name in self.fields:
            f = struct.schema.field(name)
            assert f is not None  # _key_schema checked every name
            values[name] = field_value(struct, f, self.replace_null_with_default)
        return record.with_(key_schema=key_schema, key=new_struct(key_schema, values))

    def _key_schema(self, value_schema: Schema) -> Schema:
        fields = []
        for name in self.fields:
            f = value_schema.field(name)
            if f is None:
                raise DataError(f"Field does not exist: {name}")
            fields.append((name, f.schema))
        return Schema.struct(fields)
