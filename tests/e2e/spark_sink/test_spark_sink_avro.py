"""Avro values through the Spark Parquet sink: confluent-kafka's AvroSerializer writes records of a
hand-written Avro schema through the real registry (Apicurio), a `kconnect standalone` worker reads
them with AvroConverter (which decodes a batch field by field: the sink takes its value columns), and
the published Parquet files, read back with pyarrow, hold every record exactly once with the column
types the Avro schema implies."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from tests.fixtures.schema_registry.server import LocalRegistry
from tests.support.spark_sink_workers import (
    FLUSH_SIZE,
    PARTITIONS,
    Output,
    SequenceProducer,
    SinkWorker,
    all_committed,
    assert_exactly_once,
    sink_file,
    wait_for,
    worker_file,
)

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

ORDER_AVRO = {
    "type": "record",
    "name": "Order",
    "namespace": "shop",
    "fields": [
        {"name": "seq", "type": "long"},
        {"name": "qty", "type": "int"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "name", "type": "string"},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {
            "name": "address",
            "type": {"type": "record", "name": "Address", "fields": [{"name": "city", "type": "string"}]},
        },
    ],
}
PARQUET_TYPES = {
    "seq": pa.int64(),
    "qty": pa.int32(),
    "amount": pa.decimal128(10, 2),
    "at": pa.timestamp("us", "UTC"),
    "day": pa.date32(),
    "name": pa.string(),
    "note": pa.string(),
    "tags": pa.list_(pa.field("element", pa.string())),
    "address": pa.struct([("city", pa.string())]),
}
BASE = dt.datetime(2024, 2, 29, 12, tzinfo=dt.UTC)


def order(seq: int) -> dict[str, Any]:
    return {
        "seq": seq,
        "qty": seq % 7,
        "amount": Decimal(seq) / 4,
        "at": BASE + dt.timedelta(seconds=seq, milliseconds=seq % 1000),
        "day": BASE.date() + dt.timedelta(days=seq % 3),
        "name": f"n{seq % 3}",
        "note": None if seq % 2 else f"note {seq}",
        "tags": ["a", "b"][: seq % 3],
        "address": {"city": f"city {seq % 5}"},
    }


def test_avro_records_reach_parquet_exactly_once_with_the_types_of_their_avro_schema(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    schema_registry: LocalRegistry,
    registry_client: Any,
    tmp_path: Path,
    sink_workers: list[SinkWorker],
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    serializer = AvroSerializer(registry_client, json.dumps(ORDER_AVRO))
    context = SerializationContext(topic, MessageField.VALUE)
    producer = SequenceProducer(kafka_bootstrap, topic, lambda seq: serializer(order(seq), context))
    producer.send(2 * FLUSH_SIZE * PARTITIONS)
    root = tmp_path / "out"
    avro = {
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": schema_registry.url,
    }
    worker = SinkWorker(
        worker_file(tmp_path, kafka_bootstrap, "worker"),
        sink_file(tmp_path, "avro-sink", topic, root, **avro),
        tmp_path / "worker.log",
    )
    sink_workers.append(worker)
    wait_for(lambda: all_committed(root, topic, producer.per_partition()), 180, "every record committed", worker)
    assert_exactly_once(root, topic, producer)

    output = Output.of(root)
    files = output.files("topics", ".parquet")
    assert len(files) == 2 * PARTITIONS, files
    table = pa.concat_tables([output.parquet(path).read() for path in files]).sort_by("seq")
    assert {f.name: f.type for f in table.schema if not f.name.startswith("_")} == PARQUET_TYPES
    rows = table.to_pylist()
    for seq in (0, 1, 2 * FLUSH_SIZE * PARTITIONS - 1):
        expected = order(seq)
        assert {name: rows[seq][name] for name in PARQUET_TYPES} == expected, seq
    assert worker.terminate() == 0, worker.log_tail()
