"""Header SMTs: DropHeaders, InsertHeader, HeaderFrom (fields of the key/value into headers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, ValidString, invalid_value, non_null
from connect.api.data import Field, Schema
from connect.api.errors import ConfigError, DataError
from connect.api.records import Header, Headers
from connect.api.transform import R
from connect.converters.structs import field_value, new_struct
from connect.converters.values import parse_string
from connect.transforms.base import BuiltinTransformation, KeyValueTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    SchemaCache,
    define_replace_null_with_default,
    require_map,
    require_struct,
    struct_schema_like,
)


def _non_empty_list(name: str, value: Any) -> None:
    if not value:
        raise invalid_value(name, value, "Empty list")


def drop_headers_config_def() -> ConfigDef:
    return ConfigDef().define(
        "headers",
        ConfigType.LIST,
        NO_DEFAULT,
        _non_empty_list,
        Importance.HIGH,
        "The name of the headers to be removed.",
    )


class DropHeaders(BuiltinTransformation[R]):
    """Removes one or more headers from each record."""

    def config(self) -> ConfigDef:
        return drop_headers_config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.headers = frozenset(drop_headers_config_def().parse(configs)["headers"])

    def apply(self, record: R) -> R | None:
        if not any(h.key in self.headers for h in record.headers):
            return record
        return record.with_(headers=tuple(h for h in record.headers if h.key not in self.headers))


def insert_header_config_def() -> ConfigDef:
    return (
        ConfigDef()
        .define("header", ConfigType.STRING, NO_DEFAULT, non_null, Importance.HIGH, "The name of the header.")
        .define(
            "value.literal",
            ConfigType.STRING,
            NO_DEFAULT,
            non_null,
            Importance.HIGH,
            "The literal value that is to be set as the header value on all records.",
        )
    )


class InsertHeader(BuiltinTransformation[R]):
    """Add a header to each record; the literal's type is inferred as Kafka's `Values.parseString` does."""

    def config(self) -> ConfigDef:
        return insert_header_config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = insert_header_config_def().parse(configs)
        parsed = parse_string(values["value.literal"])
        self.header = Header(values["header"], parsed.value, parsed.schema)

    def apply(self, record: R) -> R | None:
        return record.with_(headers=(*record.headers, self.header))


def header_from_config_def() -> ConfigDef:
    definition = (
        ConfigDef()
        .define(
            "fields",
            ConfigType.LIST,
            NO_DEFAULT,
            _non_empty_list,
            Importance.HIGH,
            "Field names in the record whose values are to be copied or moved to headers.",
        )
        .define(
            "headers",
            ConfigType.LIST,
            NO_DEFAULT,
            _non_empty_list,
            Importance.HIGH,
            "Header names, in the same order as the field names listed in the fields configuration property.",
        )
        .define(
            "operation",
            ConfigType.STRING,
            NO_DEFAULT,
            ValidString.in_("move", "copy"),
            Importance.HIGH,
            "Either <code>move</code> if the fields are to be moved to the headers (removed from the key/value), "
            "or <code>copy</code> if the fields are to be copied to the headers (retained in the key/value).",
        )
    )
    return define_replace_null_with_default(definition)


class HeaderFrom(KeyValueTransformation[R]):
    CONFIG_DEF = header_from_config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.fields: list[str] = values["fields"]
        self.headers: list[str] = values["headers"]
        if len(self.fields) != len(self.headers):
            raise ConfigError("'fields' config must have the same number of elements as 'headers' config.")
        self.move = values["operation"] == "move"
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            mapping = require_map(value, "header " + ("move" if self.move else "copy"))
            copied: Headers = tuple(Header(h, mapping.get(f)) for f, h in zip(self.fields, self.headers, strict=True))
            if self.move:
                for f in self.fields:
                    mapping.pop(f, None)
                return self.new_record(record, None, mapping).with_(headers=(*record.headers, *copied))
            return record.with_(headers=(*record.headers, *copied))
        struct = require_struct(value, "header " + ("move" if self.move else "copy"))
        fields = [self._field(struct.schema, name) for name in self.fields]
        added: Headers = tuple(
            Header(h, field_value(struct, f, self.replace_null_with_default), f.schema)
            for f, h in zip(fields, self.headers, strict=True)
        )
        if not self.move:
            return record.with_(headers=(*record.headers, *added))
        updated: Schema = self._schemas.get_or_build(struct.schema, self._schema_without_fields)
        kept = {f.name: field_value(struct, f, self.replace_null_with_default) for f in updated.fields}
        moved = self.new_record(record, updated, new_struct(updated, kept))
        return moved.with_(headers=(*record.headers, *added))

    @staticmethod
    def _field(schema: Schema, name: str) -> Field:
        f = schema.field(name)
        if f is None:
            raise DataError(f"Field {name} does not exist in the schema {schema.name or ''}".rstrip())
        return f

    def _schema_without_fields(self, schema: Schema) -> Schema:
        moved = set(self.fields)
        return struct_schema_like(schema, [(f.name, f.schema) for f in schema.fields if f.name not in moved])


class HeaderFromKey(HeaderFrom[R]):
    """Copy or move fields of the record key into headers."""

    IS_KEY = True


class HeaderFromValue(HeaderFrom[R]):
    """Copy or move fields of the record value into headers."""

    IS_KEY = False
