"""Connect schema <-> Avro schema, as Confluent's AvroData maps them (no registry involved)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from connect.api.data import (
    DATE_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
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
from connect.api.errors import DataError
from connect.converters.schema_registry.avro_from_connect import avro_schema_of
from connect.converters.schema_registry.avro_names import AvroDataOptions
from connect.converters.schema_registry.avro_to_connect import read_plan, reader_view

OPTIONS = AvroDataOptions()


def test_primitives_and_the_connect_types_avro_lacks():
    assert avro_schema_of(INT32_SCHEMA, OPTIONS) == "int"
    assert avro_schema_of(INT8_SCHEMA, OPTIONS) == {"type": "int", "connect.type": "int8"}
    assert avro_schema_of(INT16_SCHEMA, OPTIONS) == {"type": "int", "connect.type": "int16"}
    assert avro_schema_of(OPTIONAL_STRING_SCHEMA, OPTIONS) == ["null", "string"]
    assert avro_schema_of(INT8_SCHEMA, AvroDataOptions(connect_meta_data=False)) == "int"


def test_logical_types_carry_avro_logical_types_and_connect_names():
    assert avro_schema_of(Schema.decimal(2), OPTIONS) == {
        "type": "bytes",
        "scale": 2,
        "precision": 64,
        "connect.version": 1,
        "connect.parameters": {"scale": "2"},
        "connect.name": "org.apache.kafka.connect.data.Decimal",
        "logicalType": "decimal",
    }
    assert avro_schema_of(DATE_SCHEMA, OPTIONS) == {
        "type": "int",
        "connect.version": 1,
        "connect.name": "org.apache.kafka.connect.data.Date",
        "logicalType": "date",
    }
    assert avro_schema_of(TIME_SCHEMA, OPTIONS)["logicalType"] == "time-millis"
    assert avro_schema_of(TIMESTAMP_SCHEMA, OPTIONS)["logicalType"] == "timestamp-millis"


def test_a_struct_is_a_record_with_optional_fields_as_unions_defaulting_to_null():
    schema = Schema.struct([("id", INT64_SCHEMA), ("name", OPTIONAL_STRING_SCHEMA)], name="shop.Order")
    assert avro_schema_of(schema, OPTIONS) == {
        "type": "record",
        "name": "Order",
        "namespace": "shop",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": ["null", "string"], "default": None},
        ],
        "connect.name": "shop.Order",
    }


def test_unnamed_structs_are_connect_default_records_with_distinct_names():
    inner = Schema.struct([("x", INT32_SCHEMA)])
    other = Schema.struct([("y", INT32_SCHEMA)])
    avro = avro_schema_of(Schema.struct([("a", inner), ("b", other)]), OPTIONS)
    assert (avro["name"], avro["namespace"]) == ("ConnectDefault", "io.confluent.connect.avro")
    assert [f["type"]["name"] for f in avro["fields"]] == ["ConnectDefault2", "ConnectDefault3"]


def test_a_struct_used_twice_is_defined_once_and_then_named():
    point = Schema.struct([("x", INT32_SCHEMA)], name="geo.Point")
    avro = avro_schema_of(Schema.struct([("a", point), ("b", point), ("c", point.as_optional())]), OPTIONS)
    assert avro["fields"][0]["type"]["name"] == "Point"
    assert avro["fields"][1]["type"] == "geo.Point"
    assert avro["fields"][2]["type"] == ["null", "geo.Point"]


def test_a_default_is_the_field_default_and_connect_default_and_puts_the_type_first_in_an_optional_union():
    with_default = Schema(SchemaType.INT32, default=7)
    optional_default = Schema(SchemaType.STRING, optional=True, default="x")
    avro = avro_schema_of(Schema.struct([("n", with_default), ("s", optional_default)]), OPTIONS)
    assert avro["fields"][0] == {"name": "n", "type": {"type": "int", "connect.default": 7}, "default": 7}
    assert avro["fields"][1]["type"] == [{"type": "string", "connect.default": "x"}, "null"]
    assert avro["fields"][1]["default"] == "x"


def test_maps_with_string_keys_are_avro_maps_others_arrays_of_map_entries():
    assert avro_schema_of(Schema.map(STRING_SCHEMA, INT32_SCHEMA), OPTIONS) == {"type": "map", "values": "int"}
    assert avro_schema_of(Schema.map(INT32_SCHEMA, STRING_SCHEMA), OPTIONS) == {
        "type": "array",
        "items": {
            "type": "record",
            "name": "MapEntry",
            "namespace": "io.confluent.connect.avro",
            "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "string"}],
        },
    }


def rich_schema() -> Schema:
    address = Schema.struct([("street", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], name="shop.Address")
    return Schema(
        SchemaType.STRUCT,
        name="shop.Customer",
        version=3,
        doc="a customer",
        parameters={"source": "crm"},
        fields=tuple(
            Schema.struct(
                [
                    ("tiny", INT8_SCHEMA),
                    ("small", INT16_SCHEMA),
                    ("id", INT64_SCHEMA),
                    ("score", FLOAT64_SCHEMA),
                    ("balance", Schema.decimal(2)),
                    ("born", DATE_SCHEMA),
                    ("wakes", TIME_SCHEMA),
                    ("seen", TIMESTAMP_SCHEMA.as_optional()),
                    ("tags", Schema.array(STRING_SCHEMA)),
                    ("counts", Schema.map(STRING_SCHEMA, INT64_SCHEMA.as_optional())),
                    ("by_year", Schema.map(INT32_SCHEMA, STRING_SCHEMA)),
                    ("home", address),
                    ("work", address.as_optional()),
                    ("level", Schema(SchemaType.INT32, default=1)),
                ]
            ).fields
        ),
    )


def test_connect_schemas_round_trip_through_avro():
    schema = rich_schema()
    plan = read_plan(avro_schema_of(schema, OPTIONS), OPTIONS)
    assert plan.schema == schema


def test_the_registry_version_is_the_schema_version_unless_connect_version_says_otherwise():
    plain = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
    assert read_plan(plain, OPTIONS, version=4).schema.version == 4
    assert read_plan({**plain, "connect.version": 2}, OPTIONS, version=4).schema.version == 2


def test_avro_written_without_connect_properties():
    avro = {
        "type": "record",
        "name": "Event",
        "namespace": "ns",
        "doc": "an event",
        "fields": [
            {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
            {"name": "either", "type": ["int", "string", "null"]},
            {"name": "micros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
            {"name": "note", "type": ["null", "string"], "default": None},
            {"name": "count", "type": "int", "default": 3},
            {"name": "uuid", "type": {"type": "string", "logicalType": "uuid"}},
        ],
    }
    schema = read_plan(avro, OPTIONS).schema
    assert schema.name == "ns.Event"
    assert schema.parameters == {"io.confluent.connect.avro.record.doc": "an event"}
    kind = schema.field("kind").schema
    assert (kind.type, kind.name) == (SchemaType.STRING, "ns.Kind")
    assert kind.parameters == {
        "io.confluent.connect.avro.Enum": "ns.Kind",
        "io.confluent.connect.avro.Enum.A": "A",
        "io.confluent.connect.avro.Enum.B": "B",
    }
    either = schema.field("either").schema
    assert (either.name, either.optional) == ("io.confluent.connect.avro.Union", True)
    assert [(f.name, f.schema.type, f.schema.optional) for f in either.fields] == [
        ("int", SchemaType.INT32, True),
        ("string", SchemaType.STRING, True),
    ]
    assert schema.field("micros").schema == INT64_SCHEMA
    assert schema.field("hash").schema.type is SchemaType.BYTES
    assert schema.field("note").schema == OPTIONAL_STRING_SCHEMA
    count = schema.field("count").schema
    assert (count.default, count.parameters) == (3, {"io.confluent.connect.avro.field.default": "true"})
    assert schema.field("uuid").schema == STRING_SCHEMA
    view = reader_view(avro)
    assert "logicalType" not in view["fields"][2]["type"]
    assert "logicalType" not in view["fields"][6]["type"]


def test_defaults_of_logical_types_and_structs_read_as_connect_values():
    avro = {
        "type": "record",
        "name": "R",
        "fields": [
            {"name": "d", "type": {"type": "int", "logicalType": "date"}, "default": 1},
            {
                "name": "amount",
                "type": {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2},
                "default": "\u0004\u00d2",
            },
            {
                "name": "p",
                "type": {"type": "record", "name": "P", "fields": [{"name": "x", "type": "int"}]},
                "default": {"x": 5},
            },
        ],
    }
    schema = read_plan(avro, OPTIONS).schema
    assert schema.field("d").schema.default == dt.date(1970, 1, 2)
    amount = schema.field("amount").schema
    assert amount.default == Decimal("12.34")
    assert amount.parameters["connect.decimal.precision"] == "5"
    p = schema.field("p").schema
    assert isinstance(p.default, Struct)
    assert dict(p.default.items()) == {"x": 5}


def test_recursive_avro_schemas_are_refused_with_a_clear_error():
    avro = {"type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]}
    with pytest.raises(DataError, match="Recursive Avro schemas are not supported"):
        read_plan(avro, OPTIONS)
