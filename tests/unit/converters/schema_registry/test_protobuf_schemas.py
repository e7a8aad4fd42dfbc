"""Connect schemas <-> Protobuf descriptors as Confluent's ProtobufData maps them, without a registry."""

from __future__ import annotations

from google.protobuf import descriptor_pb2

from connect.api.data import (
    DATE_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
)
from connect.converters.schema_registry import protobuf_descriptors as descriptors
from connect.converters.schema_registry.protobuf_from_connect import protobuf_file_of
from connect.converters.schema_registry.protobuf_names import ProtobufDataOptions, scrub
from connect.converters.schema_registry.protobuf_to_connect import connect_schema_of
from connect.converters.schema_registry.protobuf_wire import decode_indexes, encode_indexes
from tests.support.protobuf_messages import person_file

F = descriptor_pb2.FieldDescriptorProto
ADDRESS = Schema.struct([("city", STRING_SCHEMA)], name="shop.Address")
UNION = Schema.struct(
    [("email", OPTIONAL_STRING_SCHEMA), ("phone", Schema(SchemaType.INT64, optional=True))],
    name="io.confluent.connect.protobuf.Union.contact",
    optional=True,
)
KIND = Schema(
    SchemaType.STRING,
    optional=True,
    name="Kind",
    parameters={
        "io.confluent.connect.protobuf.Enum": "Kind",
        "io.confluent.connect.protobuf.Enum.KIND_UNKNOWN": "0",
        "io.confluent.connect.protobuf.Enum.KIND_RETAIL": "1",
    },
)
ORDER = Schema.struct(
    [
        ("id", INT64_SCHEMA),
        ("qty", INT8_SCHEMA),
        ("small", INT16_SCHEMA),
        ("amount", Schema.decimal(2)),
        ("day", DATE_SCHEMA),
        ("at", TIME_SCHEMA),
        ("ts", TIMESTAMP_SCHEMA),
        ("tags", Schema.array(STRING_SCHEMA)),
        ("counts", Schema.map(STRING_SCHEMA, OPTIONAL_INT32_SCHEMA)),
        ("address", ADDRESS),
        ("work", ADDRESS.as_optional()),
        ("note", OPTIONAL_STRING_SCHEMA),
        ("contact", UNION),
        ("kind", KIND),
    ],
    name="shop.Order",
)


def file_of(schema: Schema, **options: bool) -> descriptor_pb2.FileDescriptorProto:
    return protobuf_file_of(schema, ProtobufDataOptions(**options)).proto


def fields(message: descriptor_pb2.DescriptorProto) -> dict[str, F]:
    return {f.name: f for f in message.field}


def meta(field: F) -> dict[str, str]:
    return dict(field.options.Extensions[descriptors.field_meta_extension()].params)


def test_a_struct_is_a_proto3_message_in_the_package_of_its_namespace():
    made = protobuf_file_of(ORDER, ProtobufDataOptions())
    proto = made.proto
    assert (made.message_name, proto.package, proto.syntax) == ("shop.Order", "shop", "proto3")
    (order,) = proto.message_type
    by_name = fields(order)
    assert [f.number for f in order.field if f.name in ("id", "qty", "kind")] == [1, 2, 14]
    assert by_name["id"].type == F.TYPE_INT64 and by_name["tags"].label == F.LABEL_REPEATED
    assert (by_name["qty"].type, meta(by_name["qty"])) == (F.TYPE_INT32, {"connect.type": "int8"})
    assert meta(by_name["small"]) == {"connect.type": "int16"}
    assert by_name["amount"].type_name == ".confluent.type.Decimal" and meta(by_name["amount"]) == {"scale": "2"}
    assert [by_name[n].type_name for n in ("day", "at", "ts")] == [
        ".google.type.Date",
        ".google.type.TimeOfDay",
        ".google.protobuf.Timestamp",
    ]
    # A map is a repeated `<Name>Entry` message of key = 1 and value = 2; structs and enums are nested.
    assert by_name["counts"].type_name == "ConnectDefault1Entry" and by_name["counts"].label == F.LABEL_REPEATED
    nested = {m.name: m for m in order.nested_type}
    assert [(f.name, f.number) for f in nested["ConnectDefault1Entry"].field] == [("key", 1), ("value", 2)]
    assert by_name["address"].type_name == by_name["work"].type_name == "Address" and "Address" in nested
    assert [(v.name, v.number) for v in order.enum_type[0].value] == [("KIND_UNKNOWN", 0), ("KIND_RETAIL", 1)]
    # The union struct is a oneof, its members fields of the message.
    assert [o.name for o in order.oneof_decl] == ["contact"]
    assert by_name["email"].HasField("oneof_index") and by_name["phone"].oneof_index == 0
    assert set(proto.dependency) >= {"confluent/type/decimal.proto", "google/type/date.proto", "confluent/meta.proto"}


