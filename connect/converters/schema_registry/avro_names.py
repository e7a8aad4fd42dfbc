"""The names and properties Confluent's AvroData (`io.confluent.connect.avro.AvroData`) writes into Avro
schemas and Connect schemas, so a schema made here reads the same in a Java worker and the other way."""

from __future__ import annotations

from dataclasses import dataclass

NAMESPACE = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
DEFAULT_SCHEMA_FULL_NAME = f"{NAMESPACE}.{DEFAULT_SCHEMA_NAME}"
MAP_ENTRY_TYPE_NAME = "MapEntry"
KEY_FIELD = "key"
VALUE_FIELD = "value"

CONNECT_NAME_PROP = "connect.name"
CONNECT_DOC_PROP = "connect.doc"
CONNECT_VERSION_PROP = "connect.version"
CONNECT_DEFAULT_VALUE_PROP = "connect.default"
CONNECT_PARAMETERS_PROP = "connect.parameters"
CONNECT_INTERNAL_TYPE_NAME = "connect.internal.type"
CONNECT_TYPE_PROP = "connect.type"
AVRO_RECORD_DOC_PROP = f"{NAMESPACE}.record.doc"
AVRO_ENUM_DOC_PREFIX_PROP = f"{NAMESPACE}.enum.doc."
AVRO_FIELD_DOC_PREFIX_PROP = f"{NAMESPACE}.field.doc."
AVRO_FIELD_DEFAULT_FLAG_PROP = f"{NAMESPACE}.field.default"
AVRO_ENUM_DEFAULT_PREFIX_PROP = f"{NAMESPACE}.enum.default."
AVRO_TYPE_UNION = f"{NAMESPACE}.Union"
AVRO_TYPE_ENUM = f"{NAMESPACE}.Enum"
AVRO_PROP_PREFIX = "avro"

LOGICAL_TYPE_PROP = "logicalType"
LOGICAL_DECIMAL = "decimal"
LOGICAL_DATE = "date"
LOGICAL_TIME_MILLIS = "time-millis"
LOGICAL_TIMESTAMP_MILLIS = "timestamp-millis"
DECIMAL_SCALE_PROP = "scale"
DECIMAL_PRECISION_PROP = "precision"
CONNECT_DECIMAL_PRECISION_PROP = "connect.decimal.precision"
CONNECT_DECIMAL_PRECISION_DEFAULT = 64

# The only Avro logical types Connect has a type for; others read as their underlying primitive.
CONNECT_LOGICAL_TYPES = frozenset({LOGICAL_DECIMAL, LOGICAL_DATE, LOGICAL_TIME_MILLIS, LOGICAL_TIMESTAMP_MILLIS})

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})


@dataclass(frozen=True)
class AvroDataOptions:
    """AvroDataConfig's switches: `connect.meta.data` and `enhanced.avro.schema.support`."""

    connect_meta_data: bool = True
    enhanced_schema_support: bool = False


def split_name(full_name: str) -> tuple[str | None, str]:
    """(namespace, simple name) of a dotted name; no namespace when it has no dot."""
    namespace, dot, name = full_name.rpartition(".")
    return (namespace if dot else None), name
