"""Avro schemas with schema references (nested types registered under subjects of their own, as Apicurio's
serializer does by default): the converter reads values of them as if the schema were written in one piece."""

from __future__ import annotations

import io
import json
import struct
from typing import Any

import fastavro
import pytest
from confluent_kafka.schema_registry import Schema as RegisteredSchema
from confluent_kafka.schema_registry import SchemaReference

from connect.api.errors import DataError
from connect.converters.schema_registry.avro import AvroConverter
from connect.converters.schema_registry.avro_references import self_contained
from connect.converters.schema_registry.client import Fetched

KIND = {"type": "enum", "name": "Kind", "namespace": "bank", "symbols": ["DEBIT", "CREDIT"]}
COUNTRY = {"type": "enum", "name": "Country", "namespace": "geo", "symbols": ["FR", "DE"]}
ADDRESS = {
    "type": "record",
    "name": "Address",
    "namespace": "bank",
    "fields": [{"name": "city", "type": "string"}, {"name": "country", "type": "geo.Country"}],
}
PAYMENT = {
    "type": "record",
    "name": "Payment",
    "namespace": "bank",
    "fields": [
        {"name": "kind", "type": "Kind"},  # a short name, resolved in the record's namespace
        {"name": "previous_kind", "type": ["null", "bank.Kind"], "default": None},  # a second use
        {"name": "from", "type": "Address"},
        {"name": "to", "type": {"type": "array", "items": "bank.Address"}},
    ],
}
SUBJECTS = {
    ("bank.Kind", 1): Fetched(json.dumps(KIND), ()),
    ("geo.Country", 3): Fetched(json.dumps(COUNTRY), ()),
    ("bank.Address", 2): Fetched(json.dumps(ADDRESS), (("geo.Country", "geo.Country", 3),)),
}
PAYMENT_REFERENCES = (("bank.Kind", "bank.Kind", 1), ("bank.Address", "bank.Address", 2))
VALUE = {
    "kind": "CREDIT",
    "previous_kind": "DEBIT",
    "from": {"city": "Lyon", "country": "FR"},
    "to": [{"city": "Köln", "country": "DE"}, {"city": "Paris", "country": "FR"}],
}


def fetch(subject: str, version: int) -> Fetched:
    return SUBJECTS[(subject, version)]


def test_referenced_types_are_defined_at_their_first_use_and_named_after() -> None:
    text = self_contained(Fetched(json.dumps(PAYMENT), PAYMENT_REFERENCES), fetch)
    schema = json.loads(text)

    fields = {field["name"]: field["type"] for field in schema["fields"]}
    assert fields["kind"] == KIND
    assert fields["previous_kind"] == ["null", "bank.Kind"]
    assert fields["from"]["fields"][1]["type"] == COUNTRY  # a reference of a reference
    assert fields["to"] == {"type": "array", "items": "bank.Address"}
    # One self-contained schema: Avro itself reads values with it.
    parsed = fastavro.parse_schema(schema)
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed, VALUE)
    assert fastavro.schemaless_reader(io.BytesIO(out.getvalue()), parsed, None) == VALUE


def test_a_schema_without_references_is_left_as_it_was() -> None:
    text = json.dumps(KIND)
    assert self_contained(Fetched(text, ()), fetch) is text


def test_references_that_never_end_are_refused() -> None:
    looping = Fetched(json.dumps(KIND), (("x", "loop", 1),))
    with pytest.raises(DataError, match="deeper than"):
        self_contained(looping, lambda subject, version: looping)


def test_the_converter_reads_values_whose_schema_refers_to_other_subjects() -> None:
    avro = AvroConverter()
    avro.configure({"schema.registry.url": "mock://references"}, False)
    registry: Any = avro.client._client  # the converter's in-memory registry
    registry.register_schema("geo.Country", RegisteredSchema(json.dumps(COUNTRY), "AVRO"))
    for subject, schema, references in (
        ("bank.Kind", KIND, ()),
        ("bank.Address", ADDRESS, (("geo.Country", "geo.Country"),)),
    ):
        refs = [SchemaReference(name, ref_subject, 1) for name, ref_subject in references]
        registry.register_schema(subject, RegisteredSchema(json.dumps(schema), "AVRO", refs))
    refs = [SchemaReference(name, name, 1) for name in ("bank.Kind", "bank.Address")]
    schema_id = registry.register_schema("payments-value", RegisteredSchema(json.dumps(PAYMENT), "AVRO", refs))
    full = fastavro.parse_schema(json.loads(self_contained(Fetched(json.dumps(PAYMENT), PAYMENT_REFERENCES), fetch)))
    out = io.BytesIO()
    out.write(struct.pack(">bI", 0, schema_id))
    fastavro.schemaless_writer(out, full, VALUE)

    decoded = avro.to_connect_data("payments", out.getvalue())

    assert decoded.schema is not None and decoded.schema.name == "bank.Payment"
    assert decoded.value.get("kind") == "CREDIT"
    assert decoded.value.get("from").get("country") == "FR"
    assert [a.get("city") for a in decoded.value.get("to")] == ["Köln", "Paris"]
