"""AvroConverter in a worker, by Confluent's class name: datagen -> Avro -> Kafka -> file sink, with every
record on the topic readable by confluent-kafka's AvroDeserializer; Avro -> Kafka -> SQL sink (which takes
the values as columns) with typed columns, upserts and a refused record in the dead letter queue; bad values
under the error policy (dead letter queue or FAILED with the reason); a source task whose registry is down
fails with the reason; a sink whose registry comes back within errors.retry.timeout loses nothing."""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

from connect.api.data import (
    DATE_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    Struct,
)
from connect.converters.schema_registry.avro import AvroConverter
from tests.fixtures.schema_registry.plugin import start_registry
from tests.fixtures.schema_registry.server import LocalRegistry
from tests.fixtures.tcp_ports import free_port
from tests.support.standalone_workers import (
    all_running,
    create_connector,
    failed_trace,
    line_count,
    running_worker,
    worker_props,
)
from tests.support.topic_reads import read_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

AVRO = "io.confluent.connect.avro.AvroConverter"
RECORDS = 2000


def _avro_keys(url: str, **extra: str) -> dict[str, str]:
    return {"value.converter": AVRO, "value.converter.schema.registry.url": url, **extra}


def test_datagen_to_file_through_avro_keeps_every_record(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    schema_registry: LocalRegistry,
    registry_client: SchemaRegistryClient,
    registry_converter: Callable[..., Any],
    tmp_path: Path,
) -> None:
    topic = topic_factory(partitions=1)
    sink_file = tmp_path / "orders.txt"
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "connect.offsets")) as (_, client):
        create_connector(
            client,
            "avro-source",
            {
                "connector.class": "io.confluent.kafka.connect.datagen.DatagenConnector",
                "kafka.topic": topic,
                "quickstart": "orders",
                "max.records": str(RECORDS),
                **_avro_keys(schema_registry.url),
            },
        )
        create_connector(
            client,
            "avro-sink",
            {
                "connector.class": "FileStreamSink",
                "file": str(sink_file),
                "topics": topic,
                **_avro_keys(schema_registry.url),
            },
        )
        wait_until(lambda: line_count(sink_file) >= RECORDS, 120, f"{RECORDS} lines in the sink file", interval=0.5)
        assert all_running(client, "avro-sink", 1)

    raw = read_topic(kafka_bootstrap, topic, 1, "read_uncommitted")
    assert len(raw) == RECORDS
    deserializer = AvroDeserializer(registry_client)
    context = SerializationContext(topic, MessageField.VALUE)
    decoded = [deserializer(value, context) for value in raw]
    assert sorted(d["seq"] for d in decoded) == list(range(RECORDS))
    assert all({"orderid", "itemid", "orderunits", "address"} <= d.keys() for d in decoded)
    assert {"city", "state", "zipcode"} <= decoded[0]["address"].keys()

    converter = registry_converter(AvroConverter)
    expected = [str(v) for v in converter.to_connect_data_batch(topic, raw).values]  # type: ignore[union-attr]
    assert sink_file.read_text().splitlines() == expected


def test_avro_values_reach_sql_rows_with_their_types_and_a_refused_one_the_dead_letter_queue(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    schema_registry: LocalRegistry,
    registry_converter: Callable[..., Any],
    tmp_path: Path,
) -> None:
    topic, dlq = topic_factory(partitions=1), topic_factory(partitions=1)
    schema = Schema.struct(
        [
            ("id", OPTIONAL_INT64_SCHEMA),
            ("name", STRING_SCHEMA),
            ("amount", Schema.decimal(2)),
            ("day", DATE_SCHEMA),
            ("at", TIMESTAMP_SCHEMA),
        ],
        name="shop.Order",
    )
    writer = registry_converter(AvroConverter)

    def order(id_: int | None, name: str) -> bytes:
        fields = {"id": id_, "name": name, "amount": Decimal("2.50") * (id_ or 0), "day": dt.date(2024, 3, id_ or 1)}
        value = Struct(schema, {**fields, "at": dt.datetime(2024, 3, 1, 9, id_ or 0, 30, 250000, tzinfo=dt.UTC)})
        return bytes(writer.from_connect_data(topic, schema, value))

    values = [order(1, "ann"), order(2, "bob"), order(None, "no id"), order(3, "cid"), order(2, "bob again")]
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for value in values:
        producer.produce(topic, value)
    assert producer.flush(30) == 0

    db = tmp_path / "orders.db"

    def rows() -> list[tuple[Any, ...]]:
        try:
            with sqlite3.connect(db) as connection:
                return connection.execute("SELECT id, name, amount, day, at FROM orders ORDER BY id").fetchall()
        except sqlite3.OperationalError:  # no table yet
            return []

    with running_worker(worker_props(kafka_bootstrap, tmp_path / "connect.offsets")) as (_, client):
        create_connector(
            client,
            "avro-sql",
            {
                "connector.class": "io.confluent.connect.jdbc.JdbcSinkConnector",
                "connection.url": f"jdbc:sqlite:{db}",
                "topics": topic,
                "table.name.format": "orders",
                "insert.mode": "upsert",
                "pk.mode": "record_value",
                "pk.fields": "id",
                "auto.create": "true",
                "errors.tolerance": "all",
                "errors.deadletterqueue.topic.name": dlq,
                "errors.deadletterqueue.topic.replication.factor": "1",
                **_avro_keys(schema_registry.url),
            },
        )
        expected = [
            (1, "ann", 2.5, "2024-03-01", "2024-03-01 09:01:30.250000"),
            (2, "bob again", 5, "2024-03-02", "2024-03-01 09:02:30.250000"),
            (3, "cid", 7.5, "2024-03-03", "2024-03-01 09:03:30.250000"),
        ]
        wait_until(lambda: rows() == expected, 60, "the three rows, key 2 with its last values", interval=0.5)
        wait_until(lambda: read_topic(kafka_bootstrap, dlq, 1, "read_uncommitted"), 60, "the refused record")
        assert all_running(client, "avro-sql", 1)

    assert read_topic(kafka_bootstrap, dlq, 1, "read_uncommitted") == [values[2]], "the consumed bytes, as they came"


