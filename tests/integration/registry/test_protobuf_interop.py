"""ProtobufConverter through a real Schema Registry (Apicurio Registry's Confluent-compatible API, which keeps a
Protobuf schema as the descriptor the client sent): confluent-kafka's own ProtobufSerializer /
ProtobufDeserializer read each other's bytes with it, an unknown id is a clear error, and in a worker (by
Confluent's class name) datagen -> Protobuf -> Kafka -> file sink keeps every record while bad values go to
the dead letter queue and a source whose registry is down fails with the reason."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from connect.api.data import INT64_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, TIMESTAMP_SCHEMA, Schema, Struct
from connect.api.errors import DataError
from connect.converters.schema_registry import protobuf_descriptors
from connect.converters.schema_registry.protobuf import ProtobufConverter
from tests.fixtures.schema_registry.server import LocalRegistry
from tests.fixtures.tcp_ports import free_port
from tests.support.protobuf_messages import person, person_classes
from tests.support.standalone_workers import (
    create_connector,
    failed_trace,
    line_count,
    running_worker,
    status_of,
    worker_props,
)
from tests.support.topic_reads import read_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

PROTOBUF = "io.confluent.connect.protobuf.ProtobufConverter"
RECORDS = 500

Make = Callable[..., Any]


def test_values_written_by_confluents_protobuf_serializer_read_back(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    _, person_class = person_classes()
    topic = f"pb-{uuid.uuid4().hex[:10]}"
    serializer = ProtobufSerializer(person_class, registry_client)
    context = SerializationContext(topic, MessageField.VALUE)
    written = [serializer(person(n, person_class), context) for n in range(4)]

    batch = registry_converter(ProtobufConverter).to_connect_data_batch(topic, written)
    assert batch is not None and batch.schema is not None
    assert (batch.schema.name, batch.schema.version) == ("Person", 1)
    odd = batch.values[1]
    assert dict(odd.get("contact_0").items()) == {"email": "p1@example.com", "phone": None}
    assert dict(batch.values[0].get("contact_0").items()) == {"email": None, "phone": 5550000}
    assert [v.get("visits") for v in batch.values] == [4_000_000_000 + n for n in range(4)]
    assert (odd.get("kind"), odd.get("delta"), odd.get("scores"), odd.get("tags")) == (
        "KIND_BULK",
        -1,
        {"x": 1},
        ["a", "t1"],
    )
    assert (odd.get("nickname"), batch.values[2].get("nickname")) == (None, "nick2")
    assert odd.get("seen") == dt.datetime(2023, 11, 14, 22, 13, 21, 5000, tzinfo=dt.UTC)
    assert dict(odd.get("home").items()) == {"city": "city1"}


def test_values_written_by_the_converter_read_back_with_confluents_protobuf_deserializer(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    _, person_class = person_classes()
    source, copy = f"pb-{uuid.uuid4().hex[:10]}", f"pb-{uuid.uuid4().hex[:10]}"
    serializer = ProtobufSerializer(person_class, registry_client)
    originals = [person(n, person_class) for n in range(4)]
    written = [serializer(p, SerializationContext(source, MessageField.VALUE)) for p in originals]
    converter = registry_converter(ProtobufConverter)
    batch = converter.to_connect_data_batch(source, written)
    assert batch is not None

    # Written again under the Connect schema read: a file of the converter's own, registered by it.
    ours = converter.from_connect_data_batch(copy, batch.schema, batch.values)
    assert int.from_bytes(ours[0][1:5], "big") != int.from_bytes(written[0][1:5], "big")
    deserializer = ProtobufDeserializer(person_class, None, registry_client)
    context = SerializationContext(copy, MessageField.VALUE)
    assert [deserializer(data, context) for data in ours] == originals


def test_a_struct_written_by_the_converter_reads_back_with_a_class_made_from_the_registered_schema(
    registry_client: SchemaRegistryClient, registry_converter: Make
) -> None:
    topic = f"pb-{uuid.uuid4().hex[:10]}"
    schema = Schema.struct(
        [("id", INT64_SCHEMA), ("name", STRING_SCHEMA), ("note", OPTIONAL_STRING_SCHEMA), ("at", TIMESTAMP_SCHEMA)],
        name="shop.Item",
    )
    at = dt.datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=dt.UTC)
    converter = registry_converter(ProtobufConverter, **{"wrapper.for.nullables": "true"})
    values = [Struct(schema, {"id": n, "name": f"i{n}", "note": None if n else "x", "at": at}) for n in range(3)]
    written = converter.from_connect_data_batch(topic, schema, values)

    registered = registry_client.get_schema(int.from_bytes(written[0][1:5], "big"), fmt="serialized")
    file = protobuf_descriptors.build_file(protobuf_descriptors.file_proto_of(registered.schema_str), {})
    item_class = protobuf_descriptors.message_class(file.pool.FindMessageTypeByName("shop.Item"))
    deserializer = ProtobufDeserializer(item_class, None, registry_client)
    read = [deserializer(data, SerializationContext(topic, MessageField.VALUE)) for data in written]
    assert [(m.id, m.name, m.HasField("note"), m.at.ToMilliseconds()) for m in read] == [
        (n, f"i{n}", n == 0, int(at.timestamp() * 1000)) for n in range(3)
    ]
    assert [dict(v.items()) for v in converter.to_connect_data_batch(topic, written).values] == [
        dict(v.items()) for v in values
    ]


def test_an_unknown_schema_id_is_a_data_error_naming_the_id(registry_converter: Make) -> None:
    with pytest.raises(DataError, match="schema for id 7654321"):
        registry_converter(ProtobufConverter).to_connect_data(
            "t", b"\x00" + (7654321).to_bytes(4, "big") + b"\x00\x08\x01"
        )


def test_datagen_through_protobuf_to_file_keeps_every_record_bad_values_go_to_the_dlq_a_registry_down_fails(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    schema_registry: LocalRegistry,
    registry_converter: Make,
    tmp_path: Path,
) -> None:
    topic, mixed, dlq, unreachable = (topic_factory(partitions=1) for _ in range(4))
    keys = {"value.converter": PROTOBUF, "value.converter.schema.registry.url": schema_registry.url}
    schema = Schema.struct([("id", INT64_SCHEMA), ("name", STRING_SCHEMA)], name="shop.Customer")
    writer = registry_converter(ProtobufConverter)
    good = [writer.from_connect_data(mixed, schema, Struct(schema, {"id": n, "name": f"c{n}"})) for n in range(3)]
    no_magic = b'{"id": 1, "name": "json, not protobuf"}'
    unknown_id = b"\x00" + (7654321).to_bytes(4, "big") + b"\x00\x08\x01"
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for value in (good[0], no_magic, good[1], unknown_id, good[2]):
        producer.produce(mixed, value)
    assert producer.flush(30) == 0

    sink_file, tolerant_file = tmp_path / "orders.txt", tmp_path / "tolerant.txt"
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "connect.offsets")) as (_, client):
        create_connector(
            client,
            "pb-source",
            {
                "connector.class": "io.confluent.kafka.connect.datagen.DatagenConnector",
                "kafka.topic": topic,
                "quickstart": "orders",
                "max.records": str(RECORDS),
                **keys,
            },
        )
        create_connector(
            client, "pb-sink", {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": topic, **keys}
        )
        create_connector(
            client,
            "pb-tolerant",
            {
                "connector.class": "FileStreamSink",
                "file": str(tolerant_file),
                "topics": mixed,
                "errors.tolerance": "all",
                "errors.deadletterqueue.topic.name": dlq,
                "errors.deadletterqueue.topic.replication.factor": "1",
                **keys,
            },
        )
        # A source whose registry is down: retried for errors.retry.timeout, then FAILED with the reason.
        create_connector(
            client,
            "pb-no-registry",
            {
                "connector.class": "DatagenConnector",
                "kafka.topic": unreachable,
                "quickstart": "sequence",
                "errors.retry.timeout": "1500",
                "errors.retry.delay.max.ms": "200",
                "value.converter": PROTOBUF,
                "value.converter.schema.registry.url": f"http://127.0.0.1:{free_port()}/apis/ccompat/v7",
                "value.converter.max.retries": "0",
            },
        )
        wait_until(lambda: line_count(sink_file) >= RECORDS, 60, f"{RECORDS} lines in the sink file", interval=0.5)
        wait_until(lambda: line_count(tolerant_file) >= 3, 60, "the three good records in the tolerant sink's file")
        wait_until(lambda: len(read_topic(kafka_bootstrap, dlq, 1, "read_uncommitted")) >= 2, 60, "two DLQ records")
        status = status_of(client, "pb-sink")
        assert status is not None and [t["state"] for t in status["tasks"]] == ["RUNNING"]
        trace = wait_until(lambda: failed_trace(client, "pb-no-registry"), 60, "the registry-less source to fail")
        assert "could not be reached" in trace and "RegistryUnavailableError" in trace

    raw = read_topic(kafka_bootstrap, topic, 1, "read_uncommitted")
    assert len(raw) == RECORDS
    decoded = registry_converter(ProtobufConverter).to_connect_data_batch(topic, raw)
    assert decoded is not None
    assert sorted(v.get("seq") for v in decoded.values) == list(range(RECORDS))
    assert sink_file.read_text().splitlines() == [str(v) for v in decoded.values]
    assert tolerant_file.read_text().splitlines() == [f"Struct{{id={n},name='c{n}'}}" for n in range(3)]
    assert read_topic(kafka_bootstrap, dlq, 1, "read_uncommitted") == [no_magic, unknown_id]
    assert read_topic(kafka_bootstrap, unreachable, 1, "read_uncommitted") == []
