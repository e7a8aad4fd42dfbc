"""Kafka Connect's own Java class names for the plug-ins kconnect ships an equivalent of.

Connector configs written for Kafka Connect name plug-ins by Java class (`connector.class`,
`value.converter`, `transforms.x.type`); this one table maps each to the entry point name of the
kconnect plug-in that does the same job, so those configs run unchanged.
"""

from __future__ import annotations

_TRANSFORMS = "org.apache.kafka.connect.transforms."
_PREDICATES = "org.apache.kafka.connect.transforms.predicates."

# The SMTs that come as a $Key and a $Value class in Kafka; entry points are `<Name>Key`/`<Name>Value`.
_KEY_VALUE_TRANSFORMS = (
    "Cast",
    "ExtractField",
    "Flatten",
    "HeaderFrom",
    "HoistField",
    "InsertField",
    "MaskField",
    "ReplaceField",
    "SetSchemaMetadata",
    "TimestampConverter",
)
_PLAIN_TRANSFORMS = ("DropHeaders", "Filter", "InsertHeader", "RegexRouter", "TimestampRouter", "ValueToKey")
_PREDICATE_NAMES = ("HasHeaderKey", "RecordIsTombstone", "TopicNameMatches")
_NUMBER_CONVERTERS = ("Integer", "Long", "Short", "Float", "Double", "Boolean")


def _build() -> dict[str, str]:
    table = {
        "org.apache.kafka.connect.file.FileStreamSourceConnector": "FileStreamSourceConnector",
        "org.apache.kafka.connect.file.FileStreamSinkConnector": "FileStreamSinkConnector",
        "io.confluent.kafka.connect.datagen.DatagenConnector": "DatagenConnector",
        "io.confluent.connect.jdbc.JdbcSourceConnector": "SqlSourceConnector",
        "io.confluent.connect.jdbc.JdbcSinkConnector": "SqlSinkConnector",
        "org.apache.kafka.connect.mirror.MirrorSourceConnector": "MirrorSourceConnector",
        "org.apache.kafka.connect.mirror.MirrorCheckpointConnector": "MirrorCheckpointConnector",
        "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector": "MirrorHeartbeatConnector",
        "io.debezium.connector.postgresql.PostgresConnector": "PostgresConnector",
        "org.apache.kafka.connect.json.JsonConverter": "JsonConverter",
        "org.apache.kafka.connect.storage.StringConverter": "StringConverter",
        "org.apache.kafka.connect.converters.ByteArrayConverter": "ByteArrayConverter",
        "org.apache.kafka.connect.storage.SimpleHeaderConverter": "SimpleHeaderConverter",
        "io.confluent.connect.avro.AvroConverter": "AvroConverter",
        "io.confluent.connect.json.JsonSchemaConverter": "JsonSchemaConverter",
        "io.confluent.connect.protobuf.ProtobufConverter": "ProtobufConverter",
    }
    for number in _NUMBER_CONVERTERS:
        table[f"org.apache.kafka.connect.converters.{number}Converter"] = f"{number}Converter"
    for name in _KEY_VALUE_TRANSFORMS:
        table[f"{_TRANSFORMS}{name}$Key"] = f"{name}Key"
        table[f"{_TRANSFORMS}{name}$Value"] = f"{name}Value"
    for name in _PLAIN_TRANSFORMS:
        table[f"{_TRANSFORMS}{name}"] = name
    for name in _PREDICATE_NAMES:
        table[f"{_PREDICATES}{name}"] = name
    return table


JAVA_CLASS_NAMES: dict[str, str] = _build()
"""Java class name -> kconnect entry point name."""


def java_short_names() -> dict[str, str]:
    """`InsertField$Value` (a Java name without its package) -> entry point name, for the names users shorten."""
    return {java.rsplit(".", 1)[1]: ep for java, ep in JAVA_CLASS_NAMES.items() if "$" in java}
