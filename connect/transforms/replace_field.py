"""ReplaceField: keep (`include`), drop (`exclude`) and rename (`renames`) fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance, invalid_value
from connect.api.data import Schema
from connect.api.transform import R
from connect.converters.structs import field_value, new_struct
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    SchemaCache,
    define_replace_null_with_default,
    require_map,
    require_struct,
    struct_schema_like,
)

PURPOSE = "field replacement"


def _validate_renames(name: str, value: Any) -> None:
    for mapping in value or ():
        parts = mapping.split(":")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise invalid_value(name, value, f"Invalid rename mapping: {mapping}")


def config_def() -> ConfigDef:
    definition = (
        ConfigDef()
        .define(
            "exclude",
            ConfigType.LIST,
            "",
            None,
            Importance.MEDIUM,
            "Fields to exclude. This takes precedence over the fields to include.",
        )
        .define(
            "include",
            ConfigType.LIST,
            "",
            None,
            Importance.MEDIUM,
            "Fields to include. If specified, only these fields will be used.",
        )
        .define(
            "renames",
            ConfigType.LIST,
            "",
            _validate_renames,
            Importance.MEDIUM,
            "Field rename mappings.",
        )
    )
    return define_replace_null_with_default(definition)


class ReplaceField(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.exclude = set(values["exclude"])
        self.include = set(values["include"])
        self.renames: dict[str, str] = dict(m.split(":", 1) for m in values["renames"])
        self.reverse_renames = {new: old for old, new in self.renames.items()}
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schemas = SchemaCache()

    def keeps(self, name: str) -> bool:
        return name not in self.exclude and (not self.include or name in self.include)

    def renamed(self, name: str) -> str:
        return self.renames.get(name, name)

    def apply(self, record: R) -> R | None:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            original = require_map(value, PURPOSE)
            updated = {self.renamed(k): v for k, v in original.items() if self.keeps(k)}
            return self.new_record(record, None, updated)
        struct = require_struct(value, PURPOSE)
        updated_schema: Schema = self._schemas.get_or_build(struct.schema, self._updated_schema)
        values = {}
        for f in struct.schema.fields:
            if self.keeps(f.name):
                values[self.renamed(f.name)] = field_value(struct, f, self.replace_null_with_default)
        return self.new_record(record, updated_schema, new_struct(updated_schema, values))

    def _updated_schema(self, schema: Schema) -> Schema:
        return struct_schema_like(
            schema, [(self.renamed(f.name), f.schema) for f in schema.fields if self.keeps(f.name)]
        )


class ReplaceFieldKey(ReplaceField[R]):
    """Filter or rename fields of the record key."""

    IS_KEY = True


class ReplaceFieldValue(ReplaceField[R]):
    """Filter or rename fields of the record value."""

    IS_KEY = False
