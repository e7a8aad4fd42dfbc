"""AvroConverter and JsonSchemaConverter against Apicurio Registry's own Java Kafka serdes, both ways, on a
real broker and a real Apicurio Registry: records Apicurio's serializers write read back identically
through the converters, and records the converters write read back identically through Apicurio's
deserializers.

Apicurio's serdes run in their Confluent-compatible configuration (tests/fixtures/schema_registry/serdes/
ApicurioSerdes.java: the id after a zero magic byte, 4 bytes, the content id, no record headers, Avro
schemas registered whole), talking to the registry's own API while the converters use its
Confluent-compatible one: the ids agree because that API's schema ids are Apicurio's content ids. The
Java program runs once for the module: it writes its topics and reads the converters' topics in one go.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import fastavro
import httpx
import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from confluent_kafka.schema_registry import Schema as RegistrySchema
from confluent_kafka.schema_registry import SchemaRegistryClient

from connect.api.data import (
    DATE_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
    Struct,
)
from connect.converters.schema_registry.avro import AvroConverter
from connect.converters.schema_registry.jsonschema import JsonSchemaConverter
from tests.fixtures.kafka import new_topic
from tests.fixtures.schema_registry.serdes.program import run_serdes
from tests.fixtures.schema_registry.server import LocalRegistry
from tests.support.topic_reads import messages_to_end

pytestmark = pytest.mark.integration

# What Apicurio's AvroKafkaSerializer writes: optional fields, logical types, an enum, a nested record,
# an array and a map.
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
        {
            "name": "payer",
            "type": [
                "null",
                {
                    "type": "record",
                    "name": "Payer",
                    "fields": [{"name": "name", "type": "string"}, {"name": "iban", "type": ["null", "string"]}],
                },
            ],
            "default": None,
        },
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "limits", "type": {"type": "map", "values": "int"}},
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
        "payer": None if n % 2 else {"name": f"payer {n}", "iban": None if n % 4 else f"NO{n}"},
        "tags": [f"t{n}", "x"][: n % 3],
        "limits": {"day": n, "week": 7 * n},
    }


# What the converters write. The enum is a Connect string with the parameters Confluent's AvroData gives one.
ENUM = "io.confluent.connect.avro.Enum"
STATUS = Schema(
    SchemaType.STRING,
    name="shop.Status",
    parameters={ENUM: "shop.Status", f"{ENUM}.NEW": "NEW", f"{ENUM}.SHIPPED": "SHIPPED"},
)
ADDRESS = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], name="shop.Address", optional=True)
ORDER = Schema.struct(
    [
        ("id", INT64_SCHEMA),
        ("total", Schema.decimal(2)),
        ("day", DATE_SCHEMA),
        ("at", TIMESTAMP_SCHEMA),
        ("status", STATUS),
        ("note", OPTIONAL_STRING_SCHEMA),
        ("address", ADDRESS),
        ("lines", Schema.array(INT32_SCHEMA)),
        ("stock", Schema.map(STRING_SCHEMA, INT64_SCHEMA)),
    ],
    name="shop.Order",
)


def order(n: int) -> dict[str, Any]:
    return {
        "id": n,
        "total": Decimal("10.50") * n,
        "day": dt.date(2024, 5, 1) + dt.timedelta(days=n),
        "at": dt.datetime(2024, 5, 1, 8, 30, tzinfo=dt.UTC) + dt.timedelta(seconds=n),
        "status": "SHIPPED" if n % 2 else "NEW",
        "note": None if n % 2 else f"note {n}",
        "address": None if n % 3 == 0 else {"city": "Oslo", "zip": None if n % 2 else "0150"},
        "lines": list(range(n)),
        "stock": {"a": n, "b": -n},
    }


def order_struct(n: int) -> Struct:
    values = order(n)
    address = values["address"]
    return Struct(ORDER, {**values, "address": None if address is None else Struct(ADDRESS, address)})


PERSON_JSON = {
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


def person(n: int) -> dict[str, Any]:
    return {"name": f"p{n}", "age": 20 + n, "email": None if n % 2 else f"p{n}@x", "scores": [n + 0.5, 1.5]}


ITEM = Schema.struct(
    [("id", INT64_SCHEMA), ("name", STRING_SCHEMA), ("note", OPTIONAL_STRING_SCHEMA), ("price", Schema.decimal(2))],
    name="shop.Item",
)


def item(n: int) -> dict[str, Any]:
    return {"id": n, "name": f"i{n}", "note": None if n % 2 else f"note {n}", "price": Decimal("1.25") * n}


COUNT = 6


@dataclass(frozen=True)
class Exchange:
    """The four topics, and what Apicurio's deserializers read from the converters' two."""

    avro_by_apicurio: str
    avro_with_references: str  # Apicurio's default: nested types under subjects of their own
    json_by_apicurio: str
    avro_by_converter: str
    json_by_converter: str
    read_by_apicurio: dict[str, list[dict[str, Any]]]


@pytest.fixture(scope="module")
def exchange(
    schema_registry: LocalRegistry,
    kafka_bootstrap: str,
    kafka_admin: AdminClient,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Exchange]:
    """The converters write their topics, then one run of the Java program writes its own and reads theirs."""
    kinds = ("avro-seed", "avro-in", "avro-refs", "json-in", "avro-out", "json-out")
    topics = [new_topic(kafka_admin, prefix=f"apicurio-{kind}") for kind in kinds]
    avro_seed, avro_in, avro_refs, json_in, avro_out, json_out = topics
    write_with_converters(schema_registry, kafka_bootstrap, avro_out, json_out)
    # Apicurio's JSON Schema serializer cannot derive a schema from a value: it uses the subject's latest.
    # Registered under another subject first, so that under this one it is known content in a new version.
    with SchemaRegistryClient({"url": schema_registry.url}) as client:
        for subject in (f"{avro_seed}-json", f"{json_in}-value"):
            client.register_schema(subject, RegistrySchema(json.dumps(PERSON_JSON), "JSON"))
    parsed = fastavro.parse_schema(PAYMENT_AVRO)
    avro_job = {"format": "avro", "schema": json.dumps(PAYMENT_AVRO)}
    avro_values = [avro_json(parsed, payment(n)) for n in range(COUNT)]
    spec = {
        "bootstrap": kafka_bootstrap,
        "registry": schema_registry.core_api_url,
        # The Avro records twice, to the seed topic first: under the topic tested, Apicurio's serializer then
        # registers known content, whose content id is not the new version's global id.
        "produce": [
            {**avro_job, "topic": avro_seed, "values": avro_values},
            {**avro_job, "topic": avro_in, "values": avro_values},
            {**avro_job, "topic": avro_refs, "values": avro_values, "dereference": False},
            {"format": "json", "topic": json_in, "values": [person(n) for n in range(COUNT)]},
        ],
        "consume": [
            {"format": "avro", "topic": avro_out, "count": COUNT},
            {"format": "json", "topic": json_out, "count": COUNT},
        ],
    }
    lines = run_serdes(spec, tmp_path_factory.mktemp("apicurio-serdes"))
    read = {topic: [line for line in lines if line["topic"] == topic] for topic in (avro_out, json_out)}
    yield Exchange(avro_in, avro_refs, json_in, avro_out, json_out, read)
    kafka_admin.delete_topics(topics)


def write_with_converters(registry: LocalRegistry, bootstrap: str, avro_topic: str, json_topic: str) -> None:
    # enhanced.avro.schema.support: the enum parameters become an Avro enum, as in Confluent's AvroData.
    avro = converter(AvroConverter, registry, **{"enhanced.avro.schema.support": "true"})
    # NUMERIC: the registered schema says a decimal is a number, and Apicurio's deserializer validates against it.
    jsonschema = converter(JsonSchemaConverter, registry, **{"decimal.format": "NUMERIC"})
    try:
        orders = [order_struct(n) for n in range(COUNT)]
        produce(bootstrap, avro_topic, avro.from_connect_data_batch(avro_topic, ORDER, orders))
        items = [Struct(ITEM, item(n)) for n in range(COUNT)]
        produce(bootstrap, json_topic, jsonschema.from_connect_data_batch(json_topic, ITEM, items))
    finally:
        avro.close()
        jsonschema.close()


def converter(cls: type, registry: LocalRegistry, **configs: str) -> Any:
    made = cls()
    made.configure({"schema.registry.url": registry.url, **configs}, False)
    return made


def produce(bootstrap: str, topic: str, values: list[bytes | None]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    for value in values:
        producer.produce(topic, value)
    assert producer.flush(10) == 0


def avro_json(parsed: Any, value: dict[str, Any]) -> str:
    """`value` in Avro's JSON encoding, what the Java program decodes into a GenericRecord."""
    out = io.StringIO()
    fastavro.json_writer(out, parsed, [value])
    return out.getvalue().strip()


