"""The names, parameters and options of Confluent's ProtobufData (`io.confluent.connect.protobuf.ProtobufData`,
`ProtobufDataConfig`): what it writes into Connect schemas read from Protobuf and reads back from them when
writing. Pure, any thread."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote_plus

NAMESPACE = "io.confluent.connect.protobuf"
ENUM_PARAM = NAMESPACE + ".Enum"
UNION_PREFIX = NAMESPACE + ".Union."
TAG_PARAM = NAMESPACE + ".Tag"
TYPE_PARAM = NAMESPACE + ".Type"
WRAPPER_PARAM = NAMESPACE + ".Wrapper"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
MAP_ENTRY_SUFFIX = "Entry"
CONNECT_TYPE = "connect.type"
CONNECT_PRECISION = "connect.decimal.precision"
PRECISION = "precision"
SCALE = "scale"

DECIMAL_TYPE = "confluent.type.Decimal"
DATE_TYPE = "google.type.Date"
TIME_TYPE = "google.type.TimeOfDay"
TIMESTAMP_TYPE = "google.protobuf.Timestamp"
FILE_OF_TYPE = {
    DECIMAL_TYPE: "confluent/type/decimal.proto",
    DATE_TYPE: "google/type/date.proto",
    TIME_TYPE: "google/type/timeofday.proto",
    TIMESTAMP_TYPE: "google/protobuf/timestamp.proto",
}
META_FILE = "confluent/meta.proto"
WRAPPERS_FILE = "google/protobuf/wrappers.proto"
WRAPPER_TYPES = {
    "google.protobuf.DoubleValue": "float64",
    "google.protobuf.FloatValue": "float32",
    "google.protobuf.Int64Value": "int64",
    "google.protobuf.UInt64Value": "int64",
    "google.protobuf.Int32Value": "int32",
    "google.protobuf.UInt32Value": "int64",
    "google.protobuf.BoolValue": "boolean",
    "google.protobuf.StringValue": "string",
    "google.protobuf.BytesValue": "bytes",
}
"""Wrapper message -> the Connect type it unwraps to."""

_VALID_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_INVALID_CHAR = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True)
class ProtobufDataOptions:
    """ProtobufDataConfig's switches, with Confluent's defaults."""

    enhanced_schema_support: bool = False
    scrub_invalid_names: bool = False
    int_for_enums: bool = False
    optional_for_nullables: bool = False
    optional_for_proto2: bool = True
    wrapper_for_nullables: bool = False
    wrapper_for_raw_primitives: bool = True
    generate_struct_for_nulls: bool = False
    generate_index_for_unions: bool = True
    flatten_unions: bool = False


def scrub(name: str) -> str:
    """A Protobuf identifier for any name, as ProtobufData's `doScrubName`: URL-encoded, an `x` before a
    leading digit or underscore, every other invalid character an underscore."""
    if not name or _VALID_NAME.fullmatch(name):
        return name
    encoded = quote_plus(name, safe="*").replace("~", "%7E")
    if encoded[0].isdigit() or encoded[0] == "_":
        encoded = "x" + encoded
    return _INVALID_CHAR.sub("_", encoded)


def lower_underscore_to_upper_camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:].lower() for part in name.split("_"))


def upper_camel_to_lower_underscore(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def map_entry_name(name: str) -> str:
    """ProtobufSchema.toMapEntry: the entry message of a map field."""
    return (lower_underscore_to_upper_camel(name) if "_" in name else name) + MAP_ENTRY_SUFFIX


def map_schema_name(entry_name: str) -> str:
    """ProtobufSchema.toMapField: the Connect name of a map read from an entry message."""
    parts = entry_name.split(".")
    if parts[-1].endswith(MAP_ENTRY_SUFFIX):
        parts[-1] = upper_camel_to_lower_underscore(parts[-1][: -len(MAP_ENTRY_SUFFIX)])
    return ".".join(parts)
