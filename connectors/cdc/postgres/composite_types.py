"""Enums and arrays as Debezium's `PostgresValueConverter` maps them.

- An enum column is a STRING named `io.debezium.data.Enum` whose parameter `allowed` lists the type's labels
  in their sort order; its value is the label.
- A one-dimensional array of a type Debezium has an array schema for is an ARRAY of that type's schema,
  elements optional (null elements are kept); an array of an enum is an ARRAY of the (required) Enum schema.
  The value is parsed from PostgreSQL's text form (`{a,"b c",NULL}`) and each element decoded as a column
  of the element type would be, but as pgjdbc's `PgArray` hands Debezium times: a `time` element as a
  `java.sql.Time`, to the millisecond (truncated), a `timetz` one to the second. Arrays of intervals, money,
  bit strings, points and xml Debezium does not map (no schema: the column is left out), nor does kconnect;
  nor arrays of more than one dimension or with explicit bounds (a DataError: the table's events stop, never
  a wrong value).

An unchanged TOASTed array is written as Debezium writes it: `[placeholder]` for text arrays, the
placeholder's bytes as numbers for int and bigint arrays (`UnchangedToastedPlaceholder`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from connect.api.data import Schema, SchemaType
from connect.api.errors import DataError
from connectors.cdc.postgres.types import (
    BOOL,
    BPCHAR,
    BYTEA,
    CHAR,
    CIDR,
    DATE,
    FLOAT4,
    FLOAT8,
    INET,
    INT2,
    INT4,
    INT8,
    JSON,
    JSONB,
    MACADDR,
    MACADDR8,
    NUMERIC,
    OID,
    RANGES,
    TEXT,
    TIME,
    TIMESTAMP,
    TIMESTAMPTZ,
    TIMETZ,
    UUID,
    VARCHAR,
    ColumnType,
    Modes,
    column_type,
)

ENUM_NAME = "io.debezium.data.Enum"
# Element types of the arrays mapped here (Debezium's `PostgresValueConverter.schemaBuilder` array cases).
ARRAY_ELEMENTS = frozenset(
    {INT2, INT4, INT8, OID, CHAR, VARCHAR, TEXT, BPCHAR, INET, CIDR, MACADDR, MACADDR8, *RANGES}
    | {NUMERIC, FLOAT4, FLOAT8, BOOL, UUID, JSON, JSONB, DATE, TIME, TIMETZ, TIMESTAMP, TIMESTAMPTZ, BYTEA}
)
_FRACTION = re.compile(r"(\d{2}:\d{2}:\d{2})\.(\d+)")


def _to_millis(text: str) -> str:
    """A time's text cut to milliseconds, as a `java.sql.Time` holds it."""
    return _FRACTION.sub(lambda found: f"{found.group(1)}.{found.group(2)[:3]}", text, count=1)


def _to_seconds(text: str) -> str:
    """A timetz's text without its fraction, as `java.sql.Time.toLocalTime` gives it."""
    return _FRACTION.sub(lambda found: found.group(1), text, count=1)


# What an element's text becomes before its type's decoder reads it (the precision Debezium's array path keeps).
_ELEMENT_TEXT: dict[int, Callable[[str], str]] = {TIME: _to_millis, TIMETZ: _to_seconds}


def column_kind(
    oid: int, typmod: int, modes: Modes, element_oid: int | None = None, enum_labels: Sequence[str] | None = None
) -> ColumnType | None:
    """A column's type: an array's (`element_oid`), an enum's (`enum_labels`), else `types.column_type`'s."""
    if element_oid is not None:
        return array_type(element_oid, typmod, modes, enum_labels)
    if enum_labels is not None:
        return enum_type(enum_labels)
    return column_type(oid, typmod, modes)


def enum_schema(labels: Sequence[str]) -> Schema:
    return Schema(SchemaType.STRING, name=ENUM_NAME, version=1, parameters={"allowed": ",".join(labels)})


def enum_type(labels: Sequence[str]) -> ColumnType:
    return ColumnType(enum_schema(labels), str, "")


def array_type(element_oid: int, typmod: int, modes: Modes, enum_labels: Sequence[str] | None) -> ColumnType | None:
    """The type of an array of `element_oid` (its elements' modifier `typmod`); None if not mapped."""
    decode: Callable[[str], Any]
    if enum_labels is not None:
        element_schema, decode = enum_schema(enum_labels), str
    elif element_oid in ARRAY_ELEMENTS:
        element = column_type(element_oid, typmod, modes)
        if element is None:
            return None
        element = element.optional()
        element_schema, decode = element.schema, element.decode
        narrowed = _ELEMENT_TEXT.get(element_oid)
        if narrowed is not None:
            decode = _narrowed(narrowed, element.decode)
    else:
        return None
    return ColumnType(Schema(SchemaType.ARRAY, value_schema=element_schema), _elements(decode), [])


def _narrowed(narrow: Callable[[str], str], decode: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: decode(narrow(text))


def _elements(decode: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    def decode_array(text: str) -> list[Any]:
        return [None if item is None else decode(item) for item in parse_array(text)]

    return decode_array


def parse_array(text: str) -> list[str | None]:
    """The elements of a one-dimensional array in PostgreSQL's text output (`array_out`): `{}`, `{1,2}`,
    `{a,"b c","d\\"e",NULL}`; a quoted "NULL" is the string."""
    if not (text.startswith("{") and text.endswith("}")):
        raise DataError(f"arrays with explicit bounds are not supported yet: {text[:40]}")
    body, at = text[1:-1], 0
    items: list[str | None] = []
    if not body:
        return []
    while True:
        if body.startswith("{", at):
            raise DataError("arrays of more than one dimension are not supported yet")
        if body.startswith('"', at):
            value, at = _quoted(body, at + 1)
            items.append(value)
        else:
            end = body.find(",", at)
            end = len(body) if end < 0 else end
            raw = body[at:end]
            items.append(None if raw.upper() == "NULL" else raw)  # array_out quotes anything with a backslash
            at = end
        if at >= len(body):
            return items
        if body[at] != ",":
            raise DataError(f"unexpected {body[at]!r} in array {text[:40]}")
        at += 1


def _quoted(body: str, at: int) -> tuple[str, int]:
    out: list[str] = []
    while at < len(body):
        char = body[at]
        if char == "\\":
            out.append(body[at + 1])
            at += 2
        elif char == '"':
            return "".join(out), at + 1
        else:
            out.append(char)
            at += 1
    raise DataError("unterminated quoted array element")


def array_placeholder(schema: Schema, placeholder: str) -> list[Any] | None:
    """Debezium's value for an unchanged TOASTed array, or None where it has none."""
    element = schema.value_schema
    if element is None:
        return None
    if element.type is SchemaType.STRING:
        return [placeholder]
    if element.type in (SchemaType.INT32, SchemaType.INT64):
        return list(placeholder.encode())
    return None
