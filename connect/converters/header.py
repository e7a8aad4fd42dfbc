"""SimpleHeaderConverter: header values as UTF-8 text, typed back by inference (Kafka's default).

Stateless; any thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api.config import ConfigDef
from connect.api.converter import HeaderConverter
from connect.api.data import NULL_SCHEMA_AND_VALUE, STRING_SCHEMA, Schema, SchemaAndValue
from connect.api.errors import DataError
from connect.api.version import distribution_version
from connect.converters.values import convert_to_string, parse_string


class SimpleHeaderConverter(HeaderConverter):
    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        text = convert_to_string(schema, value)
        return None if text is None else text.encode("utf-8")

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        if value is None:
            return NULL_SCHEMA_AND_VALUE
        if not value:
            return SchemaAndValue(STRING_SCHEMA, "")
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(f"Failed to convert header {header_key!r} to a string: {exc}") from exc
        return parse_string(text)
