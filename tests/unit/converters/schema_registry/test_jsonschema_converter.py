"""JsonSchemaConverter: JsonSchemaData's mapping, and values through confluent-kafka's in-memory registry."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from decimal import Decimal

import pytest

from connect.api.data import (
    DATE_SCHEMA,
    FLOAT32_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
    Struct,
)
from connect.api.errors import DataError
from connect.converters.schema_registry.jsonschema import JsonSchemaConverter
from connect.converters.schema_registry.jsonschema_from_connect import json_schema_of
from connect.converters.schema_registry.jsonschema_to_connect import connect_schema_of
from connect.converters.schema_registry.jsonschema_values import default_from_json, default_to_json
from connect.runtime.plugins.registry import PluginRegistry

ADDRESS = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], name="shop.Address")
ORDER = Schema.struct(
    [
        ("id", INT64_SCHEMA),
        ("qty", INT8_SCHEMA),
        ("ratio", FLOAT32_SCHEMA),
        ("amount", Schema.decimal(2)),
        ("day", DATE_SCHEMA),
        ("ts", TIMESTAMP_SCHEMA),
        ("blob", Schema(SchemaType.BYTES)),
        ("tags", Schema.array(STRING_SCHEMA)),
        ("counts", Schema.map(STRING_SCHEMA, INT32_SCHEMA)),
        ("by_code", Schema.map(INT32_SCHEMA, STRING_SCHEMA)),
        ("address", ADDRESS),
        ("work", ADDRESS.as_optional()),
        ("level", Schema(SchemaType.INT32, default=1)),
    ],
    name="shop.Order",
)


def order(n: int) -> Struct:
    return Struct(
        ORDER,
        {
            "id": n,
            "qty": 2,
            "ratio": 0.5,
            "amount": Decimal("12.34"),
            "day": dt.date(2024, 2, 29),
            "ts": dt.datetime(2024, 2, 29, 13, 14, 15, 16000, tzinfo=dt.UTC),
            "blob": b"\x00\x01",
            "tags": ["a"],
            "counts": {"x": 1},
            "by_code": {7: "seven"},
            "address": Struct(ADDRESS, {"city": "Oslo", "zip": None}),
            "work": None,
        },
    )


def converter(**configs: str) -> JsonSchemaConverter:
    converter = JsonSchemaConverter()
    converter.configure({"schema.registry.url": "mock://json-unit", **configs}, False)
    return converter


def test_connect_schemas_map_to_json_schema_as_json_schema_data_does():
    document = json_schema_of(ORDER, default_to_json)
    assert document["type"] == "object" and document["title"] == "shop.Order"
    properties = document["properties"]
    assert properties["id"] == {"type": "integer", "connect.type": "int64", "connect.index": 0}
    assert properties["ratio"] == {"type": "number", "connect.type": "float32", "connect.index": 2}
    assert properties["amount"]["type"] == "number" and properties["amount"]["connect.type"] == "bytes"
    assert properties["blob"] == {"type": "string", "connect.type": "bytes", "connect.index": 6}
    assert properties["counts"]["connect.type"] == "map" and properties["counts"]["type"] == "object"
    assert properties["by_code"]["type"] == "array"
    assert properties["work"]["oneOf"][0] == {"type": "null"} and properties["work"]["connect.index"] == 11
    assert properties["level"]["default"] == 1


def test_connect_schemas_round_trip_through_json_schema():
    document = json.loads(json.dumps(json_schema_of(ORDER, default_to_json)))
    assert connect_schema_of(document, default_from_json) == ORDER


def test_json_schema_written_by_others():
    document = {
        "title": "Person",
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "score": {"type": ["number", "null"]},
            "kind": {"enum": ["a", "b"]},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "home": {"$ref": "#/definitions/Place"},
        },
        "definitions": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}}},
    }
    schema = connect_schema_of(document, default_from_json, version=3)
    assert (schema.name, schema.version) == ("Person", 3)
    assert [f.name for f in schema.fields] == ["name", "age", "score", "kind", "either", "home"]
    assert schema.field("age").schema.type is SchemaType.INT64
    assert schema.field("score").schema == Schema(SchemaType.FLOAT64, optional=True)
    assert schema.field("kind").schema.parameters == {
        "io.confluent.connect.json.Enum": "",
        "io.confluent.connect.json.Enum.a": "a",
        "io.confluent.connect.json.Enum.b": "b",
    }
    either = schema.field("either").schema
    assert either.name == "io.confluent.connect.json.OneOf"
    assert [f.name for f in either.fields] == [
        "io.confluent.connect.json.OneOf.field.0",
        "io.confluent.connect.json.OneOf.field.1",
    ]
    assert schema.field("home").schema.field("city") is not None


def test_values_round_trip_with_the_registry_version():
    json_converter = converter()
    data = json_converter.from_connect_data("orders", ORDER, order(5))
    assert data is not None and data[0] == 0
    payload = json.loads(data[5:])
    assert payload["amount"] == "BNI=" and payload["by_code"] == [{"key": 7, "value": "seven"}]
    read = json_converter.to_connect_data("orders", data)
    assert read.schema == dataclasses.replace(ORDER, version=1)
    assert dict(read.value.items()) == {**dict(order(5).items()), "level": 1}


def test_numeric_decimals_stay_exact():
    json_converter = converter(**{"decimal.format": "NUMERIC"})
    schema = Schema.struct([("amount", Schema.decimal(3))], name="Money")
    data = json_converter.from_connect_data("money", schema, Struct(schema, {"amount": Decimal("0.100")}))
    assert data is not None and data[5:] == b'{"amount":0.100}'
    assert json_converter.to_connect_data("money", data).value.get("amount") == Decimal("0.100")


def test_a_batch_decodes_to_one_schema():
    json_converter = converter()
    values = json_converter.from_connect_data_batch("orders", ORDER, [order(n) for n in range(3)])
    batch = json_converter.to_connect_data_batch("orders", values)
    assert batch is not None and [v.get("id") for v in batch.values] == [0, 1, 2]


def test_bad_values_are_data_errors():
    json_converter = converter()
    with pytest.raises(DataError, match="Unknown magic byte"):
        json_converter.to_connect_data("orders", b'{"id": 1}')
    data = json_converter.from_connect_data("orders", ORDER, order(1))
    assert data is not None
    with pytest.raises(DataError, match="Failed to deserialize data for topic orders to JSON Schema"):
        json_converter.to_connect_data("orders", data[:5] + b'{"id": "x"}')
    with pytest.raises(DataError, match="Failed to serialize JSON Schema data"):
        json_converter.from_connect_data("orders", INT32_SCHEMA, "not an int")
    with pytest.raises(DataError, match="needs a schema"):
        json_converter.from_connect_data("orders", None, {"id": 1})


def test_confluents_class_name_resolves_to_the_json_schema_converter():
    plugins = PluginRegistry.discover()
    assert plugins.converter_class("io.confluent.connect.json.JsonSchemaConverter") is JsonSchemaConverter
