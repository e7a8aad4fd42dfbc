"""ProtobufConverter against confluent-kafka's in-memory registry (`mock://` URLs), its Protobuf serializer and
deserializer on the same registry, and a closed port."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from connect.api.data import (
    DATE_SCHEMA,
    FLOAT32_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
    Struct,
)
from connect.api.errors import DataError, RetriableError
from connect.converters.schema_registry.protobuf import ProtobufConverter
from connect.converters.schema_registry.protobuf_wire import encode_indexes
from connect.runtime.plugins.registry import PluginRegistry
from tests.fixtures.tcp_ports import free_port
from tests.support.protobuf_messages import person, person_classes

ADDRESS = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], name="shop.Address")
CONTACT = Schema.struct(
    [("email", OPTIONAL_STRING_SCHEMA), ("phone", OPTIONAL_INT64_SCHEMA)],
    name="io.confluent.connect.protobuf.Union.contact",
    optional=True,
)
ORDER = Schema.struct(
    [
        ("id", INT64_SCHEMA),
        ("qty", INT8_SCHEMA),
        ("ratio", FLOAT32_SCHEMA),
        ("amount", Schema.decimal(2)),
        ("day", DATE_SCHEMA),
        ("at", TIME_SCHEMA),
        ("ts", TIMESTAMP_SCHEMA),
        ("blob", Schema(SchemaType.BYTES)),
        ("tags", Schema.array(STRING_SCHEMA)),
        ("counts", Schema.map(STRING_SCHEMA, INT32_SCHEMA)),
        ("by_code", Schema.map(INT32_SCHEMA, ADDRESS)),
        ("address", ADDRESS),
        ("work", ADDRESS.as_optional()),
        ("note", OPTIONAL_STRING_SCHEMA),
        ("contact", CONTACT),
    ],
    name="shop.Order",
)


def order(n: int, note: str | None = None) -> Struct:
    return Struct(
        ORDER,
        {
            "id": n,
            "qty": -2,
            "ratio": 0.5,
            "amount": Decimal("-12.34"),
            "day": dt.date(2024, 2, 29),
            "at": dt.time(13, 14, 15, 16000),
            "ts": dt.datetime(2024, 2, 29, 13, 14, 15, 16000, tzinfo=dt.UTC),
            "blob": b"\x00\x01",
            "tags": ["a", "b"],
            "counts": {"x": 1},
            "by_code": {7: Struct(ADDRESS, {"city": "Oslo", "zip": "0150"})},
            "address": Struct(ADDRESS, {"city": "Oslo", "zip": None}),
            "work": None,
            "note": note,
            "contact": Struct(CONTACT, {"phone": 5550000 + n}),
        },
    )


def converter(**configs: Any) -> ProtobufConverter:
    protobuf = ProtobufConverter()
    protobuf.configure({"schema.registry.url": "mock://protobuf-unit", **configs}, False)
    return protobuf


def plain(value: Any) -> Any:
    """A Connect value as plain dicts and lists, to compare values read under another schema."""
    if isinstance(value, Struct):
        return {name: plain(v) for name, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def test_values_round_trip_through_the_wire_format():
    protobuf = converter()
    data = protobuf.from_connect_data("orders", ORDER, order(3, note="n"))
    assert data is not None and data[0] == 0 and data[5] == 0  # magic byte, then the [0] index shorthand
    decoded = protobuf.to_connect_data("orders", data)
    expected = plain(order(3, note="n"))
    # Read back, a oneof is a struct field named `<oneof>_<index>`, and an unset proto3 string is "".
    expected["contact_0"] = expected.pop("contact")
    expected["address"]["zip"] = ""
    assert plain(decoded.value) == expected
    assert decoded.schema is not None and (decoded.schema.name, decoded.schema.version) == ("Order", 1)


def test_nulls_read_back_as_proto3_defaults_unless_wrapped_or_optional():
    # Protobuf has no null for a plain proto3 scalar: ProtobufData reads it back as its default.
    assert protobuf_note(converter()) == ""
    assert protobuf_note(converter(**{"wrapper.for.nullables": "true"})) is None
    assert protobuf_note(converter(**{"optional.for.nullables": "true"})) is None


def protobuf_note(protobuf: ProtobufConverter) -> Any:
    decoded = protobuf.to_connect_data("notes", protobuf.from_connect_data("notes", ORDER, order(1)))
    return decoded.value.get("note")


def test_what_was_read_writes_back_to_the_same_message():
    protobuf = converter(**{"wrapper.for.nullables": "true"})
    first = protobuf.to_connect_data("orders", protobuf.from_connect_data("orders", ORDER, order(2)))
    assert first.schema is not None
    again = protobuf.from_connect_data("orders-copy", first.schema, first.value)
    assert plain(protobuf.to_connect_data("orders-copy", again).value) == plain(first.value)


def test_values_of_confluents_serializer_read_back_and_ours_read_with_its_deserializer():
    meta_class, person_class = person_classes()
    protobuf = converter()
    registry = protobuf.client._client  # the converter's in-memory registry, shared with confluent-kafka's serde
    context = SerializationContext("people", MessageField.VALUE)
    written = [ProtobufSerializer(person_class, registry)(person(n, person_class), context) for n in range(4)]
    assert written[0][5:7] == encode_indexes([1])  # Person is the file's second message
    batch = protobuf.to_connect_data_batch("people", written)
    assert batch is not None and batch.schema is not None and batch.schema.name == "Person"
    first, second = batch.values[0], batch.values[1]
    assert plain(first)["contact_0"] == {"email": None, "phone": 5550000}
    assert plain(second)["contact_0"] == {"email": "p1@example.com", "phone": None}
    assert (second.get("visits"), second.get("delta"), second.get("kind")) == (4_000_000_001, -1, "KIND_BULK")
    assert (second.get("scores"), second.get("nickname"), first.get("nickname")) == ({"x": 1}, None, "nick0")
    assert second.get("seen") == dt.datetime(2023, 11, 14, 22, 13, 21, 5000, tzinfo=dt.UTC)

    ours = protobuf.from_connect_data_batch("people-copy", batch.schema, batch.values)
    deserialize = ProtobufDeserializer(person_class, None, registry)
    copy_context = SerializationContext("people-copy", MessageField.VALUE)
    assert [deserialize(data, copy_context) for data in ours] == [person(n, person_class) for n in range(4)]
    del meta_class


def test_enums_as_ints_and_absent_messages_as_default_structs_on_request():
    _, person_class = person_classes()
    protobuf = converter(**{"int.for.enums": "true", "generate.struct.for.nulls": "true"})
    bare = person_class(name="bare", kind=2)
    context = SerializationContext("bare-people", MessageField.VALUE)
    data = ProtobufSerializer(person_class, protobuf.client._client)(bare, context)
    read = protobuf.to_connect_data("bare-people", data)
    assert read.value.get("kind") == 2 and dict(read.value.get("home").items()) == {"city": ""}
    assert read.value.get("contact_0") is None  # no member set: the union is null
    again = protobuf.from_connect_data("bare-copy", read.schema, read.value)
    copy_context = SerializationContext("bare-copy", MessageField.VALUE)
    copy = ProtobufDeserializer(person_class, None, protobuf.client._client)(again, copy_context)
    assert copy.kind == 2 and copy.HasField("home")


def test_nulls_are_tombstones_both_ways():
    protobuf = converter()
    assert protobuf.from_connect_data("orders", None, None) is None
    assert protobuf.from_connect_data("orders", ORDER.as_optional(), None) is None
    assert protobuf.to_connect_data("orders", None) == (None, None)


def test_primitive_values_are_wrapper_messages():
    protobuf = converter()
    data = protobuf.from_connect_data("keys", STRING_SCHEMA, "k-1")
    assert protobuf.to_connect_data("keys", data) == (Schema(SchemaType.STRING, version=1), "k-1")


def test_schemaless_values_and_schemas_protobuf_cannot_hold_are_data_errors():
    protobuf = converter()
    with pytest.raises(DataError, match="needs a schema"):
        protobuf.from_connect_data("orders", None, {"id": 1})
    nested = Schema.struct([("grid", Schema.array(Schema.array(INT32_SCHEMA)))], name="Grid")
    with pytest.raises(DataError, match="array of arrays"):
        protobuf.from_connect_data("grids", nested, Struct(nested, {"grid": [[1]]}))
    with pytest.raises(DataError, match="Unsupported root schema of type ARRAY"):
        protobuf.from_connect_data("lists", Schema.array(INT32_SCHEMA), [1])


def test_a_value_that_does_not_fit_its_schema_is_a_data_error():
    protobuf = converter()
    bad = order(1)
    bad.put("tags", ["a", None])
    with pytest.raises(DataError, match="Failed to serialize Protobuf data from topic orders: null element"):
        protobuf.from_connect_data("orders", ORDER, bad)
    wrong = order(1)
    wrong.put("id", "seven")
    with pytest.raises(DataError, match="Invalid type for an integer field"):
        protobuf.from_connect_data("orders", ORDER, wrong)


def test_a_value_without_the_magic_byte_is_a_data_error_that_says_so():
    protobuf = converter()
    with pytest.raises(DataError, match="Unknown magic byte"):
        protobuf.to_connect_data("orders", b'{"id": 1}')
    with pytest.raises(DataError, match="Unknown magic byte"):
        protobuf.to_connect_data_batch("orders", [b"\x01\x00\x00\x00\x01\x00\x02"])


def test_an_unknown_schema_id_is_a_data_error_naming_the_id():
    protobuf = converter()
    with pytest.raises(DataError, match="schema for id 4242"):
        protobuf.to_connect_data("orders", b"\x00\x00\x00\x10\x92\x00\x08\x01")


def test_corrupt_payloads_and_message_indexes_are_data_errors():
    protobuf = converter()
    data = protobuf.from_connect_data("orders", ORDER, order(1))
    assert data is not None
    with pytest.raises(DataError, match="the payload is not a valid value of the schema it names"):
        protobuf.to_connect_data("orders", data[:-3])
    with pytest.raises(DataError, match="message indexes after the schema id are cut short"):
        protobuf.to_connect_data("orders", data[:5] + b"\x04")
    with pytest.raises(DataError, match="message index 3 of the path"):
        protobuf.to_connect_data("orders", data[:5] + encode_indexes([3]) + data[6:])


def test_without_auto_register_an_unregistered_schema_is_a_data_error():
    protobuf = converter(**{"auto.register.schemas": "false"})
    with pytest.raises(DataError, match="orders-value"):
        protobuf.from_connect_data("orders", ORDER, order(1))


def test_subject_name_strategies_use_the_messages_full_name():
    record = converter(**{"value.subject.name.strategy": "RecordNameStrategy"})
    record.from_connect_data("orders", ORDER, order(1))
    assert record.client.latest("shop.Order").schema_id > 0


def test_use_latest_version_writes_with_the_subjects_latest_message():
    wide = Schema.struct([("id", INT64_SCHEMA), ("extra", OPTIONAL_STRING_SCHEMA)], name="shop.Item")
    registering = converter()
    latest = registering.from_connect_data("items", wide, Struct(wide, {"id": 1, "extra": "x"}))
    assert latest is not None
    protobuf = converter(
        **{"auto.register.schemas": "false", "use.latest.version": "true", "latest.compatibility.strict": "false"}
    )
    protobuf.client._client = registering.client._client  # the same in-memory registry
    narrow = Schema.struct([("id", INT64_SCHEMA)], name="shop.Item")
    data = protobuf.from_connect_data("items", narrow, Struct(narrow, {"id": 7}))
    assert data is not None and data[1:5] == latest[1:5]
    assert dict(protobuf.to_connect_data("items", data).value.items()) == {"id": 7, "extra": ""}


def test_a_registry_that_cannot_be_reached_is_retriable():
    protobuf = ProtobufConverter()
    protobuf.configure({"schema.registry.url": f"http://127.0.0.1:{free_port()}", "max.retries": "0"}, False)
    with pytest.raises(RetriableError, match="could not be reached"):
        protobuf.from_connect_data("orders", ORDER, order(1))
    with pytest.raises(RetriableError):
        protobuf.to_connect_data("orders", b"\x00\x00\x00\x00\x01\x00\x08\x01")


def test_confluents_class_name_resolves_to_the_protobuf_converter():
    plugins = PluginRegistry.discover()
    assert plugins.converter_class("io.confluent.connect.protobuf.ProtobufConverter") is ProtobufConverter
    assert plugins.converter_class("ProtobufConverter") is ProtobufConverter
