"""Avro schema resolution: can a reader schema read what a writer schema wrote (latest.compatibility.strict)."""

from __future__ import annotations

from typing import Any

from connect.converters.schema_registry.avro_compatibility import read_problems


def record(*fields: dict[str, Any], name: str = "Order") -> dict[str, Any]:
    return {"type": "record", "name": name, "namespace": "shop", "fields": list(fields)}


def test_a_reader_with_a_new_field_needs_its_default():
    writer = record({"name": "id", "type": "long"})
    assert (
        read_problems(record({"name": "id", "type": "long"}, {"name": "sku", "type": "string", "default": ""}), writer)
        == []
    )
    problems = read_problems(record({"name": "id", "type": "long"}, {"name": "sku", "type": "string"}), writer)
    assert problems == ["sku: the reader's field has no default and the writer does not write it"]


def test_fields_the_reader_lacks_are_skipped_and_promotions_apply():
    writer = record({"name": "id", "type": "int"}, {"name": "gone", "type": "string"})
    assert read_problems(record({"name": "id", "type": "long"}), writer) == []
    assert read_problems(record({"name": "id", "type": "int"}), record({"name": "id", "type": "long"}))


def test_unions_enums_and_names():
    assert read_problems(["null", "string"], "string") == []
    assert read_problems("string", ["null", "string"])  # the writer may write a null
    enum = {"type": "enum", "name": "Kind", "symbols": ["A"]}
    assert read_problems(enum, {**enum, "symbols": ["A", "B"]})
    assert read_problems({**enum, "default": "A"}, {**enum, "symbols": ["A", "B"]}) == []
    assert read_problems(record(name="Other"), record())


def test_nested_and_referenced_records():
    point = {"type": "record", "name": "Point", "fields": [{"name": "x", "type": "int"}]}
    writer = record({"name": "a", "type": point}, {"name": "b", "type": "shop.Point"})
    reader = record({"name": "a", "type": point}, {"name": "b", "type": ["null", "Point"], "default": None})
    assert read_problems(reader, writer) == []
    narrower = {"type": "record", "name": "Point", "fields": [{"name": "y", "type": "int"}]}
    assert read_problems(record({"name": "a", "type": narrower}), writer) == [
        "a.y: the reader's field has no default and the writer does not write it"
    ]
