"""`from_connect_data_batch` of the JSON, String and ByteArray converters: the same bytes as one call per
value, errors raised as the single-value call raises them, and subclasses' own conversion honoured."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from connect.api import DataError, Schema, Utf8Strings
from connect.api.converter import Converter
from connect.api.data import BYTES_SCHEMA, INT32_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Struct
from connect.converters import ByteArrayConverter, JsonConverter, StringConverter

POINT = Schema.struct([("x", INT32_SCHEMA), ("label", OPTIONAL_STRING_SCHEMA)], optional=True)


def configured(converter: Converter, **configs: Any) -> Converter:
    converter.configure(configs, False)
    return converter


CASES: list[tuple[Converter, Schema | None, list[Any]]] = [
    (configured(JsonConverter()), POINT, [Struct(POINT, {"x": 1, "label": "a"}), None]),
    (configured(JsonConverter(), **{"schemas.enable": False}), POINT, [Struct(POINT, {"x": 2})]),
    (configured(JsonConverter()), None, [{"a": [1, 2]}, None, "s", 3]),
    (configured(JsonConverter(), **{"schemas.enable": False}), None, [{"a": 1}, None]),
    # Values whose JSON holds the ",\n," the one-call serialization splits at, escaped or (a Fragment) raw.
    (configured(JsonConverter()), None, ["a,\n,b", {"k": "x\ny"}, orjson.Fragment(b"[1,\n,2]"), 4]),
    (configured(JsonConverter()), None, [{1: "a map with a non-string key"}, {"b": 2}]),
    (configured(JsonConverter()), STRING_SCHEMA, ["one", "two,\n,three"]),
    (configured(StringConverter()), STRING_SCHEMA, ["a", "é", None, 5, True]),
    (configured(StringConverter(), **{"converter.encoding": "latin-1"}), None, ["é"]),
    # Strings held as their UTF-8 bytes: the same bytes with UTF-8, re-encoded with another encoding.
    (configured(StringConverter()), STRING_SCHEMA, Utf8Strings([b"a", "é".encode()])),
    (configured(StringConverter(), **{"converter.encoding": "latin-1"}), None, Utf8Strings(["é".encode()])),
    (configured(JsonConverter()), STRING_SCHEMA, Utf8Strings([b"x", "\u00e9".encode()])),
    (configured(ByteArrayConverter()), BYTES_SCHEMA, [b"a", None, bytearray(b"b")]),
    (configured(ByteArrayConverter()), None, [b"a", None]),
]


@pytest.mark.parametrize(("converter", "schema", "values"), CASES)
def test_a_column_converts_as_its_values_one_by_one(converter: Converter, schema: Schema | None, values: Any) -> None:
    one_by_one = [
        None if value is None and schema is None else converter.from_connect_data("t", schema, value)
        for value in values
    ]
    assert converter.from_connect_data_batch("t", schema, values) == one_by_one


def test_errors_are_raised_as_for_one_value() -> None:
    with pytest.raises(DataError, match="Invalid schema type"):
        configured(ByteArrayConverter()).from_connect_data_batch("t", STRING_SCHEMA, [b"a"])
    with pytest.raises(DataError, match="not compatible"):
        configured(ByteArrayConverter()).from_connect_data_batch("t", None, [b"a", 5])
    with pytest.raises(DataError, match="Failed to serialize"):
        configured(StringConverter(), **{"converter.encoding": "ascii"}).from_connect_data_batch("t", None, ["é"])
    with pytest.raises(DataError):
        configured(JsonConverter()).from_connect_data_batch("t", POINT, [Struct(POINT, {"x": 1}), "not a struct"])


def test_a_subclass_that_converts_values_itself_is_called_for_each() -> None:
    class Shouting(StringConverter):
        def from_connect_data(self, topic: str, schema: Any, value: Any, headers: Any = ()) -> bytes | None:
            return None if value is None else str(value).upper().encode()

    converter = configured(Shouting())
    assert converter.from_connect_data_batch("t", STRING_SCHEMA, ["a", "b"]) == [b"A", b"B"]


def test_utf8_strings_go_out_as_the_bytes_they_hold_without_being_decoded() -> None:
    encoded = [b"line one", "\u00e9t\u00e9".encode()]
    assert configured(StringConverter()).from_connect_data_batch("t", STRING_SCHEMA, Utf8Strings(encoded)) is encoded


def test_utf8_strings_read_as_strings() -> None:
    column = Utf8Strings([b"a", "\u00e9".encode(), b"c"])
    assert (len(column), column[1], column[-1], list(column)) == (3, "\u00e9", "c", ["a", "\u00e9", "c"])
    assert column[1:] == Utf8Strings(["\u00e9".encode(), b"c"]) and column[1:] == ["\u00e9", "c"]
    assert isinstance(column[:2], Utf8Strings)
    with pytest.raises(UnicodeDecodeError):
        _ = Utf8Strings([b"\xff"])[0]