def plain(value: Any) -> Any:
    """A Connect value with its Structs as dicts, to compare with what was written."""
    if isinstance(value, Struct):
        return {name: plain(field) for name, field in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def topic_values(bootstrap: str, topic: str) -> list[bytes]:
    return [message.value() for message in messages_to_end({"bootstrap.servers": bootstrap}, topic)]


def registered_id(registry: LocalRegistry, subject: str) -> int:
    """The id of the subject's latest schema in the registry's Confluent-compatible API."""
    with SchemaRegistryClient({"url": registry.url}) as client:
        return int(client.get_latest_version(subject).schema_id)


def content_and_global_id(registry: LocalRegistry, subject: str) -> tuple[int, int]:
    """The content id and global id of the subject's first version in Apicurio's own API."""
    response = httpx.get(f"{registry.core_api_url}/groups/default/artifacts/{subject}/versions/1")
    assert response.status_code == 200, response.text
    return response.json()["contentId"], response.json()["globalId"]


def assert_confluent_framing(written: list[bytes], registry: LocalRegistry, subject: str) -> None:
    """Every value starts with the zero magic byte and the id the Confluent-compatible API gives the subject's
    schema: Apicurio's content id, which the setup made different from the version's global id."""
    schema_id = registered_id(registry, subject)
    content_id, global_id = content_and_global_id(registry, subject)
    assert schema_id == content_id != global_id
    assert {data[:5] for data in written} == {b"\x00" + schema_id.to_bytes(4, "big")}


def test_avro_written_by_apicurios_serializer_reads_back_identically(
    exchange: Exchange, schema_registry: LocalRegistry, kafka_bootstrap: str
) -> None:
    written = topic_values(kafka_bootstrap, exchange.avro_by_apicurio)
    assert len(written) == COUNT
    assert_confluent_framing(written, schema_registry, f"{exchange.avro_by_apicurio}-value")

    avro = converter(AvroConverter, schema_registry)
    try:
        batch = avro.to_connect_data_batch(exchange.avro_by_apicurio, written)
        one = avro.to_connect_data(exchange.avro_by_apicurio, written[1])
    finally:
        avro.close()
    assert batch is not None and batch.schema is not None
    assert (batch.schema.name, batch.schema.version) == ("bank.Payment", 1)
    kind = batch.schema.field("kind")
    assert kind is not None and kind.schema.parameters is not None
    assert kind.schema.parameters[ENUM] == "bank.Kind"  # read back as the Avro enum it was written as
    assert [plain(value) for value in batch.values] == [payment(n) for n in range(COUNT)]
    assert one.schema == batch.schema and plain(one.value) == payment(1)


def test_avro_whose_schema_refers_to_nested_types_registered_apart_reads_back_identically(
    exchange: Exchange, schema_registry: LocalRegistry, kafka_bootstrap: str
) -> None:
    topic = exchange.avro_with_references
    with SchemaRegistryClient({"url": schema_registry.url}) as client:
        registered = client.get_latest_version(f"{topic}-value").schema
    assert registered.references, "Apicurio's default registers the nested record and enum apart"
    written = topic_values(kafka_bootstrap, topic)

    avro = converter(AvroConverter, schema_registry)
    try:
        batch = avro.to_connect_data_batch(topic, written)
    finally:
        avro.close()
    assert batch is not None and batch.schema is not None and batch.schema.name == "bank.Payment"
    assert [plain(value) for value in batch.values] == [payment(n) for n in range(COUNT)]


def test_avro_written_by_the_converter_reads_back_with_apicurios_deserializer(
    exchange: Exchange, schema_registry: LocalRegistry
) -> None:
    read = exchange.read_by_apicurio[exchange.avro_by_converter]
    schema_id = registered_id(schema_registry, f"{exchange.avro_by_converter}-value")
    assert [(line["offset"], line["id"]) for line in read] == [(n, schema_id) for n in range(COUNT)]
    values: list[Any] = []
    for line in read:
        # The writer schema Apicurio's deserializer fetched by that id, and the datum it decoded with it.
        writer = fastavro.parse_schema(json.loads(line["schema"]))
        values.extend(fastavro.json_reader(io.StringIO(line["value"]), writer))
    assert values == [order(n) for n in range(COUNT)]
    assert json.loads(read[0]["schema"])["fields"][4]["type"]["type"] == "enum"


def test_json_written_by_apicurios_serializer_reads_back_identically(
    exchange: Exchange, schema_registry: LocalRegistry, kafka_bootstrap: str
) -> None:
    written = topic_values(kafka_bootstrap, exchange.json_by_apicurio)
    assert len(written) == COUNT
    assert_confluent_framing(written, schema_registry, f"{exchange.json_by_apicurio}-value")

    jsonschema = converter(JsonSchemaConverter, schema_registry)
    try:
        batch = jsonschema.to_connect_data_batch(exchange.json_by_apicurio, written)
    finally:
        jsonschema.close()
    assert batch is not None and batch.schema is not None
    assert (batch.schema.name, batch.schema.version) == ("Person", 1)
    assert [plain(value) for value in batch.values] == [person(n) for n in range(COUNT)]


def test_json_written_by_the_converter_reads_back_with_apicurios_deserializer(
    exchange: Exchange, schema_registry: LocalRegistry
) -> None:
    read = exchange.read_by_apicurio[exchange.json_by_converter]
    schema_id = registered_id(schema_registry, f"{exchange.json_by_converter}-value")
    assert [(line["offset"], line["id"]) for line in read] == [(n, schema_id) for n in range(COUNT)]
    expected = [{**item(n), "price": float(item(n)["price"])} for n in range(COUNT)]
    assert [line["value"] for line in read] == expected
