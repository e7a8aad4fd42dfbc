"""Flatten: nested structs (or maps) into one level, names joined by `delimiter`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance
from connect.api.data import Schema, SchemaType, Struct
from connect.api.transform import R
from connect.converters.structs import field_value, new_struct
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    SchemaCache,
    copy_schema,
    define_replace_null_with_default,
    require_map_or_none,
    require_struct_or_none,
    struct_schema_like,
)

PURPOSE = "flattening"


def config_def() -> ConfigDef:
    return define_replace_null_with_default(
        ConfigDef().define(
            "delimiter",
            ConfigType.STRING,
            ".",
            None,
            Importance.MEDIUM,
            "Delimiter to insert between field names from the input record when generating field names for the "
            "output record",
        )
    )


class Flatten(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.delimiter: str = values["delimiter"]
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schemas = SchemaCache()

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self.delimiter + name

    def apply(self, record: R) -> R | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            mapping = require_map_or_none(value, PURPOSE)
            if mapping is None:
                return self.new_record(record, None, None)
            flat: dict[str, Any] = {}
            self._flatten_map(mapping, "", flat)
            return self.new_record(record, None, flat)
        struct = require_struct_or_none(value, PURPOSE)
        updated: Schema = self._schemas.get_or_build(schema, self._updated_schema)
        if struct is None:
            return self.new_record(record, updated, None)
        values: dict[str, Any] = {}
        self._flatten_struct(struct, "", values)
        return self.new_record(record, updated, new_struct(updated, values))

    def _flatten_map(self, value: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, item in value.items():
            name = self._name(prefix, str(key))
            if isinstance(item, Mapping):
                self._flatten_map(item, name, out)
            else:
                out[name] = item

    def _flatten_struct(self, struct: Struct | None, prefix: str, out: dict[str, Any]) -> None:
        if struct is None:
            return
        for f in struct.schema.fields:
            name = self._name(prefix, f.name)
            item = field_value(struct, f, self.replace_null_with_default)
            if f.schema.type is SchemaType.STRUCT:
                self._flatten_struct(item, name, out)
            else:
                out[name] = item

    def _updated_schema(self, schema: Schema) -> Schema:
        fields: list[tuple[str, Schema]] = []
        self._flatten_schema(schema, "", schema.optional, schema.default, fields)
        return struct_schema_like(schema, fields)

    def _flatten_schema(
        self, schema: Schema, prefix: str, optional: bool, parent_default: Any, out: list[tuple[str, Schema]]
    ) -> None:
        for f in schema.fields:
            name = self._name(prefix, f.name)
            field_optional = optional or f.schema.optional
            default = f.schema.default
            if default is None and isinstance(parent_default, Struct):
                default = parent_default.get(f.name)
            if f.schema.type is SchemaType.STRUCT:
                self._flatten_schema(f.schema, name, field_optional, default, out)
            else:
                out.append((name, copy_schema(f.schema, optional=field_optional, default=default)))


class FlattenKey(Flatten[R]):
    """Flatten the record key."""

    IS_KEY = True


class FlattenValue(Flatten[R]):
    """Flatten the record value."""

    IS_KEY = False
