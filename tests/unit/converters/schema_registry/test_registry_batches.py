"""Decoding a column of framed values, which every registry converter does through `RegistryConverter`'s one
batch loop (a format says only where a value's framing ends): Avro and Protobuf against confluent-kafka's
in-memory registry; and decoding it as columns, which Avro and JSON Schema do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from connect.api.data import INT64_SCHEMA, Schema, Struct
from connect.api.errors import DataError
from tests.unit.converters.schema_registry import test_avro_converter as avro
from tests.unit.converters.schema_registry import test_jsonschema_converter as jsonschema
from tests.unit.converters.schema_registry import test_protobuf_converter as protobuf

# (a configured converter, the struct schema it writes, a struct of that schema numbered n)
FORMATS = {
    "avro": (avro.converter, avro.ORDER, avro.order),
    "protobuf": (protobuf.converter, protobuf.ORDER, protobuf.order),
}
Format = tuple[Callable[[], Any], Schema, Callable[[int], Struct]]


@pytest.fixture(params=sorted(FORMATS))
def registry_format(request: pytest.FixtureRequest) -> Format:
    return FORMATS[request.param]


def test_a_batch_of_one_schema_decodes_to_one_schema_and_its_values(registry_format: Format) -> None:
    make, order_schema, order = registry_format
    converter = make()
    values = converter.from_connect_data_batch("orders", order_schema, [order(n) for n in range(5)])
    batch = converter.to_connect_data_batch("orders", values)
    assert batch is not None
    assert [v.get("id") for v in batch.values] == [0, 1, 2, 3, 4]
    assert batch.schema == converter.to_connect_data("orders", values[0]).schema


def test_a_batch_of_two_schemas_is_left_to_the_runtime_to_group(registry_format: Format) -> None:
    make, order_schema, order = registry_format
    converter = make()
    other = Schema.struct([("id", INT64_SCHEMA)], name="shop.Other")
    first = converter.from_connect_data("orders", order_schema, order(1))
    second = converter.from_connect_data("orders", other, Struct(other, {"id": 1}))
    assert converter.to_connect_data_batch("orders", [first, second]) is None
    assert converter.to_connect_data_batch("orders", [first, None]) is None
    assert converter.to_connect_data_batch("orders", [None, None]) == (None, [None, None])


# The formats whose converter decodes a batch of structs field by field (`to_connect_columns_batch`).
COLUMN_FORMATS = {
    "avro": (avro.converter, avro.ORDER, avro.order),
    "jsonschema": (jsonschema.converter, jsonschema.ORDER, jsonschema.order),
    "jsonschema-numeric-decimals": (
        lambda: jsonschema.converter(**{"decimal.format": "NUMERIC"}),
        jsonschema.ORDER,
        jsonschema.order,
    ),
}


@pytest.mark.parametrize("name", sorted(COLUMN_FORMATS))
def test_a_batch_of_structs_decodes_to_columns_holding_what_the_structs_would(name: str) -> None:
    make, order_schema, order = COLUMN_FORMATS[name]
    converter = make()
    values = converter.from_connect_data_batch("orders", order_schema, [order(n) for n in range(4)])
    structs = converter.to_connect_data_batch("orders", values)
    columns = converter.to_connect_columns_batch("orders", values)
    assert structs is not None and columns is not None
    assert columns.schema == structs.schema and len(columns) == 4
    for f in order_schema.fields:
        assert list(columns.columns[f.name]) == [s.get(f.name) for s in structs.values], f.name
    assert columns.structs() == structs.values
    assert columns.columns["level"] == [1, 1, 1, 1]  # null in every value: the default, as Struct.get gives


def test_protobuf_leaves_columns_to_the_runtime_and_a_json_document_that_is_no_object_is_a_data_error() -> None:
    proto = protobuf.converter()
    encoded = proto.from_connect_data_batch("orders", protobuf.ORDER, [protobuf.order(1)])
    assert proto.to_connect_columns_batch("orders", encoded) is None
    json_schema = jsonschema.converter()
    [good] = json_schema.from_connect_data_batch("orders", jsonschema.ORDER, [jsonschema.order(1)])
    assert good is not None
    not_an_object = good[:5] + b"[1, 2]"
    with pytest.raises(DataError, match="Structs should be encoded as JSON objects"):
        json_schema.to_connect_columns_batch("orders", [good, not_an_object])
