"""JsonSchemaConverter: Confluent's `io.confluent.connect.json.JsonSchemaConverter`, JSON values framed for
a Schema Registry (magic byte, 4-byte schema id, UTF-8 JSON) with their JSON Schema registered, with
Confluent's config keys (registry_converter.py) and JsonSchemaData's type mapping
(jsonschema_from_connect.py, jsonschema_to_connect.py, jsonschema_values.py). orjson encodes and
decodes; a schema with decimals is read with exact decimal numbers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

import orjson

from connect.api.config import ConfigDef, ConfigType, Importance, ValidString
from connect.api.data import DECIMAL_NAME, Schema, StructColumns
from connect.api.errors import DataError
from connect.converters.schema_registry import wire
from connect.converters.schema_registry.jsonschema_from_connect import json_schema_of
from connect.converters.schema_registry.jsonschema_to_connect import connect_schema_of
from connect.converters.schema_registry.jsonschema_values import (
    compile_columns_from_json,
    compile_from_json,
    compile_to_json,
    default_from_json,
    default_to_json,
)
from connect.converters.schema_registry.registry_converter import Encode, Reader, RegistryConverter
from connect.converters.schema_registry.settings import RegistrySettings, registry_config_def

DECIMAL_FORMAT = "decimal.format"


def json_schema_config_def() -> ConfigDef:
    return registry_config_def().define(
        DECIMAL_FORMAT,
        ConfigType.STRING,
        "BASE64",
        ValidString.in_("BASE64", "NUMERIC", ignore_case=True),
        Importance.LOW,
        "How decimals are written: BASE64 (the unscaled two's-complement bytes, base64) or NUMERIC (a JSON number).",
    )


class JsonSchemaConverter(RegistryConverter):
    """Confluent's JsonSchemaConverter: `schema.registry.url`, the keys of docs/schema_registry.md, and
    `decimal.format`."""

    format_name = "JSON Schema"
    schema_type = "JSON"

    def config(self) -> ConfigDef:
        return json_schema_config_def()

    def _configure_format(self, configs: Mapping[str, Any], settings: RegistrySettings) -> None:
        values = json_schema_config_def().parse(configs)
        self._decimal_numeric = str(values[DECIMAL_FORMAT]).upper() == "NUMERIC"

    def _schema_text(self, schema: Schema | None) -> tuple[str, str]:
        if schema is None:
            raise DataError(
                "JsonSchemaConverter needs a schema, and this value has none; use JsonConverter with "
                "schemas.enable=false for schemaless data, or give the records a schema"
            )
        document = json_schema_of(schema, default_to_json)
        return json.dumps(document, separators=(",", ":")), _name_of(document)

    def _record_name(self, schema_text: str) -> str:
        return _name_of(json.loads(schema_text))

    def _encoder(self, schema: Schema | None, writer_text: str, own_text: str) -> Encode:
        assert schema is not None  # refused by _schema_text
        to_json = compile_to_json(schema, self._decimal_numeric)
        dumps = orjson.dumps
        return lambda value: dumps(to_json(value))

    def _reader(self, schema_text: str, version: int | None) -> Reader:
        schema = connect_schema_of(json.loads(schema_text), default_from_json, version)
        from_json = compile_from_json(schema)
        header = wire.HEADER_SIZE
        parse = _exact_parser(header) if _has_decimal(schema) else _fast_parser(header)
        to_columns = compile_columns_from_json(schema)
        if to_columns is None:
            return Reader(schema, lambda value: from_json(parse(value)))

        def read_columns(values: Sequence[bytes]) -> StructColumns:
            return to_columns([parse(value) for value in values])

        return Reader(schema, lambda value: from_json(parse(value)), read_columns)


def _fast_parser(header: int) -> Callable[[bytes], Any]:
    loads = orjson.loads
    return lambda value: loads(memoryview(value)[header:])


def _exact_parser(header: int) -> Callable[[bytes], Any]:
    """orjson reads numbers as floats; decimals written as numbers (NUMERIC) must stay exact."""
    return lambda value: json.loads(value[header:], parse_float=Decimal)


def _name_of(document: Any) -> str:
    """What RecordNameStrategy names a JSON schema by: its title, else its type."""
    if isinstance(document, dict):
        title = document.get("title")
        if isinstance(title, str):
            return title
        return str(document.get("type", "object"))
    return "object"


def _has_decimal(schema: Schema | None) -> bool:
    if schema is None:
        return False
    if schema.name == DECIMAL_NAME:
        return True
    return any(_has_decimal(f.schema) for f in schema.fields) or any(
        _has_decimal(s) for s in (schema.key_schema, schema.value_schema)
    )
