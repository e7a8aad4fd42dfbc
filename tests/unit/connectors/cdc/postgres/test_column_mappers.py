"""Debezium's column mappers: masks, salted hashes (with Debezium's own test vectors) and truncation, which
column takes which, and what they do to a table's events and schemas."""

from __future__ import annotations

import hashlib

from connect.api.data import Struct
from connectors.cdc.column_mappers import (
    ColumnMappers,
    Hash,
    MappedColumn,
    Mask,
    Truncate,
    java_serialized,
    mapper_key_problem,
)
from connectors.cdc.envelope import Operation
from connectors.cdc.postgres.events import ColumnInfo, EventContext, TableEvents, TableInfo
from connectors.cdc.postgres.source_info import ChangePosition, SourceInfo
from connectors.cdc.postgres.types import INT4, TEXT, VARCHAR, column_length

TEXT_COLUMN = MappedColumn(character=True, length=2**31 - 1)


def test_hashes_match_debeziums_own_vectors_for_both_versions() -> None:
    # io.debezium.relational.mapping.MaskStringsTest
    v1_sha = Hash("sha256", b"salt", v2=False).converter(TEXT_COLUMN)
    v1_md5 = Hash("md5", b"salt", v2=False).converter(TEXT_COLUMN)
    v2_sha = Hash("sha256", b"salt", v2=True).converter(TEXT_COLUMN)
    v2_md5 = Hash("md5", b"salt", v2=True).converter(TEXT_COLUMN)
    assert v1_sha is not None and v1_md5 is not None and v2_sha is not None and v2_md5 is not None
    assert v1_sha("hello") == "af5843a0f0e728ab0332c8888b6e1190bfb79e584f0d40538de8f10df6ef29c6"
    assert v1_sha("world") == "4588e1f2dcdc7fefc1515d3acd5acb9033478eace68286f383c337b9ff4464a3"
    assert v1_md5("hello") == "46f48a7a5ea32efba87cbff49d46d35a"
    assert v1_md5("world") == "030f632140d9c9591b0d8c21098024b8"
    assert v2_sha("hello") == "cd31b3b98ece60cb739c0bf770b2de892ae0ad133f645513c3d83f08757a843a"
    assert v2_md5("world") == "172c8e95398cc72ab5358ead6981e7e5"
    assert v1_sha(None) is None


def test_java_serializes_a_string_in_modified_utf8() -> None:
    assert java_serialized("hi") == b"\xac\xed\x00\x05\x74\x00\x02hi"
    # NUL takes two bytes; a character beyond the BMP is two surrogates of three bytes each
    assert java_serialized("a\x00😀") == b"\xac\xed\x00\x05\x74\x00\x09a\xc0\x80\xed\xa0\xbd\xed\xb8\x80"
    long = "x" * 70000
    assert java_serialized(long)[:13] == b"\xac\xed\x00\x05\x7c" + (70000).to_bytes(8, "big")


def test_a_hash_is_cut_to_the_column_length_and_other_types_pass_through() -> None:
    holder = Hash("sha256", b"s", v2=True).converter(MappedColumn(True, column_length(VARCHAR, 10 + 4)))
    assert holder is not None and holder("ann") == hashlib.sha256(b"sann").hexdigest()[:10]
    assert Hash("sha256", b"s", v2=True).converter(MappedColumn(False, 10)) is None
    assert Mask(3).converter(MappedColumn(False, 10)) is None
    assert Mask(3).parameters(MappedColumn(False, 10)) == {"masked": "true"}, "as Debezium: whatever the type"


def test_a_mask_replaces_every_value_null_included() -> None:
    mask = Mask(4).converter(TEXT_COLUMN)
    assert mask is not None and mask("secret") == "****" and mask(None) == "****"


def test_truncation_counts_java_chars_and_only_where_the_column_may_be_longer() -> None:
    cut = Truncate(3).converter(TEXT_COLUMN)
    assert cut is not None
    assert (
        cut("abcdef") == "abc"
        and cut("ab") == "ab"
        and cut(None) is None
        and cut(b"\x01\x02\x03\x04") == b"\x01\x02\x03"
    )
    assert cut("a😀b") == "a😀", "the emoji is two UTF-16 units"
    assert cut("ab😀") == "ab", "a surrogate pair is never split"
    short = MappedColumn(True, column_length(VARCHAR, 2 + 4))
    assert Truncate(3).converter(short) is None and Truncate(3).parameters(short) == {}
    assert Truncate(3).parameters(TEXT_COLUMN) == {"truncateLength": "3"}


def test_the_first_kind_registered_wins_and_keys_are_checked() -> None:
    mappers = ColumnMappers.from_config(
        {
            "column.mask.hash.SHA-256.with.salt.x": "public.t.a",
            "column.mask.with.3.chars": "public.t.a,public.t.b",
            "column.truncate.to.2.chars": "PUBLIC.T.B",
            "column.include.list": "public.t.c",
        }
    )
    assert mappers.mapper_for("public.t.a") == Mask(3)
    assert mappers.mapper_for("public.t.b") == Truncate(2), "truncations come first, names regardless of case"
    assert mappers.mapper_for("public.t.c") is None
    assert mapper_key_problem("column.mask.hash.v2.sha3-256.with.salt.x") is None
    assert "MessageDigest" in (mapper_key_problem("column.mask.hash.WHIRLPOOL.with.salt.x") or "")
    assert "none of" in (mapper_key_problem("column.mask.with.five.chars") or "")


def test_table_events_carry_mapped_values_and_schema_parameters_but_keys_stay_as_they_are() -> None:
    table = TableInfo(
        "public",
        "t",
        (ColumnInfo("id", INT4, -1, False), ColumnInfo("name", TEXT, -1, True), ColumnInfo("note", TEXT, -1, True)),
        ("id",),
    )
    mappers = ColumnMappers.from_config(
        {"column.mask.with.2.chars": "public.t.name", "column.truncate.to.1.chars": "public.t.id,public.t.note"}
    )
    events = TableEvents(table, "p.public.t", mappers=mappers)
    at = EventContext(SourceInfo("1", "p", "db").struct("public", "t", ChangePosition(1, 2, 3, 3)), 0)
    (record,) = events.insert(("12", "ann", "first"), at)

    assert isinstance(record.value, Struct) and isinstance(record.key, Struct)
    assert record.value.get("op") == Operation.CREATE.value
    assert dict(record.value.get("after").items()) == {"id": 12, "name": "**", "note": "f"}
    assert record.key.get("id") == 12
    fields = {f.name: f.schema.parameters for f in events.value_schema.fields}
    assert fields == {"id": {"truncateLength": "1"}, "name": {"masked": "true"}, "note": {"truncateLength": "1"}}
    assert events.key_schema is not None and events.key_schema.fields[0].schema.parameters is None
