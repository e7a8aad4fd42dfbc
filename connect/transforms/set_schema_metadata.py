"""SetSchemaMetadata: set the name and/or version of the key or value schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance
from connect.api.data import Schema, Struct
from connect.api.errors import ConfigError
from connect.api.transform import R
from connect.converters.structs import new_struct, raw_values
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import SchemaCache, copy_schema, require_schema

PURPOSE = "updating schema metadata"


def config_def() -> ConfigDef:
    return (
        ConfigDef()
        .define("schema.name", ConfigType.STRING, None, None, Importance.HIGH, "Schema name to set.")
        .define("schema.version", ConfigType.INT, None, None, Importance.HIGH, "Schema version to set.")
    )


class SetSchemaMetadata(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.schema_name: str | None = values["schema.name"]
        self.schema_version: int | None = values["schema.version"]
        if self.schema_name is None and self.schema_version is None:
            raise ConfigError("Neither schema name nor version configured")
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema = require_schema(self.operating_schema(record), PURPOSE)
        updated: Schema = self._schemas.get_or_build(schema, self._updated_schema)
        value = self.operating_value(record)
        if isinstance(value, Struct) and value.schema == schema:
            # A struct carries its schema: give it the renamed one too, with the same values.
            value = new_struct(updated, dict(raw_values(value)))
        return self.new_record(record, updated, value)

    def _updated_schema(self, schema: Schema) -> Schema:
        changes: dict[str, Any] = {}
        if self.schema_name is not None:
            changes["name"] = self.schema_name
        if self.schema_version is not None:
            changes["version"] = self.schema_version
        return copy_schema(schema, **changes)


class SetSchemaMetadataKey(SetSchemaMetadata[R]):
    """Set the name and/or version of the record key's schema."""

    IS_KEY = True


class SetSchemaMetadataValue(SetSchemaMetadata[R]):
    """Set the name and/or version of the record value's schema."""

    IS_KEY = False
