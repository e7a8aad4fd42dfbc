"""AvroConverter against confluent-kafka's in-memory registry (`mock://` URLs) and a closed port."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from connect.api.data import (
    DATE_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
    Struct,
)
from connect.api.errors import ConfigError, DataError, RetriableError
from connect.converters.schema_registry.avro import AvroConverter
from connect.runtime.plugins.registry import PluginRegistry
from tests.fixtures.tcp_ports import free_port

ORDER = Schema.struct(
    [
        ("id", INT64_SCHEMA),
        ("qty", INT8_SCHEMA),
        ("note", OPTIONAL_STRING_SCHEMA),
        ("amount", Schema.decimal(2)),
        ("day", DATE_SCHEMA),
        ("at", TIME_SCHEMA),
        ("ts", TIMESTAMP_SCHEMA),
        ("tags", Schema.array(STRING_SCHEMA)),
        ("by_code", Schema.map(INT32_SCHEMA, STRING_SCHEMA)),
        ("level", Schema(SchemaType.INT32, default=1)),
    ],
    name="shop.Order",
)


def order(n: int) -> Struct:
    return Struct(
        ORDER,
        {
            "id": n,
            "qty": 3,
            "note": None if n % 2 else f"note {n}",
            "amount": Decimal("12.34"),
            "day": dt.date(2024, 2, 29),
            "at": dt.time(13, 14, 15, 16000),
            "ts": dt.datetime(2024, 2, 29, 13, 14, 15, 16000, tzinfo=dt.UTC),
            "tags": ["a", "b"],
            "by_code": {1: "one", 2: "two"},
        },
    )


def converter(**configs: Any) -> AvroConverter:
    avro = AvroConverter()
    avro.configure({"schema.registry.url": "mock://unit", **configs}, False)
    return avro


def test_values_round_trip_through_the_wire_format():
    avro = converter()
    data = avro.from_connect_data("orders", ORDER, order(2))
    assert data is not None and data[0] == 0
    decoded = avro.to_connect_data("orders", data)
    assert dict(decoded.value.items()) == {**dict(order(2).items()), "level": 1}


def test_the_schema_read_back_is_the_schema_written_with_the_registry_version():
    avro = converter()
    decoded = avro.to_connect_data("orders", avro.from_connect_data("orders", ORDER, order(1)))
    assert decoded.schema == dataclasses.replace(ORDER, version=1)
    # The Struct carries that schema too (name and version), so a JSON or Avro converter downstream keeps them.
    assert decoded.value.schema == decoded.schema


def test_columns_only_for_non_null_records_of_one_schema_id_and_a_bad_payload_is_a_data_error():
    avro = converter()
    first = avro.from_connect_data("orders", ORDER, order(1))
    other = Schema.struct([("id", INT64_SCHEMA)], name="shop.Other")
    second = avro.from_connect_data("orders", other, Struct(other, {"id": 1}))
    assert first is not None and second is not None
    assert avro.to_connect_columns_batch("orders", [first, second]) is None
    assert avro.to_connect_columns_batch("orders", [first, None]) is None
    assert avro.to_connect_columns_batch("keys", [avro.from_connect_data("keys", STRING_SCHEMA, "k")]) is None
    assert avro.to_connect_columns_batch("orders", []) is None
    with pytest.raises(DataError, match="Failed to deserialize data for topic orders"):
        avro.to_connect_columns_batch("orders", [first, first[:8]])


def test_nulls_are_tombstones_both_ways():
    avro = converter()
    assert avro.from_connect_data("orders", None, None) is None
    assert avro.from_connect_data("orders", ORDER.as_optional(), None) is None
    assert avro.to_connect_data("orders", None) == (None, None)


def test_primitive_values_have_primitive_schemas():
    avro = converter()
    data = avro.from_connect_data("keys", STRING_SCHEMA, "k-1")
    assert avro.to_connect_data("keys", data) == (Schema(SchemaType.STRING, version=1), "k-1")


def test_a_value_without_the_magic_byte_is_a_data_error_that_says_so():
    avro = converter()
    with pytest.raises(DataError, match="Unknown magic byte"):
        avro.to_connect_data("orders", b'{"id": 1}')
    with pytest.raises(DataError, match="Unknown magic byte"):
        avro.to_connect_data_batch("orders", [b"\x01\x00\x00\x00\x01\x02"])


def test_an_unknown_schema_id_is_a_data_error_naming_the_id():
    avro = converter()
    with pytest.raises(DataError, match="schema for id 4242"):
        avro.to_connect_data("orders", b"\x00\x00\x00\x10\x92\x02")


def test_a_payload_that_does_not_fit_its_schema_is_a_data_error():
    avro = converter()
    data = avro.from_connect_data("orders", ORDER, order(1))
    assert data is not None
    with pytest.raises(DataError, match="Failed to deserialize data for topic orders"):
        avro.to_connect_data("orders", data[:8])


def test_a_value_that_does_not_fit_its_schema_is_a_data_error():
    avro = converter()
    bad = Struct(ORDER, {**dict(order(1).items()), "id": "not a number"})
    with pytest.raises(DataError, match="Failed to serialize Avro data from topic orders"):
        avro.from_connect_data("orders", ORDER, bad)
    with pytest.raises(DataError, match="cannot be a Struct"):
        avro.from_connect_data("orders", None, order(1))


def test_schemaless_values_travel_as_confluents_anything_record():
    avro = converter()
    value = {"id": 1, "tags": ["a", None, 2.5], "raw": b"\x00", "ok": True, "nested": {"x": {"y": "z"}}}
    data = avro.from_connect_data("loose", None, value)
    assert avro.to_connect_data("loose", data) == (None, value)
    registered = avro.client.latest("loose-value").schema_str
    assert '"name":"Anything"' in registered and '"namespace":"io.confluent.connect.avro"' in registered
    batch = avro.from_connect_data_batch("loose", None, ["a", 1, None])
    assert batch[2] is None
    assert [avro.to_connect_data("loose", b).value for b in batch[:2]] == ["a", 1]


def test_without_auto_register_an_unregistered_schema_is_a_data_error():
    avro = converter(**{"auto.register.schemas": "false"})
    with pytest.raises(DataError, match="orders-value"):
        avro.from_connect_data("orders", ORDER, order(1))


def test_subject_name_strategies():
    record = converter(**{"value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy"})
    record.from_connect_data("orders", ORDER, order(1))
    assert record.client.latest("shop.Order").schema_id > 0
    topic_record = converter(**{"value.subject.name.strategy": "TopicRecordNameStrategy"})
    topic_record.from_connect_data("orders", ORDER, order(1))
    assert topic_record.client.latest("orders-shop.Order").schema_id > 0
    with pytest.raises(ConfigError, match=r"value\.subject\.name\.strategy"):
        converter(**{"value.subject.name.strategy": "NoSuchStrategy"})


def test_use_latest_version_writes_with_the_subjects_latest_schema():
    avro = converter(
        **{"auto.register.schemas": "false", "use.latest.version": "true", "latest.compatibility.strict": "false"}
    )
    narrow = Schema.struct([("id", INT64_SCHEMA)], name="shop.Order")
    registered = avro.client.register(
        "orders-value",
        '{"type":"record","name":"Order","namespace":"shop",'
        '"fields":[{"name":"id","type":"long"},{"name":"extra","type":"string","default":"x"}]}',
    )
    data = avro.from_connect_data("orders", narrow, Struct(narrow, {"id": 7}))
    assert data is not None and int.from_bytes(data[1:5], "big") == registered
    assert dict(avro.to_connect_data("orders", data).value.items()) == {"id": 7, "extra": "x"}


def test_use_latest_version_refuses_a_latest_schema_that_cannot_read_the_data():
    avro = converter(**{"auto.register.schemas": "false", "use.latest.version": "true"})
    avro.client.register(
        "orders-value",
        '{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"long"},'
        '{"name":"extra","type":"string"}]}',
    )
    narrow = Schema.struct([("id", INT64_SCHEMA)], name="shop.Order")
    with pytest.raises(DataError, match="extra: the reader's field has no default"):
        avro.from_connect_data("orders", narrow, Struct(narrow, {"id": 7}))


def test_basic_auth_needs_user_and_password_and_sasl_inherit_is_refused():
    with pytest.raises(ConfigError, match="user:password"):
        converter(**{"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "nopassword"})
    with pytest.raises(ConfigError, match="SASL_INHERIT"):
        converter(**{"basic.auth.credentials.source": "SASL_INHERIT"})
    with pytest.raises(ConfigError, match=r"schema\.registry\.url"):
        AvroConverter().configure({}, False)


def test_a_registry_that_cannot_be_reached_is_retriable_and_the_message_hides_credentials():
    port = free_port()
    avro = AvroConverter()
    avro.configure(
        {
            "schema.registry.url": f"http://127.0.0.1:{port},http://127.0.0.1:{port}/second",
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": "alice:s3cret",
            "max.retries": "0",
        },
        False,
    )
    with pytest.raises(RetriableError, match="could not be reached") as raised:
        avro.from_connect_data("orders", ORDER, order(1))
    assert "s3cret" not in str(raised.value)
    assert f"127.0.0.1:{port}/second" in str(raised.value)
    with pytest.raises(RetriableError):
        avro.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x02")


def test_confluents_class_name_resolves_to_the_avro_converter():
    plugins = PluginRegistry.discover()
    assert plugins.converter_class("io.confluent.connect.avro.AvroConverter") is AvroConverter
    assert plugins.converter_class("AvroConverter") is AvroConverter


FOREIGN = {
    "type": "record",
    "name": "Event",
    "namespace": "ns",
    "fields": [
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
        {"name": "either", "type": ["int", "string", "null"]},
        {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 2}},
        {"name": "ids", "type": {"type": "map", "values": "long"}},
    ],
}


@pytest.mark.parametrize("enhanced", ["false", "true"])
def test_what_was_read_from_foreign_avro_writes_back_readable(enhanced: str):
    import io
    import json

    import fastavro

    avro = converter(**{"enhanced.avro.schema.support": enhanced})
    schema_id = avro.client.register("events-value", json.dumps(FOREIGN))
    out = io.BytesIO()
    fastavro.schemaless_writer(
        out, fastavro.parse_schema(FOREIGN), {"kind": "B", "either": "x", "hash": b"ab", "ids": {"k": 1}}
    )
    read = avro.to_connect_data("events", b"\x00" + schema_id.to_bytes(4, "big") + out.getvalue())
    again = avro.from_connect_data("events-copy", read.schema, read.value)
    assert dict(avro.to_connect_data("events-copy", again).value.items()) == dict(read.value.items())
    registered = json.loads(avro.client.latest("events-copy-value").schema_str)
    kind = registered["fields"][0]["type"]
    assert (kind["type"] if isinstance(kind, dict) else kind) == ("enum" if enhanced == "true" else "string")