def test_optional_fields_as_wrappers_or_proto3_optionals():
    wrapped = fields(file_of(ORDER, wrapper_for_nullables=True).message_type[0])
    assert wrapped["note"].type_name == ".google.protobuf.StringValue"
    assert wrapped["email"].type == F.TYPE_STRING  # a oneof member stays plain: the oneof carries the null
    optionals = file_of(ORDER, optional_for_nullables=True).message_type[0]
    note = fields(optionals)["note"]
    assert note.proto3_optional and optionals.oneof_decl[note.oneof_index].name == "_note"
    assert not fields(optionals)["id"].proto3_optional


def test_names_protobuf_cannot_hold_are_scrubbed_on_request():
    assert (scrub("my-field"), scrub("1st"), scrub("_x"), scrub("ok_name")) == ("my_field", "x1st", "x_x", "ok_name")
    schema = Schema.struct([("my-field", STRING_SCHEMA)], name="a-b.Rec")
    proto = file_of(schema, scrub_invalid_names=True)
    assert (proto.package, proto.message_type[0].field[0].name) == ("a_b", "my_field")


def test_unnamed_structs_get_connects_default_names_and_primitives_are_wrappers():
    made = protobuf_file_of(Schema.struct([("a", STRING_SCHEMA)]), ProtobufDataOptions())
    assert made.message_name == "ConnectDefault1"
    primitive = protobuf_file_of(STRING_SCHEMA, ProtobufDataOptions())
    assert (primitive.proto.name, primitive.message_name) == (
        "google/protobuf/wrappers.proto",
        "google.protobuf.StringValue",
    )


def person_descriptor(**options: bool) -> Schema:
    file = descriptors.build_file(person_file(), {})
    return connect_schema_of(file.pool.FindMessageTypeByName("shop.Person"), ProtobufDataOptions(**options), 3)


def test_a_message_read_as_protobuf_data_reads_it():
    schema = person_descriptor()
    assert (schema.name, schema.version) == ("Person", 3)
    names = [f.name for f in schema.fields]
    assert names[0] == "contact_0" and names[1:4] == ["name", "age", "delta"]  # oneofs first
    union = schema.fields[0].schema
    assert union.name == "io.confluent.connect.protobuf.Union.contact" and union.optional
    assert [f.name for f in union.fields] == ["email", "phone"]

    def field(name: str) -> Schema:
        found = schema.field(name)
        assert found is not None
        return found.schema

    assert field("name") == Schema(
        SchemaType.STRING, optional=True, parameters={"io.confluent.connect.protobuf.Tag": "1"}
    )
    assert field("delta").parameters == {
        "io.confluent.connect.protobuf.Type": "sint32",
        "io.confluent.connect.protobuf.Tag": "3",
    }
    assert field("visits").type is SchemaType.INT64  # uint32 needs 64 bits
    assert field("kind").type is SchemaType.STRING and field("kind").name == "Kind"
    assert (
        field("kind").parameters is not None
        and field("kind").parameters["io.confluent.connect.protobuf.Enum.KIND_BULK"] == "2"
    )
    # The tag is the array's; its elements are optional, as ProtobufData builds them.
    assert field("tags") == Schema(
        SchemaType.ARRAY,
        optional=True,
        parameters={"io.confluent.connect.protobuf.Tag": "6"},
        value_schema=Schema(SchemaType.STRING, optional=True),
    )
    assert field("scores").type is SchemaType.MAP and field("scores").name == "scores"
    assert field("seen").name == TIMESTAMP_SCHEMA.name and field("home").name == "Address"


def test_protobuf_data_options_change_the_schema_read():
    plain = person_descriptor(generate_index_for_unions=False, int_for_enums=True, enhanced_schema_support=True)
    assert plain.fields[0].name == "contact" and plain.name == "shop.Person"
    kind = plain.field("kind")
    assert kind is not None and kind.schema.type is SchemaType.INT32 and kind.schema.name == "shop.Kind"
    flat = person_descriptor(flatten_unions=True)
    assert [f.name for f in flat.fields[:2]] == ["email", "phone"]
    required = person_descriptor(optional_for_nullables=True)
    name_field = required.field("name")
    nickname = required.field("nickname")
    assert name_field is not None and not name_field.schema.optional
    assert nickname is not None and nickname.schema.optional


def test_message_indexes_are_zigzag_varints_with_the_zero_shorthand():
    assert encode_indexes([0]) == b"\x00"
    assert encode_indexes([1]) == b"\x02\x02"
    assert encode_indexes([2, 0, 70]) == b"\x06\x04\x00\x8c\x01"
    framed = b"\x00\x00\x00\x00\x07" + encode_indexes([2, 0, 70]) + b"payload"
    assert decode_indexes(framed, "t") == ([2, 0, 70], 10)
    assert decode_indexes(b"\x00\x00\x00\x00\x07\x00rest", "t") == ([0], 6)
