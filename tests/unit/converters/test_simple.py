"""String, byte-array, number and simple header converters, byte-compatible with Kafka's serializers."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal
from typing import Any

import pytest

from connect.api import ConfigError, DataError, Schema, SchemaType
from connect.api.data import BYTES_SCHEMA, DATE_SCHEMA, INT32_SCHEMA, STRING_SCHEMA, TIMESTAMP_SCHEMA
from connect.converters import (
    BooleanConverter,
    ByteArrayConverter,
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    ShortConverter,
    SimpleHeaderConverter,
    StringConverter,
)
from connect.converters.number import NumberConverter
from connect.converters.values import convert_to_string, parse_string


def test_string_converter_round_trips_text_in_the_configured_encoding() -> None:
    c = StringConverter()
    c.configure({}, False)
    assert c.from_connect_data("t", None, "héllo") == "héllo".encode()
    result = c.to_connect_data("t", "héllo".encode())
    assert result.value == "héllo" and result.schema is not None and result.schema.type is SchemaType.STRING
    latin = StringConverter()
    latin.configure({"converter.encoding": "ISO-8859-1"}, True)
    assert latin.from_connect_data("t", None, "é") == b"\xe9"
    assert latin.to_connect_data("t", b"\xe9").value == "é"


def test_string_converter_writes_other_values_as_text_and_nulls_as_null() -> None:
    c = StringConverter()
    assert c.from_connect_data("t", None, 42) == b"42"
    assert c.from_connect_data("t", None, True) == b"true"
    assert c.from_connect_data("t", None, None) is None
    assert c.to_connect_data("t", None).value is None


def test_string_converter_rejects_an_unknown_encoding() -> None:
    with pytest.raises(ConfigError, match=r"converter\.encoding"):
        StringConverter().configure({"converter.encoding": "no-such-charset"}, False)


def test_byte_array_converter_passes_bytes_through() -> None:
    c = ByteArrayConverter()
    c.configure({}, False)
    assert c.from_connect_data("t", BYTES_SCHEMA, b"\x00\x01") == b"\x00\x01"
    assert c.from_connect_data("t", None, bytearray(b"ab")) == b"ab"
    assert c.to_connect_data("t", b"xy").value == b"xy"
    with pytest.raises(DataError, match="Invalid schema type for ByteArrayConverter: STRING"):
        c.from_connect_data("t", STRING_SCHEMA, b"x")
    with pytest.raises(DataError, match="not compatible with objects of type str"):
        c.from_connect_data("t", None, "x")


@pytest.mark.parametrize(
    ("converter", "value", "expected"),
    [
        (ShortConverter(), -2, struct.pack(">h", -2)),
        (IntegerConverter(), 1, b"\x00\x00\x00\x01"),
        (LongConverter(), 2**40, (2**40).to_bytes(8, "big")),
        (FloatConverter(), 1.5, struct.pack(">f", 1.5)),
        (DoubleConverter(), -0.25, struct.pack(">d", -0.25)),
        (BooleanConverter(), True, b"\x01"),
        (BooleanConverter(), False, b"\x00"),
    ],
)
def test_number_converters_write_kafkas_big_endian_encoding(
    converter: NumberConverter, value: Any, expected: bytes
) -> None:
    converter.configure({}, False)
    assert converter.from_connect_data("t", None, value) == expected
    result = converter.to_connect_data("t", expected)
    assert result.value == value
    assert result.schema is not None and result.schema.optional


def test_number_converters_reject_wrong_sizes_types_and_ranges() -> None:
    with pytest.raises(DataError, match="Size of data received is not 4"):
        IntegerConverter().to_connect_data("t", b"\x00\x01")
    with pytest.raises(DataError, match="Failed to serialize to INTEGER"):
        IntegerConverter().from_connect_data("t", None, "1")
    with pytest.raises(DataError):
        ShortConverter().from_connect_data("t", None, 70000)
    with pytest.raises(DataError, match="Unexpected byte"):
        BooleanConverter().to_connect_data("t", b"\x02")
    assert IntegerConverter().from_connect_data("t", None, None) is None


@pytest.mark.parametrize(
    ("text", "schema", "value"),
    [
        ("true", Schema(SchemaType.BOOLEAN), True),
        ("FALSE", Schema(SchemaType.BOOLEAN), False),
        ("42", Schema(SchemaType.INT8), 42),
        ("-300", Schema(SchemaType.INT16), -300),
        ("70000", INT32_SCHEMA, 70000),
        ("5000000000", Schema(SchemaType.INT64), 5000000000),
        ("3.25", Schema(SchemaType.FLOAT32), 3.25),
        ("hello world", STRING_SCHEMA, "hello world"),
        ("", STRING_SCHEMA, ""),
        ("2024-01-02", DATE_SCHEMA, dt.date(2024, 1, 2)),
        ("2024-01-02T03:04:05.006Z", TIMESTAMP_SCHEMA, dt.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC)),
    ],
)
def test_header_values_are_typed_by_inference(text: str, schema: Schema, value: Any) -> None:
    parsed = parse_string(text)
    assert parsed.schema == schema
    assert parsed.value == value


def test_integers_beyond_64_bits_are_decimals() -> None:
    parsed = parse_string("123456789012345678901234567890")
    assert parsed.schema is not None and parsed.schema.name == "org.apache.kafka.connect.data.Decimal"
    assert parsed.value == Decimal("123456789012345678901234567890")


def test_simple_header_converter_round_trips_typed_values() -> None:
    c = SimpleHeaderConverter()
    c.configure({})
    for value in (True, 7, -1.5, "text", dt.date(2020, 2, 29)):
        data = c.from_connect_header("t", "h", None, value)
        assert data is not None
        assert c.to_connect_header("t", "h", data).value == value
    assert c.from_connect_header("t", "h", None, None) is None
    assert c.to_connect_header("t", "h", None).value is None
    assert c.from_connect_header("t", "h", None, b"\x01\x02") == b"AQI="
    assert c.from_connect_header("t", "h", None, {"a": [1, 2]}) == b'{"a":[1,2]}'


def test_logical_ints_are_written_in_their_readable_form() -> None:
    assert convert_to_string(DATE_SCHEMA, 1) == "1970-01-02"
    assert convert_to_string(TIMESTAMP_SCHEMA, 1000) == "1970-01-01T00:00:01.000Z"
