"""Decoding a column of framed values, which every registry converter does through `RegistryConverter`'s one
batch loop (a format says only where a value's framing ends): Avro and Protobuf against confluent-kafka's
in-memory registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from connect.api.data import INT64_SCHEMA, Schema, Struct
from tests.unit.runtime.converters.schema_registry import test_avro_converter as avro
from tests.unit.runtime.converters.schema_registry import test_protobuf_converter as protobuf

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
