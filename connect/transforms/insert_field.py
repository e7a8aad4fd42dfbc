"""InsertField: add the record's topic, partition, offset, timestamp or a static value as fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connect.api.config import ConfigDef, ConfigType, Importance
from connect.api.data import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
)
from connect.api.transform import R
from connect.converters.logical import millis_to_timestamp
from connect.converters.structs import field_value, new_struct
from connect.transforms.base import KeyValueTransformation
from connect.transforms.util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    SchemaCache,
    define_replace_null_with_default,
    optional_of,
    require_map,
    require_sink_record,
    require_struct,
    struct_schema_like,
)

PURPOSE = "field insertion"
_SUFFIX_DOC = (
    " Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default)."
)


def config_def() -> ConfigDef:
    definition = ConfigDef()
    for key, doc in (
        ("topic.field", "Field name for Kafka topic."),
        ("partition.field", "Field name for Kafka partition."),
        ("offset.field", "Field name for Kafka offset - only applicable to sink connectors."),
        ("timestamp.field", "Field name for record timestamp."),
    ):
        definition.define(key, ConfigType.STRING, None, None, Importance.MEDIUM, doc + _SUFFIX_DOC)
    definition.define(
        "static.field",
        ConfigType.STRING,
        None,
        None,
        Importance.MEDIUM,
        "Field name for static data field." + _SUFFIX_DOC,
    )
    definition.define(
        "static.value",
        ConfigType.STRING,
        None,
        None,
        Importance.MEDIUM,
        "Static field value, if field name configured.",
    )
    return define_replace_null_with_default(definition)


@dataclass(frozen=True)
class InsertionSpec:
    name: str
    optional: bool

    @staticmethod
    def parse(spec: str | None) -> InsertionSpec | None:
        if not spec:
            return None
        if spec.endswith("?"):
            return InsertionSpec(spec[:-1], True)
        if spec.endswith("!"):
            return InsertionSpec(spec[:-1], False)
        return InsertionSpec(spec, True)


class InsertField(KeyValueTransformation[R]):
    CONFIG_DEF = config_def

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.parse(configs)
        self.topic_field = InsertionSpec.parse(values["topic.field"])
        self.partition_field = InsertionSpec.parse(values["partition.field"])
        self.offset_field = InsertionSpec.parse(values["offset.field"])
        self.timestamp_field = InsertionSpec.parse(values["timestamp.field"])
        self.static_field = InsertionSpec.parse(values["static.field"])
        self.static_value: str | None = values["static.value"]
        self.replace_null_with_default: bool = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._schemas = SchemaCache()

    def apply(self, record: R) -> R | None:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        if schema is None:
            return self._apply_schemaless(record, require_map(value, PURPOSE))
        return self._apply_with_schema(record, schema, value)

    def _apply_schemaless(self, record: R, value: dict[str, Any]) -> R:
        if self.topic_field:
            value[self.topic_field.name] = record.topic
        if self.partition_field and record.kafka_partition is not None:
            value[self.partition_field.name] = record.kafka_partition
        if self.offset_field:
            value[self.offset_field.name] = require_sink_record(record, PURPOSE).kafka_offset
        if self.timestamp_field and record.timestamp is not None:
            value[self.timestamp_field.name] = record.timestamp
        if self.static_field:
            value[self.static_field.name] = self.static_value
        return self.new_record(record, None, value)

    def _apply_with_schema(self, record: R, schema: Schema, value: Any) -> R:
        struct = require_struct(value, PURPOSE)
        updated_schema: Schema = self._schemas.get_or_build(struct.schema, self._updated_schema)
        values = {f.name: field_value(struct, f, self.replace_null_with_default) for f in struct.schema.fields}
        if self.topic_field:
            values[self.topic_field.name] = record.topic
        if self.partition_field and record.kafka_partition is not None:
            values[self.partition_field.name] = record.kafka_partition
        if self.offset_field:
            values[self.offset_field.name] = require_sink_record(record, PURPOSE).kafka_offset
        if self.timestamp_field and record.timestamp is not None:
            values[self.timestamp_field.name] = millis_to_timestamp(record.timestamp)
        if self.static_field:
            values[self.static_field.name] = self.static_value
        return self.new_record(record, updated_schema, new_struct(updated_schema, values))

    def _updated_schema(self, schema: Schema) -> Schema:
        fields = [(f.name, f.schema) for f in schema.fields]
        for spec, required_schema, optional_schema in (
            (self.topic_field, STRING_SCHEMA, OPTIONAL_STRING_SCHEMA),
            (self.partition_field, INT32_SCHEMA, OPTIONAL_INT32_SCHEMA),
            (self.offset_field, INT64_SCHEMA, OPTIONAL_INT64_SCHEMA),
            (self.timestamp_field, TIMESTAMP_SCHEMA, optional_of(TIMESTAMP_SCHEMA)),
            (self.static_field, STRING_SCHEMA, OPTIONAL_STRING_SCHEMA),
        ):
            if spec is not None:
                fields.append((spec.name, optional_schema if spec.optional else required_schema))
        return struct_schema_like(schema, fields)


class InsertFieldKey(InsertField[R]):
    """Insert fields into the record key."""

    IS_KEY = True


class InsertFieldValue(InsertField[R]):
    """Insert fields into the record value."""

    IS_KEY = False
