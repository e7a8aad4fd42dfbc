"""HoistField: wrap the whole key or value in a struct (or map) with a single field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance
from connect.api.data import Schema
from connect.api.transform import R
from connect.converters.structs import new_struct
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import SchemaCache


def config_def() -> ConfigDef:
    return ConfigDef().define(
        "field",
        ConfigType.STRING,
        NO_DEFAULT,
        None,
        Importance.MEDIUM,
        "Field name for the single field that will be created in the resulting Struct or Map.",
    )


class HoistField(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.field: str = self.parse(configs)["field"]
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            return self.new_record(record, None, {self.field: value})
        updated: Schema = self._schemas.get_or_build(schema, lambda s: Schema.struct([(self.field, s)]))
        return self.new_record(record, updated, new_struct(updated, {self.field: value}))


class HoistFieldKey(HoistField[R]):
    """Wrap the record key in a single-field struct or map."""

    IS_KEY = True


class HoistFieldValue(HoistField[R]):
    """Wrap the record value in a single-field struct or map."""

    IS_KEY = False
