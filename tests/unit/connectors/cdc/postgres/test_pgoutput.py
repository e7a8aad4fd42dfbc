"""pgoutput version 1 messages decoded from bytes laid out as PostgreSQL's protocol documentation says."""

from __future__ import annotations

import struct

import pytest

from connectors.cdc.postgres.pgoutput import (
    UNCHANGED_TOAST,
    Begin,
    Column,
    Commit,
    Delete,
    Insert,
    LogicalMessage,
    Origin,
    PgOutputError,
    Relation,
    Truncate,
    TypeInfo,
    Update,
    decode,
    format_lsn,
    parse_lsn,
)


def cstring(text: str) -> bytes:
    return text.encode() + b"\0"


def tuple_data(*values: object) -> bytes:
    out = struct.pack(">h", len(values))
    for value in values:
        if value is None:
            out += b"n"
        elif value is UNCHANGED_TOAST:
            out += b"u"
        elif isinstance(value, str):
            out += b"t" + struct.pack(">i", len(value.encode())) + value.encode()
        else:
            assert isinstance(value, bytes)
            out += b"b" + struct.pack(">i", len(value)) + value
    return out


def test_begin_and_commit_carry_the_positions_and_commit_time() -> None:
    begin = b"B" + struct.pack(">QqI", 0x16_B374D848, 786_000_000_123_456, 4711)
    assert decode(begin) == Begin(0x16_B374D848, 786_000_000_123_456, 4711)
    commit = b"C" + struct.pack(">bQQq", 0, 0x16_B374D848, 0x16_B374D878, 786_000_000_123_456)
    assert decode(commit) == Commit(0, 0x16_B374D848, 0x16_B374D878, 786_000_000_123_456)


def test_a_relation_names_its_columns_types_and_key() -> None:
    payload = (
        b"R"
        + struct.pack(">I", 16385)
        + cstring("public")
        + cstring("customers")
        + b"d"
        + struct.pack(">h", 2)
        + b"\x01"
        + cstring("id")
        + struct.pack(">Ii", 23, -1)
        + b"\x00"
        + cstring("name")
        + struct.pack(">Ii", 1043, 255 + 4)
    )
    assert decode(payload) == Relation(
        16385,
        "public",
        "customers",
        "d",
        (Column("id", 23, -1, True), Column("name", 1043, 259, False)),
    )


def test_an_insert_holds_text_nulls_and_binary_values() -> None:
    payload = b"I" + struct.pack(">I", 16385) + b"N" + tuple_data("1001", None, b"\x00\xff", "Grüße")
    assert decode(payload) == Insert(16385, ("1001", None, b"\x00\xff", "Grüße"))


def test_an_update_without_old_values_with_key_values_and_with_the_full_old_row() -> None:
    relid = struct.pack(">I", 7)
    assert decode(b"U" + relid + b"N" + tuple_data("1", "b")) == Update(7, ("1", "b"), None, False)
    key_changed = decode(b"U" + relid + b"K" + tuple_data("1", None) + b"N" + tuple_data("2", "b"))
    assert key_changed == Update(7, ("2", "b"), ("1", None), True)
    full = decode(b"U" + relid + b"O" + tuple_data("1", "a") + b"N" + tuple_data("1", UNCHANGED_TOAST))
    assert full == Update(7, ("1", UNCHANGED_TOAST), ("1", "a"), False)
    assert full.new[1] is UNCHANGED_TOAST


def test_a_delete_holds_the_key_or_the_full_old_row() -> None:
    relid = struct.pack(">I", 7)
    assert decode(b"D" + relid + b"K" + tuple_data("1", None)) == Delete(7, ("1", None), True)
    assert decode(b"D" + relid + b"O" + tuple_data("1", "a")) == Delete(7, ("1", "a"), False)


def test_truncate_origin_type_and_logical_message() -> None:
    truncate = b"T" + struct.pack(">ib", 2, 3) + struct.pack(">II", 7, 8)
    assert decode(truncate) == Truncate(True, True, (7, 8))
    assert decode(b"O" + struct.pack(">Q", 99) + cstring("node_a")) == Origin(99, "node_a")
    assert decode(b"Y" + struct.pack(">I", 16400) + cstring("public") + cstring("mood")) == TypeInfo(
        16400, "public", "mood"
    )
    message = b"M" + b"\x01" + struct.pack(">Q", 123) + cstring("audit") + struct.pack(">i", 3) + b"abc"
    assert decode(message) == LogicalMessage(True, 123, "audit", b"abc")


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"", "empty"),
        (b"S" + struct.pack(">Ib", 1, 1), "unsupported"),  # stream start: never sent to version 1
        (b"B" + struct.pack(">Q", 1), "expected"),  # cut short
        (b"I" + struct.pack(">I", 7) + b"X" + tuple_data("1"), "new tuple"),
        (b"I" + struct.pack(">I", 7) + b"N" + struct.pack(">h", 1) + b"z", "column kind"),
        (b"I" + struct.pack(">I", 7) + b"N" + tuple_data("1") + b"!", "left over"),
        (b"O" + struct.pack(">Q", 99) + b"no-nul", "NUL"),
        (b"D" + struct.pack(">I", 7) + b"N" + tuple_data("1"), "old tuple"),
    ],
)
def test_malformed_or_unsupported_messages_are_refused_with_the_reason(payload: bytes, reason: str) -> None:
    with pytest.raises(PgOutputError, match=reason):
        decode(payload)


def test_lsns_read_and_print_as_postgresql_writes_them() -> None:
    assert format_lsn(0x16_B374D848) == "16/B374D848"
    assert parse_lsn("16/B374D848") == 0x16_B374D848
    assert parse_lsn(format_lsn(0)) == 0
    with pytest.raises(ValueError, match="16/B374D848"):
        parse_lsn("B374D848")
