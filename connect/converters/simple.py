"""StringConverter and ByteArrayConverter, as Kafka's (both also serve as header converters).

Stateless after `configure`; any thread.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance, Width, invalid_value
from connect.api.converter import Converter, HeaderConverter
from connect.api.data import (
    NULL_SCHEMA_AND_VALUE,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    Schema,
    SchemaAndValue,
    SchemaAndValues,
    SchemaType,
    Utf8Strings,
)
from connect.api.errors import DataError
from connect.api.records import Headers
from connect.api.version import distribution_version
from connect.converters.config import ENCODING_CONFIG, converter_config_def, with_converter_type

# What a null becomes, shared: SchemaAndValue is immutable, and sinks see a null key on most records.
_NULL_STRING = SchemaAndValue(OPTIONAL_STRING_SCHEMA, None)
_NULL_BYTES = SchemaAndValue(OPTIONAL_BYTES_SCHEMA, None)


def string_converter_config_def() -> ConfigDef:
    return converter_config_def().define(
        ENCODING_CONFIG,
        ConfigType.STRING,
        "UTF8",
        None,
        Importance.HIGH,
        "The name of the Java character set to use for encoding strings as byte arrays.",
        group="Converter",
        order_in_group=0,
        width=Width.MEDIUM,
        display_name="Encoding",
    )


class StringConverter(Converter, HeaderConverter):
    """Values as text in `converter.encoding` (UTF-8 by default); non-strings are written with `str()`."""

    def __init__(self) -> None:
        self.encoding = "utf-8"

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return string_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        values = string_converter_config_def().parse(with_converter_type(configs, is_key))
        encoding = str(values[ENCODING_CONFIG])
        try:
            self.encoding = codecs.lookup(encoding).name
        except LookupError:
            raise invalid_value(ENCODING_CONFIG, encoding, "Unknown encoding") from None

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()) -> bytes | None:
        if value.__class__ is str or isinstance(value, str):
            text = value
        elif value is None:
            return None
        else:
            text = _to_text(value)
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise DataError(f"Failed to serialize to a string: {exc}") from exc

    def from_connect_data_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any], headers: Sequence[Headers] | None = None
    ) -> list[bytes | None]:
        if type(self).from_connect_data is not StringConverter.from_connect_data:
            return super().from_connect_data_batch(topic, schema, values, headers)  # a subclass's own conversion
        encoding = self.encoding
        if isinstance(values, Utf8Strings) and encoding == "utf-8":
            return values.encoded  # type: ignore[return-value]  # already the bytes this would write
        convert = self.from_connect_data
        try:
            try:
                # All strings (the usual column): encoded by map in C, about twice as fast as a comprehension.
                return list(map(str.encode, values, repeat(encoding)))
            except TypeError:
                pass  # a None or a non-string among them
            return [
                value.encode(encoding) if value.__class__ is str else convert(topic, schema, value) for value in values
            ]
        except UnicodeEncodeError as exc:
            raise DataError(f"Failed to serialize to a string: {exc}") from exc

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        if value is None:
            return _NULL_STRING
        try:
            return SchemaAndValue(OPTIONAL_STRING_SCHEMA, value.decode(self.encoding))
        except UnicodeDecodeError as exc:
            raise DataError(f"Failed to deserialize string: {exc}") from exc

    def to_connect_data_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> SchemaAndValues | None:
        if type(self).to_connect_data is not StringConverter.to_connect_data:
            return super().to_connect_data_batch(topic, values, headers)  # a subclass's own conversion
        encoding = self.encoding
        decoded: list[str | None]
        try:
            try:
                # No nulls (the usual column): decoded by map in C, faster than a comprehension.
                decode = bytes.decode
                columns = (values,) if encoding == "utf-8" else (values, repeat(encoding))
                decoded = list(map(decode, *columns))
            except TypeError:
                decoded = [None if value is None else value.decode(encoding) for value in values]
        except UnicodeDecodeError as exc:
            raise DataError(f"Failed to deserialize string: {exc}") from exc
        return SchemaAndValues(OPTIONAL_STRING_SCHEMA, decoded)

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, value)


def _to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


class ByteArrayConverter(Converter, HeaderConverter):
    """Passes bytes through unchanged; the schema, if any, must be BYTES."""

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        converter_config_def().parse(with_converter_type(configs, is_key))

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()) -> bytes | None:
        if schema is not None and schema.type is not SchemaType.BYTES:
            raise DataError(f"Invalid schema type for ByteArrayConverter: {schema.type.name}")
        if value is None or isinstance(value, bytes):
            return value
        if isinstance(value, bytearray | memoryview):
            return bytes(value)
        raise DataError(f"ByteArrayConverter is not compatible with objects of type {type(value).__name__}")

    def from_connect_data_batch(
        self, topic: str, schema: Schema | None, values: Sequence[Any], headers: Sequence[Headers] | None = None
    ) -> list[bytes | None]:
        if type(self).from_connect_data is not ByteArrayConverter.from_connect_data:
            return super().from_connect_data_batch(topic, schema, values, headers)  # a subclass's own conversion
        if schema is not None and schema.type is not SchemaType.BYTES:
            raise DataError(f"Invalid schema type for ByteArrayConverter: {schema.type.name}")
        convert = self.from_connect_data
        # Bytes (and None) are taken as they are: the schema was checked once for the column.
        return [value if value is None or value.__class__ is bytes else convert(topic, None, value) for value in values]

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        if value is None:
            return _NULL_BYTES
        return SchemaAndValue(OPTIONAL_BYTES_SCHEMA, value)

    def to_connect_data_batch(
        self, topic: str, values: Sequence[bytes | None], headers: Sequence[Headers] | None = None
    ) -> SchemaAndValues | None:
        if type(self).to_connect_data is not ByteArrayConverter.to_connect_data:
            return super().to_connect_data_batch(topic, values, headers)  # a subclass's own conversion
        return SchemaAndValues(OPTIONAL_BYTES_SCHEMA, list(values))

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        if value is None:
            return NULL_SCHEMA_AND_VALUE
        return self.to_connect_data(topic, value)


def passthrough_schema(converter: Converter) -> Schema | None:
    """The schema `converter` gives every value it passes through unchanged, None if it converts.

    Only ByteArrayConverter itself (not a subclass, which may override `to_connect_data`): the sink
    loop then takes the bytes as they are, without a call and a SchemaAndValue per record (what that
    saves: docs/architecture.md, "Hot paths").
    """
    return OPTIONAL_BYTES_SCHEMA if type(converter) is ByteArrayConverter else None
