"""Strings <-> typed values, as Kafka's `Values.parseString`/`convertToString` (headers, InsertHeader).

Parsing infers the narrowest type: booleans, integers (INT8..INT64, larger ones as Decimal),
decimals (FLOAT32, else FLOAT64), ISO dates/times/timestamps in Kafka's formats, else STRING.
Pure functions; any thread.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from connect.api.data import (
    BOOLEAN_SCHEMA,
    DATE_NAME,
    DATE_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    TIME_NAME,
    TIME_SCHEMA,
    TIMESTAMP_NAME,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaAndValue,
    Struct,
)
from connect.converters import logical

_INTEGER = re.compile(r"[+-]?\d+")
_DECIMAL = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}\.\d{3}Z")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")
_INT_SCHEMAS = ((8, INT8_SCHEMA), (16, INT16_SCHEMA), (32, INT32_SCHEMA), (64, INT64_SCHEMA))
_FLOAT32_MAX = 3.4028234663852886e38


def parse_string(text: str) -> SchemaAndValue:
    """The typed value a string most likely holds, with its schema."""
    stripped = text.strip()
    if not stripped:
        return SchemaAndValue(STRING_SCHEMA, text)
    lowered = stripped.lower()
    if lowered in ("true", "false"):
        return SchemaAndValue(BOOLEAN_SCHEMA, lowered == "true")
    if _INTEGER.fullmatch(stripped):
        number = int(stripped)
        for bits, schema in _INT_SCHEMAS:
            if -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
                return SchemaAndValue(schema, number)
        return SchemaAndValue(Schema.decimal(0), Decimal(number))
    if _DECIMAL.fullmatch(stripped):
        try:
            value = float(stripped)
        except ValueError:  # pragma: no cover - the pattern only admits what float() reads
            return SchemaAndValue(STRING_SCHEMA, text)
        if abs(value) <= _FLOAT32_MAX:
            return SchemaAndValue(FLOAT32_SCHEMA, value)
        if value not in (float("inf"), float("-inf")):
            return SchemaAndValue(FLOAT64_SCHEMA, value)
        try:
            exact = Decimal(stripped)
        except InvalidOperation:  # pragma: no cover
            return SchemaAndValue(STRING_SCHEMA, text)
        exponent = exact.as_tuple().exponent
        return SchemaAndValue(Schema.decimal(-exponent if isinstance(exponent, int) else 0), exact)
    temporal = _parse_temporal(stripped)
    return temporal if temporal is not None else SchemaAndValue(STRING_SCHEMA, text)


def _parse_temporal(text: str) -> SchemaAndValue | None:
    try:
        if _TIMESTAMP.fullmatch(text):
            parsed = dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
            return SchemaAndValue(TIMESTAMP_SCHEMA, parsed)
        if _DATE.fullmatch(text):
            return SchemaAndValue(DATE_SCHEMA, dt.date.fromisoformat(text))
        if _TIME.fullmatch(text):
            return SchemaAndValue(TIME_SCHEMA, dt.datetime.strptime(text, "%H:%M:%S.%fZ").time())
    except ValueError:
        return None
    return None


def convert_to_string(schema: Schema | None, value: Any) -> str | None:
    """A value's string form: the inverse of `parse_string` for the types it infers."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and schema is not None and schema.name in (DATE_NAME, TIME_NAME, TIMESTAMP_NAME):
        value = _logical_from_int(schema.name, value)
    if isinstance(value, dt.datetime):
        utc = value.astimezone(dt.UTC) if value.tzinfo else value
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return value.strftime("%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    if isinstance(value, int | float | Decimal):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Struct):
        value = dict(value.items())
    return orjson.dumps(value, default=_json_default).decode()


def _logical_from_int(name: str | None, value: int) -> Any:
    if name == DATE_NAME:
        return logical.days_to_date(value)
    if name == TIME_NAME:
        return logical.millis_to_time(value)
    return logical.millis_to_timestamp(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, Struct):
        return dict(value.items())
    return convert_to_string(None, value)
