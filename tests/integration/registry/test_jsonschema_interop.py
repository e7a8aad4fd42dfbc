"""JsonSchemaConverter and confluent-kafka's own JSONSerializer / JSONDeserializer read each other's bytes
through a real Schema Registry (Apicurio Registry's Confluent-compatible API)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from connect.api.data import INT32_SCHEMA, INT64_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Schema, Struct
from connect.converters.schema_registry.jsonschema import JsonSchemaConverter

pytestmark = pytest.mark.integration

PERSON = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Person",
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "email": {"type": ["string", "null"]},
        "scores": {"type": "array", "items": {"type": "number"}},
    },
    "required": ["name", "age"],
}


Make = Callable[..., Any]


def test_values_written_by_confluents_json_serializer_read_back(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    topic = f"json-{uuid.uuid4().hex[:10]}"
    serializer = JSONSerializer(json.dumps(PERSON), registry_client)
    context = SerializationContext(topic, MessageField.VALUE)
    people = [
        {"name": f"p{n}", "age": 20 + n, "email": None if n % 2 else f"p{n}@x", "scores": [n, 1.5]} for n in range(5)
    ]
    written = [serializer(person, context) for person in people]

    batch = registry_converter(JsonSchemaConverter).to_connect_data_batch(topic, written)
    assert batch is not None and batch.schema is not None
    assert (batch.schema.name, batch.schema.version) == ("Person", 1)
    assert [dict(v.items()) for v in batch.values] == [{**p, "scores": [float(s) for s in p["scores"]]} for p in people]


def test_values_written_by_the_converter_read_back_with_confluents_json_deserializer(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    topic = f"json-{uuid.uuid4().hex[:10]}"
    schema = Schema.struct(
        [
            ("id", INT64_SCHEMA),
            ("name", STRING_SCHEMA),
            ("note", OPTIONAL_STRING_SCHEMA),
            ("qty", INT32_SCHEMA),
            ("price", Schema.decimal(2)),
        ],
        name="shop.Item",
    )
    # NUMERIC: the registered schema says a decimal is a number, and the deserializer validates against it.
    converter = registry_converter(JsonSchemaConverter, **{"decimal.format": "NUMERIC"})
    values = [
        Struct(schema, {"id": n, "name": f"i{n}", "note": None, "qty": n, "price": Decimal("1.25")}) for n in range(4)
    ]
    written = converter.from_connect_data_batch(topic, schema, values)

    deserializer = JSONDeserializer(None, schema_registry_client=registry_client)
    context = SerializationContext(topic, MessageField.VALUE)
    assert [deserializer(data, context) for data in written] == [
        {"id": n, "name": f"i{n}", "note": None, "qty": n, "price": 1.25} for n in range(4)
    ]
