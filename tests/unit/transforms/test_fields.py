"""The field SMTs on structs (with schema) and maps (schemaless), for keys and values."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from connect.api import ConfigError, DataError, Schema, SchemaType, SinkRecord, SourceRecord, Struct
from connect.api.data import INT32_SCHEMA, INT64_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, TIMESTAMP_SCHEMA
from connect.api.transform import Transformation
from connect.transforms import (
    ExtractFieldKey,
    ExtractFieldValue,
    FlattenValue,
    HoistFieldKey,
    HoistFieldValue,
    InsertFieldKey,
    InsertFieldValue,
    MaskFieldValue,
    ReplaceFieldValue,
    SetSchemaMetadataValue,
    ValueToKey,
)

PERSON = Schema.struct([("id", INT32_SCHEMA), ("name", STRING_SCHEMA), ("email", OPTIONAL_STRING_SCHEMA)])


def person(id_: int = 1, name: str = "ann", email: str | None = "a@x") -> Struct:
    return Struct(PERSON, {"id": id_, "name": name, "email": email})


def sink(value_schema: Schema | None, value: Any, key_schema: Schema | None = None, key: Any = None) -> SinkRecord:
    return SinkRecord("orders", 3, key_schema, key, value_schema, value, kafka_offset=42, timestamp=1_000)


def source(value_schema: Schema | None, value: Any) -> SourceRecord:
    return SourceRecord(None, None, "orders", 3, None, None, value_schema, value, timestamp=1_000)


def configured(cls: type[Transformation[Any]], **configs: str) -> Transformation[Any]:
    t = cls()
    t.configure(configs)
    return t


def applied(t: Transformation[Any], record: Any) -> Any:
    result = t.apply(record)
    assert result is not None
    return result


def fields_of(value: Struct) -> dict[str, Any]:
    return dict(value.items())


# ------------------------------------------------------------------------------------------------ InsertField


def test_insert_field_adds_record_metadata_to_a_struct() -> None:
    t = configured(
        InsertFieldValue,
        **{
            "topic.field": "topic!",
            "partition.field": "partition",
            "offset.field": "offset",
            "timestamp.field": "ts",
            "static.field": "source",
            "static.value": "app",
        },
    )
    out = applied(t, sink(PERSON, person()))
    assert fields_of(out.value) == {
        "id": 1,
        "name": "ann",
        "email": "a@x",
        "topic": "orders",
        "partition": 3,
        "offset": 42,
        "ts": dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC),
        "source": "app",
    }
    schema = out.value_schema
    assert schema is out.value.schema
    assert schema.field("topic").schema == STRING_SCHEMA  # "!" makes it required
    assert schema.field("partition").schema.optional
    assert schema.field("offset").schema.type is SchemaType.INT64
    assert schema.field("ts").schema == TIMESTAMP_SCHEMA.as_optional()


def test_insert_field_on_a_map_and_on_the_key() -> None:
    t = configured(InsertFieldValue, **{"topic.field": "t", "timestamp.field": "ts"})
    assert applied(t, sink(None, {"a": 1})).value == {"a": 1, "t": "orders", "ts": 1000}
    key_t = configured(InsertFieldKey, **{"partition.field": "p"})
    out = applied(key_t, sink(None, None, key={"k": 1}))
    assert out.key == {"k": 1, "p": 3}


def test_insert_field_keeps_tombstones_and_needs_a_sink_record_for_offsets() -> None:
    t = configured(InsertFieldValue, **{"offset.field": "offset"})
    tombstone = sink(None, None)
    assert t.apply(tombstone) is tombstone
    with pytest.raises(DataError, match="Only SinkRecord supported for \\[field insertion\\], found: SourceRecord"):
        t.apply(source(None, {"a": 1}))


def test_insert_field_rejects_a_value_that_is_no_map() -> None:
    t = configured(InsertFieldValue, **{"topic.field": "t"})
    with pytest.raises(DataError, match="Only Map objects supported in absence of schema for \\[field insertion\\]"):
        t.apply(sink(None, "text"))


# ------------------------------------------------------------------------------------------------ ReplaceField


def test_replace_field_include_exclude_and_rename_on_a_struct() -> None:
    t = configured(ReplaceFieldValue, exclude="email", renames="name:full_name,id:person_id")
    out = applied(t, sink(PERSON, person()))
    assert fields_of(out.value) == {"person_id": 1, "full_name": "ann"}
    assert [f.name for f in out.value_schema.fields] == ["person_id", "full_name"]
    only = configured(ReplaceFieldValue, include="id,email")
    assert fields_of(applied(only, sink(PERSON, person())).value) == {"id": 1, "email": "a@x"}


def test_replace_field_on_a_map_and_its_config_errors() -> None:
    t = configured(ReplaceFieldValue, exclude="b", renames="a:x")
    assert applied(t, sink(None, {"a": 1, "b": 2, "c": 3})).value == {"x": 1, "c": 3}
    with pytest.raises(ConfigError, match="Invalid rename mapping: nocolon"):
        configured(ReplaceFieldValue, renames="nocolon")


# ------------------------------------------------------------------------------------------------ MaskField


def test_mask_field_replaces_values_with_the_empty_value_of_their_type() -> None:
    t = configured(MaskFieldValue, fields="id,name")
    out = applied(t, sink(PERSON, person()))
    assert fields_of(out.value) == {"id": 0, "name": "", "email": "a@x"}
    mapped = applied(t, sink(None, {"id": 5, "name": "bob", "other": True}))
    assert mapped.value == {"id": 0, "name": "", "other": True}


def test_mask_field_with_a_replacement() -> None:
    t = configured(MaskFieldValue, fields="name,email", replacement="****")
    assert fields_of(applied(t, sink(PERSON, person(email=None))).value) == {"id": 1, "name": "****", "email": None}
    numeric = configured(MaskFieldValue, fields="id", replacement="-1")
    assert applied(numeric, sink(None, {"id": 5})).value == {"id": -1}
    with pytest.raises(DataError, match="Unable to convert"):
        configured(MaskFieldValue, fields="id", replacement="x").apply(sink(None, {"id": 5}))
    with pytest.raises(ConfigError, match="fields"):
        configured(MaskFieldValue)


# ------------------------------------------------------------------------------------------------ ValueToKey


def test_value_to_key_builds_the_key_from_value_fields() -> None:
    t = configured(ValueToKey, fields="id,name")
    out = applied(t, sink(PERSON, person()))
    assert fields_of(out.key) == {"id": 1, "name": "ann"}
    assert out.key_schema == Schema.struct([("id", INT32_SCHEMA), ("name", STRING_SCHEMA)])
    assert applied(t, sink(None, {"id": 2, "name": "b", "x": 0})).key == {"id": 2, "name": "b"}
    with pytest.raises(DataError, match="Field does not exist: missing"):
        configured(ValueToKey, fields="missing").apply(sink(PERSON, person()))


# ------------------------------------------------------------------------------------------------ ExtractField


def test_extract_field_from_struct_map_and_key() -> None:
    t = configured(ExtractFieldValue, field="name")
    out = applied(t, sink(PERSON, person()))
    assert out.value == "ann" and out.value_schema == STRING_SCHEMA
    assert applied(t, sink(None, {"name": "x"})).value == "x"
    key_t = configured(ExtractFieldKey, field="id")
    assert applied(key_t, sink(None, None, PERSON, person(9))).key == 9
    with pytest.raises(DataError, match="Unknown field: nope"):
        configured(ExtractFieldValue, field="nope").apply(sink(PERSON, person()))


def test_extract_field_nested_paths_need_syntax_v2() -> None:
    outer = Schema.struct([("person", PERSON), ("a.b", INT64_SCHEMA)])
    value = Struct(outer, {"person": person(), "a.b": 7})
    v2 = configured(ExtractFieldValue, field="person.name", **{"field.syntax.version": "V2"})
    assert applied(v2, sink(outer, value)).value == "ann"
    quoted = configured(ExtractFieldValue, field="`a.b`", **{"field.syntax.version": "V2"})
    assert applied(quoted, sink(outer, value)).value == 7
    v1 = configured(ExtractFieldValue, field="a.b")
    assert applied(v1, sink(outer, value)).value == 7
    mapped = applied(v2, sink(None, {"person": {"name": "zed"}}))
    assert mapped.value == "zed"


# ------------------------------------------------------------------------------------------------ HoistField


def test_hoist_field_wraps_the_value_or_key() -> None:
    t = configured(HoistFieldValue, field="line")
    out = applied(t, sink(STRING_SCHEMA, "hello"))
    assert out.value_schema == Schema.struct([("line", STRING_SCHEMA)])
    assert fields_of(out.value) == {"line": "hello"}
    assert applied(t, sink(None, 5)).value == {"line": 5}
    assert applied(configured(HoistFieldKey, field="k"), sink(None, None, None, "id")).key == {"k": "id"}


# ------------------------------------------------------------------------------------------------ Flatten


def test_flatten_struct_with_optional_parents() -> None:
    address = Schema.struct([("city", STRING_SCHEMA), ("zip", INT32_SCHEMA)], optional=True)
    schema = Schema.struct([("id", INT32_SCHEMA), ("address", address)])
    value = Struct(schema, {"id": 1, "address": Struct(address, {"city": "Oslo", "zip": 150})})
    out = applied(configured(FlattenValue, delimiter="_"), sink(schema, value))
    assert fields_of(out.value) == {"id": 1, "address_city": "Oslo", "address_zip": 150}
    assert out.value_schema.field("address_city").schema.optional  # its parent may be null
    assert not out.value_schema.field("id").schema.optional
    empty = applied(configured(FlattenValue), sink(schema, Struct(schema, {"id": 2})))
    assert fields_of(empty.value) == {"id": 2, "address.city": None, "address.zip": None}


def test_flatten_nested_maps() -> None:
    out = applied(configured(FlattenValue), sink(None, {"a": {"b": {"c": 1}, "d": [1, 2]}, "e": None}))
    assert out.value == {"a.b.c": 1, "a.d": [1, 2], "e": None}


# ------------------------------------------------------------------------------------------------ SetSchemaMetadata


def test_set_schema_metadata_renames_the_schema_and_the_struct_follows() -> None:
    t = configured(SetSchemaMetadataValue, **{"schema.name": "com.example.Person", "schema.version": "3"})
    out = applied(t, sink(PERSON, person()))
    assert out.value_schema.name == "com.example.Person" and out.value_schema.version == 3
    assert out.value.schema is out.value_schema
    assert fields_of(out.value) == fields_of(person())
    with pytest.raises(DataError, match="Schema required for \\[updating schema metadata\\]"):
        t.apply(sink(None, {"a": 1}))
    with pytest.raises(ConfigError, match="Neither schema name nor version configured"):
        configured(SetSchemaMetadataValue)
