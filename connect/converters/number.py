"""Number converters: Kafka's Integer/Long/Short/Float/Double/BooleanConverter.

Each writes one value in the fixed-width big-endian form of Kafka's matching serializer (booleans as
one byte 0x00/0x01) and reads it back with an optional schema of its type. Stateless; any thread.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, ClassVar

from connect.api.config import ConfigDef
from connect.api.converter import Converter, HeaderConverter
from connect.api.data import (
    NULL_SCHEMA_AND_VALUE,
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    Schema,
    SchemaAndValue,
)
from connect.api.errors import DataError
from connect.api.records import Headers
from connect.api.version import distribution_version
from connect.converters.config import converter_config_def, with_converter_type


class NumberConverter(Converter, HeaderConverter):
    """Base of the number converters: a struct format, a schema and a type name for messages."""

    FORMAT: ClassVar[str]
    SCHEMA: ClassVar[Schema]
    TYPE_NAME: ClassVar[str]

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        converter_config_def().parse(with_converter_type(configs, is_key))

    def _check(self, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise DataError(f"Failed to serialize to {self.TYPE_NAME} (was {type(value).__name__})")

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()) -> bytes | None:
        if value is None:
            return None
        try:
            return struct.pack(self.FORMAT, self._check(value))
        except struct.error as exc:
            raise DataError(f"Failed to serialize to {self.TYPE_NAME}: {exc}") from exc

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(self.SCHEMA, None)
        size = struct.calcsize(self.FORMAT)
        if len(value) != size:
            raise DataError(
                f"Failed to deserialize {self.TYPE_NAME}: Size of data received is not {size} (was {len(value)})"
            )
        return SchemaAndValue(self.SCHEMA, struct.unpack(self.FORMAT, value)[0])

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, value: bytes | None) -> SchemaAndValue:
        return NULL_SCHEMA_AND_VALUE if value is None else self.to_connect_data(topic, value)


class ShortConverter(NumberConverter):
    FORMAT, SCHEMA, TYPE_NAME = ">h", OPTIONAL_INT16_SCHEMA, "SHORT"


class IntegerConverter(NumberConverter):
    FORMAT, SCHEMA, TYPE_NAME = ">i", OPTIONAL_INT32_SCHEMA, "INTEGER"


class LongConverter(NumberConverter):
    FORMAT, SCHEMA, TYPE_NAME = ">q", OPTIONAL_INT64_SCHEMA, "LONG"


class _FloatingConverter(NumberConverter):
    def _check(self, value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise DataError(f"Failed to serialize to {self.TYPE_NAME} (was {type(value).__name__})")


class FloatConverter(_FloatingConverter):
    FORMAT, SCHEMA, TYPE_NAME = ">f", OPTIONAL_FLOAT32_SCHEMA, "FLOAT"


class DoubleConverter(_FloatingConverter):
    FORMAT, SCHEMA, TYPE_NAME = ">d", OPTIONAL_FLOAT64_SCHEMA, "DOUBLE"


class BooleanConverter(NumberConverter):
    FORMAT, SCHEMA, TYPE_NAME = ">B", OPTIONAL_BOOLEAN_SCHEMA, "BOOLEAN"

    def _check(self, value: Any) -> Any:
        if isinstance(value, bool):
            return int(value)
        raise DataError(f"Failed to serialize to {self.TYPE_NAME} (was {type(value).__name__})")

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        if value is None:
            return SchemaAndValue(self.SCHEMA, None)
        if len(value) != 1:
            raise DataError(f"Failed to deserialize BOOLEAN: Size of data received is not 1 (was {len(value)})")
        if value[0] not in (0, 1):
            raise DataError("Failed to deserialize BOOLEAN: Unexpected byte received by BooleanDeserializer")
        return SchemaAndValue(self.SCHEMA, value[0] == 1)
