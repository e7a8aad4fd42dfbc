"""AvroConverter and confluent-kafka's own AvroSerializer / AvroDeserializer (the reference Python
implementation of Confluent's wire format) read each other's bytes, through a real Schema Registry
(Apicurio Registry's Confluent-compatible API); and what the registry refuses reaches the caller."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest
from confluent_kafka.schema_registry import Schema as RegistrySchema
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from connect.api.data import (
    DATE_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    Struct,
)
from connect.api.errors import DataError
from connect.converters.schema_registry.avro import AvroConverter
from tests.fixtures.schema_registry.server import LocalRegistry

pytestmark = pytest.mark.integration

PAYMENT_AVRO = {
    "type": "record",
    "name": "Payment",
    "namespace": "bank",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["CARD", "CASH"]}},
        {"name": "memo", "type": ["null", "string"], "default": None},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "limits", "type": {"type": "map", "values": "int"}},
        {"name": "ref", "type": ["int", "string"]},
    ],
}


def payment(n: int) -> dict[str, Any]:
    return {
        "id": n,
        "amount": Decimal("1234.56") + n,
        "day": dt.date(2024, 1, 1) + dt.timedelta(days=n),
        "at": dt.datetime(2024, 1, 1, 12, 0, tzinfo=dt.UTC) + dt.timedelta(milliseconds=n),
        "kind": "CARD" if n % 2 else "CASH",
        "memo": None if n % 3 else f"memo {n}",
        "tags": [f"t{n}"],
        "limits": {"day": n},
        "ref": n if n % 2 else f"r{n}",
    }


Make = Callable[..., Any]


def unique_topic() -> str:
    return f"avro-{uuid.uuid4().hex[:10]}"


def test_values_written_by_confluents_avro_serializer_read_back_identically(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    topic = unique_topic()
    serializer = AvroSerializer(registry_client, json.dumps(PAYMENT_AVRO))
    context = SerializationContext(topic, MessageField.VALUE)
    written = [serializer(payment(n), context) for n in range(20)]

    converter = registry_converter(AvroConverter)
    batch = converter.to_connect_data_batch(topic, written)
    assert batch is not None and batch.schema is not None
    assert batch.schema.name == "bank.Payment"
    assert batch.schema.version == 1  # the registry's version of the schema under the topic's subject
    for n, value in enumerate(batch.values):
        expected = payment(n)
        ref = value.get("ref")
        assert dict(value.items()) == {**expected, "ref": ref}
        assert ref.get("int" if n % 2 else "string") == expected["ref"]
    one = converter.to_connect_data(topic, written[3])
    assert one.schema == batch.schema and one.value == batch.values[3]


def test_values_written_by_the_converter_read_back_with_confluents_avro_deserializer(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    topic = unique_topic()
    address = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], name="shop.Address")
    order = Schema.struct(
        [
            ("id", INT64_SCHEMA),
            ("total", Schema.decimal(2)),
            ("day", DATE_SCHEMA),
            ("at", TIMESTAMP_SCHEMA),
            ("address", address),
            ("lines", Schema.array(INT32_SCHEMA)),
        ],
        name="shop.Order",
    )
    converter = registry_converter(AvroConverter)
    values = [
        Struct(
            order,
            {
                "id": n,
                "total": Decimal("10.50") * n,
                "day": dt.date(2024, 5, 1),
                "at": dt.datetime(2024, 5, 1, 8, 30, tzinfo=dt.UTC),
                "address": Struct(address, {"city": "Oslo", "zip": None if n % 2 else "0150"}),
                "lines": list(range(n)),
            },
        )
        for n in range(1, 6)
    ]
    written = converter.from_connect_data_batch(topic, order, values)

    deserializer = AvroDeserializer(registry_client)
    context = SerializationContext(topic, MessageField.VALUE)
    read = [deserializer(data, context) for data in written]
    assert read == [
        {
            "id": n,
            "total": Decimal("10.50") * n,
            "day": dt.date(2024, 5, 1),
            "at": dt.datetime(2024, 5, 1, 8, 30, tzinfo=dt.UTC),
            "address": {"city": "Oslo", "zip": None if n % 2 else "0150"},
            "lines": list(range(n)),
        }
        for n in range(1, 6)
    ]
    # The schema the converter registered carries Connect's metadata, as Confluent's AvroConverter writes it.
    registered = json.loads(registry_client.get_latest_version(f"{topic}-value").schema.schema_str)
    total = registered["fields"][1]["type"]
    assert (total["logicalType"], total["connect.name"]) == ("decimal", "org.apache.kafka.connect.data.Decimal")


def test_an_incompatible_schema_change_is_refused_with_the_registrys_message(
    schema_registry: LocalRegistry, registry_converter: Make
) -> None:
    topic = unique_topic()
    response = httpx.put(f"{schema_registry.url}/config/{topic}-value", json={"compatibility": "BACKWARD"})
    assert response.status_code == 200, response.text
    converter = registry_converter(AvroConverter)
    v1 = Schema.struct([("id", INT64_SCHEMA)], name="shop.Item")
    converter.from_connect_data(topic, v1, Struct(v1, {"id": 1}))
    # A new required field without a default: readers of v2 cannot read v1 data.
    v2 = Schema.struct([("id", INT64_SCHEMA), ("sku", STRING_SCHEMA)], name="shop.Item")
    with pytest.raises(DataError, match=rf"Failed to serialize Avro data from topic {topic}.*HTTP 409") as refused:
        converter.from_connect_data(topic, v2, Struct(v2, {"id": 2, "sku": "x"}))
    assert f"{topic}-value" in str(refused.value)
    # An optional field is a compatible change and is registered as the next version.
    v3 = Schema.struct([("id", INT64_SCHEMA), ("sku", OPTIONAL_STRING_SCHEMA)], name="shop.Item")
    data = converter.from_connect_data(topic, v3, Struct(v3, {"id": 3, "sku": None}))
    assert converter.to_connect_data(topic, data).schema.version == 2


def test_an_id_the_registry_does_not_know_is_a_data_error(registry_converter: Make) -> None:
    converter = registry_converter(AvroConverter)
    with pytest.raises(DataError, match="schema for id 987654"):
        converter.to_connect_data(unique_topic(), b"\x00" + (987654).to_bytes(4, "big") + b"\x02")


def test_without_auto_register_the_subjects_registered_schema_is_used(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    topic = unique_topic()
    schema = Schema.struct([("id", INT64_SCHEMA)], name="shop.Pinned")
    schema_str = json.dumps(
        {
            "type": "record",
            "name": "Pinned",
            "namespace": "shop",
            "fields": [{"name": "id", "type": "long"}],
            "connect.name": "shop.Pinned",
        }
    )
    registered = registry_client.register_schema(f"{topic}-value", RegistrySchema(schema_str, "AVRO"))
    # Apicurio compares schema texts as they are unless asked to normalize (Confluent's registry parses them).
    converter = registry_converter(AvroConverter, **{"auto.register.schemas": "false", "normalize.schemas": "true"})
    data = converter.from_connect_data(topic, schema, Struct(schema, {"id": 5}))
    assert data is not None and int.from_bytes(data[1:5], "big") == registered
    unregistered = Schema.struct([("id", INT64_SCHEMA), ("x", OPTIONAL_STRING_SCHEMA)], name="shop.Pinned")
    with pytest.raises(DataError, match="404"):
        converter.from_connect_data(topic, unregistered, Struct(unregistered, {"id": 1}))
