"""pgoutput's logical replication messages, protocol version 1, decoded from their bytes.

PostgreSQL's "Logical Replication Message Formats": one message per XLogData payload, a tag byte, then
big-endian integers and NUL-terminated strings. Version 1 is what Debezium's `PgOutputMessageDecoder`
asks for and what this connector asks for too: transactions arrive whole, after their commit, so no
message carries the in-stream transaction id of the later versions. Pure functions of bytes: no
connection, no clock.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final


class PgOutputError(ValueError):
    """Bytes that are not a pgoutput version 1 message."""


class _UnchangedToast:
    """A TOASTed column the update did not touch: PostgreSQL does not send its value (Debezium writes
    `unavailable.value.placeholder` in its place)."""

    def __repr__(self) -> str:
        return "UNCHANGED_TOAST"


UNCHANGED_TOAST: Final = _UnchangedToast()

# A column's value: None for SQL NULL, text in PostgreSQL's output format, bytes in its binary format
# (only when the `binary` option is on), or UNCHANGED_TOAST.
Value = str | bytes | _UnchangedToast | None
Tuple = tuple[Value, ...]


@dataclass(frozen=True)
class Begin:
    final_lsn: int  # the LSN of the transaction's commit record
    commit_time_us: int  # microseconds since 2000-01-01 00:00 UTC
    xid: int


@dataclass(frozen=True)
class Commit:
    flags: int
    commit_lsn: int
    end_lsn: int  # the LSN just past the commit record: where a resumed stream starts
    commit_time_us: int


@dataclass(frozen=True)
class Origin:
    commit_lsn: int
    name: str


@dataclass(frozen=True)
class Column:
    name: str
    type_oid: int
    type_modifier: int  # -1: none; varchar(n) sends n + 4
    part_of_key: bool  # in the replica identity


@dataclass(frozen=True)
class Relation:
    relation_id: int
    namespace: str  # "" stands for pg_catalog
    name: str
    replica_identity: str  # "d" default, "n" nothing, "f" full, "i" index
    columns: tuple[Column, ...]


@dataclass(frozen=True)
class TypeInfo:
    """A non-built-in type, sent before the first Relation that uses it."""

    type_oid: int
    namespace: str
    name: str


@dataclass(frozen=True)
class Insert:
    relation_id: int
    new: Tuple


@dataclass(frozen=True)
class Update:
    relation_id: int
    new: Tuple
    old: Tuple | None  # None: the replica identity did not change and is not FULL
    old_is_key_only: bool  # the old tuple holds only the replica identity's columns (others NULL)


@dataclass(frozen=True)
class Delete:
    relation_id: int
    old: Tuple
    old_is_key_only: bool


@dataclass(frozen=True)
class Truncate:
    cascade: bool
    restart_identity: bool
    relation_ids: tuple[int, ...]


@dataclass(frozen=True)
class LogicalMessage:
    """`pg_logical_emit_message`: sent with the `messages` option."""

    transactional: bool
    lsn: int
    prefix: str
    content: bytes


Message = Begin | Commit | Origin | Relation | TypeInfo | Insert | Update | Delete | Truncate | LogicalMessage

_TRUNCATE_CASCADE = 1
_TRUNCATE_RESTART_IDENTITY = 2


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._at = 0

    def _unpack(self, fmt: str) -> int:
        size = struct.calcsize(fmt)
        if self._at + size > len(self._data):
            raise PgOutputError(f"message ends at byte {len(self._data)}, expected {size} more at {self._at}")
        (value,) = struct.unpack_from(fmt, self._data, self._at)
        self._at += size
        return int(value)

    def int8(self) -> int:
        return self._unpack(">b")

    def byte(self) -> str:
        return chr(self._unpack(">B"))

    def int16(self) -> int:
        return self._unpack(">h")

    def int32(self) -> int:
        return self._unpack(">i")

    def uint32(self) -> int:
        return self._unpack(">I")

    def int64(self) -> int:
        return self._unpack(">q")

    def uint64(self) -> int:
        return self._unpack(">Q")

    def string(self) -> str:
        end = bytes(self._data[self._at :]).find(b"\0")
        if end < 0:
            raise PgOutputError(f"string at byte {self._at} has no terminating NUL")
        value = bytes(self._data[self._at : self._at + end]).decode()
        self._at += end + 1
        return value

    def raw(self, length: int) -> bytes:
        if length < 0 or self._at + length > len(self._data):
            raise PgOutputError(f"{length} bytes at byte {self._at} run past the message's end")
        value = bytes(self._data[self._at : self._at + length])
        self._at += length
        return value

    def end(self) -> None:
        if self._at != len(self._data):
            raise PgOutputError(f"{len(self._data) - self._at} bytes left over after the message")

    def tuple_data(self) -> Tuple:
        values: list[Value] = []
        for _ in range(self.int16()):
            kind = self.byte()
            if kind == "n":
                values.append(None)
            elif kind == "u":
                values.append(UNCHANGED_TOAST)
            elif kind == "t":
                values.append(self.raw(self.int32()).decode())
            elif kind == "b":
                values.append(self.raw(self.int32()))
            else:
                raise PgOutputError(f"unknown column kind {kind!r} in tuple data")
        return tuple(values)


def _relation(reader: _Reader) -> Relation:
    relation_id, namespace, name = reader.uint32(), reader.string(), reader.string()
    identity = reader.byte()
    columns = []
    for _ in range(reader.int16()):
        flags = reader.int8()
        columns.append(Column(reader.string(), reader.uint32(), reader.int32(), bool(flags & 1)))
    return Relation(relation_id, namespace, name, identity, tuple(columns))


def _old_tuple(reader: _Reader) -> tuple[Tuple, bool]:
    """An Update's or Delete's old tuple: `K` holds the key columns only, `O` the whole old row."""
    kind = reader.byte()
    if kind not in ("K", "O"):
        raise PgOutputError(f"expected an old tuple (K or O), got {kind!r}")
    return reader.tuple_data(), kind == "K"


def _new_tuple(reader: _Reader, kind: str | None = None) -> Tuple:
    kind = kind if kind is not None else reader.byte()
    if kind != "N":
        raise PgOutputError(f"expected a new tuple (N), got {kind!r}")
    return reader.tuple_data()


def _update(reader: _Reader) -> Update:
    relation_id = reader.uint32()
    kind = reader.byte()
    if kind == "N":
        return Update(relation_id, _new_tuple(reader, kind), None, False)
    if kind not in ("K", "O"):
        raise PgOutputError(f"expected K, O or N in an update, got {kind!r}")
    old = reader.tuple_data()
    return Update(relation_id, _new_tuple(reader), old, kind == "K")


def _truncate(reader: _Reader) -> Truncate:
    count, options = reader.int32(), reader.int8()
    ids = tuple(reader.uint32() for _ in range(count))
    return Truncate(bool(options & _TRUNCATE_CASCADE), bool(options & _TRUNCATE_RESTART_IDENTITY), ids)


def _message(reader: _Reader) -> LogicalMessage:
    transactional, lsn, prefix = bool(reader.int8() & 1), reader.uint64(), reader.string()
    return LogicalMessage(transactional, lsn, prefix, reader.raw(reader.int32()))


def decode(payload: bytes) -> Message:
    """The message in one XLogData payload; PgOutputError for anything else (streamed or two-phase
    transactions included: version 1 never sends them)."""
    if not payload:
        raise PgOutputError("empty message")
    reader = _Reader(payload)
    tag = reader.byte()
    message: Message
    if tag == "B":
        message = Begin(reader.uint64(), reader.int64(), reader.uint32())
    elif tag == "C":
        message = Commit(reader.int8(), reader.uint64(), reader.uint64(), reader.int64())
    elif tag == "O":
        message = Origin(reader.uint64(), reader.string())
    elif tag == "R":
        message = _relation(reader)
    elif tag == "Y":
        message = TypeInfo(reader.uint32(), reader.string(), reader.string())
    elif tag == "I":
        message = Insert(reader.uint32(), _new_tuple(reader))
    elif tag == "U":
        message = _update(reader)
    elif tag == "D":
        relation_id = reader.uint32()
        old, key_only = _old_tuple(reader)
        message = Delete(relation_id, old, key_only)
    elif tag == "T":
        message = _truncate(reader)
    elif tag == "M":
        message = _message(reader)
    else:
        raise PgOutputError(f"unknown or unsupported pgoutput message {tag!r} (protocol version 1 is spoken)")
    reader.end()
    return message


def format_lsn(lsn: int) -> str:
    """PostgreSQL's notation: the high and low 32 bits in hex, `16/B374D848`."""
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def parse_lsn(text: str) -> int:
    high, sep, low = text.partition("/")
    if not sep:
        raise ValueError(f"not an LSN: {text!r} (expected the form 16/B374D848)")
    return (int(high, 16) << 32) | int(low, 16)
