"""Column defaults in the event schemas, as Debezium's `PostgresDefaultValueConverter` reads them from the
default expressions (`pg_get_expr` of `pg_attrdef`, what pgjdbc reports as COLUMN_DEF).

Debezium maps an expression only for some types, and only a literal: `123`, `'abc'::text`, `true`,
`'2020-01-01'::date`, `'happy'::mood`. A function call (`nextval(...)`, `now()`, ...) or `CURRENT_DATE` and
its kin stand for a generated value, for which it writes a placeholder default instead (0, "", "{}",
1970-01-01, ...); `NULL::type` or an expression it cannot parse (e.g. a generated column's) means no default.
The value is then converted as a column value of the type is, so a default is in the schema exactly as a
value would be in the payload. A struct (a variable-scale numeric) is never a default (KAFKA-12694).

An interval's default is read as the column's values are (PostgreSQL prints the literal in its output
form, `'1 day 02:00:00'::interval`); a generated one is Debezium's placeholder `epoch`, which pgjdbc's
PGInterval reads as a zero interval.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

from connect.api.data import SchemaType
from connectors.cdc.postgres.types import (
    BIT,
    BOOL,
    BPCHAR,
    DATE,
    FLOAT4,
    FLOAT8,
    INT2,
    INT4,
    INT8,
    INTERVAL,
    JSON,
    JSONB,
    NUMERIC,
    TEXT,
    TIME,
    TIMESTAMP,
    TIMESTAMPTZ,
    UUID,
    VARBIT,
    VARCHAR,
    XML,
    ColumnType,
)

_LITERAL = re.compile(r"'(.*?)'")
# Debezium's `FUNCTION_DEFAULT_PATTERN` (PostgresDefaultValueConverter, PostgresConnection): a function call.
FUNCTION_CALL = re.compile(r"^[(]?[A-Za-z0-9_.]+\((?:.+(?:, ?.+)*)?\)")
_CURRENT_DATE_TIMES = frozenset({"current_timestamp", "current_time", "current_date", "localtime", "localtimestamp"})
_TRIMMED = frozenset(
    {BIT, VARBIT, BOOL, NUMERIC, FLOAT4, FLOAT8, INT2, INT4, INT8, UUID, DATE, TIME, TIMESTAMP, TIMESTAMPTZ}
)
# Type → (placeholder for a generated value, whether `NULL::type` means none before anything else).
_MAPPED: dict[int, tuple[str, bool]] = {
    # `B'101'::"bit"`; a generated bit string is taken for one longer than a bit (a boolean only at one).
    BIT: ("00", False),
    VARBIT: ("0", False),
    BOOL: ("false", True),
    BPCHAR: ("", False),
    VARCHAR: ("", False),
    TEXT: ("", False),
    NUMERIC: ("0.0", True),
    FLOAT4: ("0.0", True),
    FLOAT8: ("0.0", True),
    INT2: ("0", True),
    INT4: ("0", True),
    INT8: ("0", True),
    JSON: ("{}", False),
    JSONB: ("{}", False),
    XML: ("", False),
    UUID: ("00000000-0000-0000-0000-000000000000", False),
    DATE: ("1970-01-01", False),
    TIME: ("00:00", False),
    TIMESTAMP: ("1970-01-01", False),
    TIMESTAMPTZ: ("1970-01-01", False),
    INTERVAL: ("epoch", False),
}


def _literal(expression: str) -> str | None:
    """`extractDefault`: a raw value as it is, a type-cast one from inside its quotes; None for `NULL::`."""
    if "'" not in expression:
        return None if expression.startswith("NULL::") else expression
    match = _LITERAL.search(expression)
    return match.group(1) if match else None


def _extracted(expression: str, placeholder: str) -> str | None:
    if FUNCTION_CALL.search(expression) or expression.lower() in _CURRENT_DATE_TIMES:
        return placeholder
    return _literal(expression)


def _java_boolean(text: str) -> bool:
    return text.lower() == "true"  # Boolean.parseBoolean


def default_value(type_oid: int, expression: str | None, kind: ColumnType, enum: tuple[str, str] | None = None) -> Any:
    """The schema default of a column of `type_oid` whose default expression is `expression`, in `kind` (the
    column's type); None for none. `enum`: an enum column's (schema, type name)."""
    if expression is None:
        return None
    if enum is not None:
        return _enum_default(expression, *enum)
    mapped = _MAPPED.get(type_oid)
    if mapped is None or kind.schema.type is SchemaType.STRUCT:
        return None
    placeholder, null_first = mapped
    if type_oid in _TRIMMED:
        expression = expression.strip()
    if null_first and expression.startswith("NULL::"):
        return None
    text = _extracted(expression, placeholder)
    if text is None:
        return None
    try:
        parse = _PARSE.get(type_oid)
        value = parse(text) if parse is not None else kind.decode(_AS_OUTPUT.get(type_oid, _same)(text))
    except (ValueError, ArithmeticError):  # Debezium: "Cannot parse column default value": no default
        return None
    return value


def _enum_default(expression: str, schema: str, type_name: str) -> str | None:
    """`extractEnumDefault`: `'label'::type` (the cast naming the column's type, schema or not) → label."""
    cast = expression.rfind("::")
    if cast < 0:
        return None
    suffix = expression[cast + 2 :].replace('"', "")
    suffix_schema, _, suffix_name = suffix.rpartition(".")
    if suffix_name != type_name or (suffix_schema and suffix_schema != schema):
        return None
    value = expression[:cast]
    return value[1:-1] if len(value) >= 2 and value.startswith("'") and value.endswith("'") else None


def _same(text: str) -> str:
    return text


def _whole_time(text: str) -> str:
    return text + ":00" if re.fullmatch(r"\d{2}:\d{2}", text) else text


def _midnight(text: str) -> str:
    return text + " 00:00:00" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else text


def _midnight_utc(text: str) -> str:
    return text + " 00:00:00+00" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else text


# Temporal placeholders in the form of PostgreSQL's output of a value (pgjdbc's `TimestampUtils` reads a
# date alone as midnight UTC, a time without seconds as whole seconds), for the column's own decoder.
_AS_OUTPUT: dict[int, Callable[[str], str]] = {
    TIME: _whole_time,
    TIMESTAMP: _midnight,
    TIMESTAMPTZ: _midnight_utc,
    INTERVAL: lambda text: "00:00:00" if text == "epoch" else text,
}

# Types whose default text is parsed as Debezium's mapper parses it, not as PostgreSQL's output of a value.
_PARSE: dict[int, Callable[[str], Any]] = {
    BOOL: _java_boolean,
    UUID: lambda text: str(uuid.UUID(text)),
}