def test_bad_values_go_to_the_dead_letter_queue_or_fail_the_task_with_the_reason(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    schema_registry: LocalRegistry,
    registry_converter: Callable[..., Any],
    tmp_path: Path,
) -> None:
    topic, dlq = topic_factory(partitions=1), topic_factory(partitions=1)
    schema = Schema.struct([("id", INT64_SCHEMA), ("name", STRING_SCHEMA)], name="shop.Customer")
    writer = registry_converter(AvroConverter)
    good = [writer.from_connect_data(topic, schema, Struct(schema, {"id": n, "name": f"c{n}"})) for n in range(4)]
    no_magic = b'{"id": 1, "name": "json, not avro"}'
    unknown_id = b"\x00" + (7654321).to_bytes(4, "big") + b"\x02"
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for value in (good[0], good[1], no_magic, good[2], unknown_id, good[3]):
        producer.produce(topic, value)
    assert producer.flush(30) == 0

    tolerant_file, strict_file = tmp_path / "tolerant.txt", tmp_path / "strict.txt"
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "connect.offsets")) as (_, client):
        create_connector(
            client,
            "tolerant",
            {
                "connector.class": "FileStreamSink",
                "file": str(tolerant_file),
                "topics": topic,
                "errors.tolerance": "all",
                "errors.deadletterqueue.topic.name": dlq,
                "errors.deadletterqueue.topic.replication.factor": "1",
                **_avro_keys(schema_registry.url),
            },
        )
        create_connector(
            client,
            "strict",
            {
                "connector.class": "FileStreamSink",
                "file": str(strict_file),
                "topics": topic,
                **_avro_keys(schema_registry.url),
            },
        )
        wait_until(lambda: line_count(tolerant_file) >= 4, 60, "the four good records in the tolerant sink's file")
        trace = wait_until(lambda: failed_trace(client, "strict"), 60, "the strict sink's task to fail")
        assert "Unknown magic byte" in trace
        wait_until(lambda: len(read_topic(kafka_bootstrap, dlq, 1, "read_uncommitted")) >= 2, 60, "two DLQ records")

    assert tolerant_file.read_text().splitlines() == [f"Struct{{id={n},name='c{n}'}}" for n in range(4)]
    assert read_topic(kafka_bootstrap, dlq, 1, "read_uncommitted") == [no_magic, unknown_id]
    assert line_count(strict_file) <= 2  # at most the records before the bad one, never past it


def test_a_source_whose_registry_is_down_fails_with_the_reason_after_its_retries(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    down = f"http://127.0.0.1:{free_port()}/apis/ccompat/v7"
    with running_worker(worker_props(kafka_bootstrap, tmp_path / "connect.offsets")) as (_, client):
        create_connector(
            client,
            "no-registry",
            {
                "connector.class": "DatagenConnector",
                "kafka.topic": topic,
                "quickstart": "sequence",
                "errors.retry.timeout": "1500",
                "errors.retry.delay.max.ms": "200",
                **_avro_keys(down, **{"value.converter.max.retries": "0"}),
            },
        )
        trace = wait_until(lambda: failed_trace(client, "no-registry"), 60, "the source task to fail")
    assert "could not be reached" in trace and "RegistryUnavailableError" in trace
    assert read_topic(kafka_bootstrap, topic, 1, "read_uncommitted") == []


def test_a_sink_rides_out_a_registry_outage_within_errors_retry_timeout(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    topic = topic_factory(partitions=1)
    registry = start_registry(tmp_path / "registry", durable=True)
    try:
        schema = Schema.struct([("id", INT64_SCHEMA)], name="shop.Tick")
        writer = AvroConverter()
        writer.configure({"schema.registry.url": registry.url}, False)
        producer = Producer({"bootstrap.servers": kafka_bootstrap})
        for n in range(10):
            producer.produce(topic, writer.from_connect_data(topic, schema, Struct(schema, {"id": n})))
        assert producer.flush(30) == 0
        writer.close()
        registry.stop()

        sink_file = tmp_path / "ticks.txt"
        caplog.set_level(logging.DEBUG, logger="connect.runtime.pipeline.error_handling")
        with running_worker(worker_props(kafka_bootstrap, tmp_path / "connect.offsets")) as (_, client):
            create_connector(
                client,
                "patient",
                {
                    "connector.class": "FileStreamSink",
                    "file": str(sink_file),
                    "topics": topic,
                    "errors.retry.timeout": "120000",
                    "errors.retry.delay.max.ms": "500",
                    **_avro_keys(registry.url, **{"value.converter.max.retries": "0"}),
                },
            )
            wait_until(
                lambda: any("retrying stage VALUE_CONVERTER" in r.getMessage() for r in caplog.records),
                60,
                "the sink to retry its conversion while the registry is down",
            )
            registry.start()
            wait_until(lambda: line_count(sink_file) >= 10, 60, "the ten records in the sink file", interval=0.5)
            assert all_running(client, "patient", 1)
        assert sink_file.read_text().splitlines() == [f"Struct{{id={n}}}" for n in range(10)]
    finally:
        registry.stop()
