"""Avro through a Schema Registry: AvroConverter's batch conversion next to confluent-kafka's own
AvroSerializer / AvroDeserializer called once per record (the limit from Python), and next to
JsonConverter with schemas on the same records, in one process; ProtobufConverter next to
confluent-kafka's ProtobufSerializer / ProtobufDeserializer loop on the same records.

The registry is confluent-kafka's in-memory one (`mock://`): a converter asks a registry once per schema,
so a remote registry changes no per-record figure.

The Spark sink's decode of the same Avro values to the Arrow table it buffers, poll by poll: through the
value columns AvroConverter decodes field by field (what a sink that `takes_value_columns` gets), next
to through a Struct per record (what it got before, and what any other sink gets).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.catalog import RAW_CLIENT
from bench.harness import RunContext, metrics, repeat
from bench.results import BenchmarkResult, Reference, SystemResult
from connect.api.data import FLOAT64_SCHEMA, INT32_SCHEMA, INT64_SCHEMA, STRING_SCHEMA, Schema, Struct
from connect.converters.json import JsonConverter
from connect.converters.schema_registry.avro import AvroConverter
from connect.converters.schema_registry.protobuf import ProtobufConverter
from spark_sink.decoding import ValueDecoder

GROUP = "avro"
TOPIC = "bench-avro"
AVRO_BATCH = "kconnect-avro-batch"
AVRO_RECORDS = "kconnect-avro-records"
JSON_BATCH = "kconnect-json-batch"
PROTOBUF_BATCH = "kconnect-protobuf-batch"
PROTOBUF_CLIENT = "confluent-kafka-protobuf"
SPARK_COLUMNS = "kconnect-spark-value-columns"
SPARK_STRUCTS = "kconnect-spark-structs"
POLL_RECORDS = 500
"""Records per converter call in the Spark sink rows: a poll of one partition (`max.poll.records`' default)."""
LABELS = {
    AVRO_BATCH: "AvroConverter, batch",
    AVRO_RECORDS: "AvroConverter, one call per record",
    JSON_BATCH: "JsonConverter (schemas.enable), batch",
    RAW_CLIENT: "confluent-kafka AvroSerializer / AvroDeserializer loop",
    PROTOBUF_BATCH: "ProtobufConverter, batch",
    PROTOBUF_CLIENT: "confluent-kafka ProtobufSerializer / ProtobufDeserializer loop",
    SPARK_COLUMNS: "via value columns (AvroConverter field by field)",
    SPARK_STRUCTS: "via Structs (a Struct per record)",
}
UNITS = {"records_per_s": ("records/s", True)}
METHOD = (
    "One process converts {count} records of a 6-field struct (ints, a double, strings; about 60 bytes of "
    "Avro) per repetition: {what}. Registry: confluent-kafka's in-memory one (one call per schema, not per "
    "record)."
)
ORDER = Schema.struct(
    [
        ("id", INT64_SCHEMA),
        ("customer", STRING_SCHEMA),
        ("item", STRING_SCHEMA),
        ("units", INT32_SCHEMA),
        ("price", FLOAT64_SCHEMA),
        ("region", STRING_SCHEMA),
    ],
    name="bench.Order",
)


def order(n: int) -> Struct:
    return Struct.unchecked(
        ORDER,
        {
            "id": n,
            "customer": f"customer-{n % 997}",
            "item": f"item-{n % 211}",
            "units": n % 17,
            "price": (n % 1000) / 10,
            "region": ("north", "south", "east", "west")[n % 4],
        },
    )


def _timed(body: Callable[[], Any], count: int) -> dict[str, float]:
    began = time.perf_counter()
    body()
    return {"records_per_s": count / (time.perf_counter() - began)}


def _systems(samples: dict[str, dict[str, list[float]]]) -> dict[str, SystemResult]:
    return {key: SystemResult.measured(LABELS[key], metrics(values, UNITS)) for key, values in samples.items()}


def _serde() -> tuple[Any, Any, Any]:
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    client = SchemaRegistryClient.new_client({"url": "mock://bench"})
    avro = {
        "type": "record",
        "name": "Order",
        "namespace": "bench",
        "fields": [
            {
                "name": f.name,
                "type": {"int64": "long", "int32": "int", "float64": "double"}.get(f.schema.type.value, "string"),
            }
            for f in ORDER.fields
        ],
    }
    serializer = AvroSerializer(client, json.dumps(avro))
    deserializer = AvroDeserializer(client)
    return serializer, deserializer, SerializationContext(TOPIC, MessageField.VALUE)


def _protobuf_serde() -> tuple[Any, Any, Any]:
    """confluent-kafka's Protobuf serde for a message class made from the Order struct (what protoc would
    generate from the same .proto)."""
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer

    from connect.converters.schema_registry import protobuf_descriptors
    from connect.converters.schema_registry.protobuf_from_connect import protobuf_file_of
    from connect.converters.schema_registry.protobuf_names import ProtobufDataOptions

    made = protobuf_file_of(ORDER, ProtobufDataOptions())
    file = protobuf_descriptors.build_file(made.proto, {})
    message_class = protobuf_descriptors.message_class(file.pool.FindMessageTypeByName(made.message_name))
    client = SchemaRegistryClient.new_client({"url": "mock://bench-protobuf"})
    return message_class, ProtobufSerializer(message_class, client), ProtobufDeserializer(message_class, None, client)


def _spark_tables(avro: AvroConverter, encoded: Sequence[bytes | None], columns: bool) -> int:
    """The Spark sink's decode of `encoded`, a poll at a time: Avro bytes to the Arrow table of each poll,
    through value columns or through Structs (the sink's `ValueDecoder` both ways). The rows decoded."""
    decoder = ValueDecoder("auto")
    rows = 0
    for start in range(0, len(encoded), POLL_RECORDS):
        poll = encoded[start : start + POLL_RECORDS]
        if columns:
            by_field = avro.to_connect_columns_batch(TOPIC, poll)
            assert by_field is not None
            rows += decoder.decode_columns(by_field.columns, by_field.schema).rows
        else:
            structs = avro.to_connect_data_batch(TOPIC, poll)
            assert structs is not None
            rows += sum(segment.rows for segment in decoder.decode(structs.values, structs.schema, None))
    return rows


def run(ctx: RunContext) -> list[BenchmarkResult]:
    count = ctx.sizes.raw_records["100B"] // 10
    structs = [order(n) for n in range(count)]
    dicts = [dict(s.raw_values()) for s in structs]
    avro = AvroConverter()
    avro.configure({"schema.registry.url": "mock://bench"}, False)
    json_converter = JsonConverter()
    json_converter.configure({}, False)
    serializer, deserializer, context = _serde()
    encoded: Sequence[bytes | None] = avro.from_connect_data_batch(TOPIC, ORDER, structs)
    json_encoded = json_converter.from_connect_data_batch(TOPIC, ORDER, structs)
    framed = [serializer(d, context) for d in dicts]
    protobuf = ProtobufConverter()
    protobuf.configure({"schema.registry.url": "mock://bench"}, False)
    protobuf_encoded: Sequence[bytes | None] = protobuf.from_connect_data_batch(TOPIC, ORDER, structs)
    message_class, protobuf_serializer, protobuf_deserializer = _protobuf_serde()
    messages = [message_class(**d) for d in dicts]
    protobuf_framed = [protobuf_serializer(m, context) for m in messages]

    def measured(body: Callable[[], Any]) -> Callable[[int], dict[str, float]]:
        return lambda _: _timed(body, count)

    def sample(bodies: dict[str, Callable[[], Any]]) -> dict[str, dict[str, list[float]]]:
        return {key: repeat(measured(body), ctx.sizes.warmups, ctx.sizes.repetitions) for key, body in bodies.items()}

    read = sample(
        {
            AVRO_BATCH: lambda: avro.to_connect_data_batch(TOPIC, encoded),
            AVRO_RECORDS: lambda: [avro.to_connect_data(TOPIC, v) for v in encoded],
            RAW_CLIENT: lambda: [deserializer(v, context) for v in framed],
            JSON_BATCH: lambda: json_converter.to_connect_data_batch(TOPIC, json_encoded),
            PROTOBUF_BATCH: lambda: protobuf.to_connect_data_batch(TOPIC, protobuf_encoded),
            PROTOBUF_CLIENT: lambda: [protobuf_deserializer(v, context) for v in protobuf_framed],
        }
    )
    written = sample(
        {
            AVRO_BATCH: lambda: avro.from_connect_data_batch(TOPIC, ORDER, structs),
            AVRO_RECORDS: lambda: [avro.from_connect_data(TOPIC, ORDER, s) for s in structs],
            RAW_CLIENT: lambda: [serializer(d, context) for d in dicts],
            JSON_BATCH: lambda: json_converter.from_connect_data_batch(TOPIC, ORDER, structs),
            PROTOBUF_BATCH: lambda: protobuf.from_connect_data_batch(TOPIC, ORDER, structs),
            PROTOBUF_CLIENT: lambda: [protobuf_serializer(m, context) for m in messages],
        }
    )
    if _spark_tables(avro, encoded, True) != count or _spark_tables(avro, encoded, False) != count:
        raise AssertionError("the Spark sink's decode lost rows")
    spark = sample(
        {
            SPARK_COLUMNS: lambda: _spark_tables(avro, encoded, True),
            SPARK_STRUCTS: lambda: _spark_tables(avro, encoded, False),
        }
    )
    against = [Reference(LABELS[RAW_CLIENT], RAW_CLIENT), Reference(LABELS[PROTOBUF_CLIENT], PROTOBUF_CLIENT)]
    settings = {"records": count, "warmups": ctx.sizes.warmups}
    return [
        ctx.entry(
            "avro-decode",
            GROUP,
            "Avro values to Connect data (the sink side)",
            "decode",
            METHOD.format(count=count, what="bytes to Connect structs; the loop gives dicts"),
            tuple(UNITS),
            _systems(read),
            comparisons=against,
            ratio_metrics=tuple(UNITS),
            settings=settings,
        ),
        ctx.entry(
            "avro-encode",
            GROUP,
            "Connect data to Avro values (the source side)",
            "encode",
            METHOD.format(count=count, what="Connect structs to bytes; the loop takes dicts"),
            tuple(UNITS),
            _systems(written),
            comparisons=against,
            ratio_metrics=tuple(UNITS),
            settings=settings,
        ),
        ctx.entry(
            "avro-spark-arrow",
            GROUP,
            "Spark sink decode, Avro → Arrow table: via value columns vs via Structs",
            "Spark sink decode",
            METHOD.format(
                count=count,
                what=f"Avro bytes to the Spark sink's Arrow table, {POLL_RECORDS} records (a poll) per converter "
                "call, through AvroConverter's value columns or through its Structs",
            ),
            tuple(UNITS),
            _systems(spark),
            comparisons=[Reference(LABELS[SPARK_STRUCTS], SPARK_STRUCTS)],
            ratio_metrics=tuple(UNITS),
            settings={**settings, "records_per_poll": POLL_RECORDS},
        ),
    ]
