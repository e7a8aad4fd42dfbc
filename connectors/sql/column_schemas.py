"""Connect schemas for database columns, and the functions that turn column values into Connect values.

Mapping (Confluent's `GenericDatabaseDialect.addFieldToSchema`, by SQLAlchemy's reflected types):
TINYINT → int8, SMALLINT → int16, INTEGER → int32 (unsigned: int64), BIGINT → int64, REAL/FLOAT(≤24)
→ float32, DOUBLE → float64, BOOLEAN → boolean, NUMERIC/DECIMAL → per `numeric.mapping`, text types
→ string, binary → bytes, DATE → Date, TIME → Time, TIMESTAMP/DATETIME → Timestamp (values without a
zone are read in `db.timezone`). A column of a type with no Connect equivalent is left out of the
records with a warning, as Confluent does. Nullable columns get optional schemas.

A query's result columns carry no declared types on every database, so query mode types each column
from the first value it sees instead (`schema_for_value`), optional throughout.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from connect.api.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    DATE_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
)
from connectors.sql.source_config import NUMERIC_BEST_FIT, NUMERIC_BEST_FIT_EAGER_DOUBLE, NUMERIC_PRECISION_ONLY

log = logging.getLogger(__name__)

ValueFn = Callable[[Any], Any]


@dataclass(frozen=True)
class ColumnMapping:
    """How one column becomes one field: its schema (before optionality) and the value conversion."""

    schema: Schema
    convert: ValueFn


def _same(value: Any) -> Any:
    return value


def _to_int(value: Any) -> Any:
    return int(value)


def _to_float(value: Any) -> Any:
    return float(value)


def _to_bool(value: Any) -> Any:
    return bool(value)


def _to_bytes(value: Any) -> Any:
    return bytes(value)


def _to_str(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _decimal(scale: int) -> ValueFn:
    exponent = decimal.Decimal(1).scaleb(-scale)

    def convert(value: Any) -> Any:
        return decimal.Decimal(value).quantize(exponent)

    return convert


def _date(value: Any) -> Any:
    return value.date() if isinstance(value, dt.datetime) else value


def _time(value: Any) -> Any:
    if isinstance(value, dt.timedelta):  # MariaDB/MySQL TIME comes back as a duration since midnight
        return (dt.datetime.min + value).time()
    return value


def timestamp_reader(zone: dt.tzinfo) -> ValueFn:
    """An instant (aware, UTC) from a database timestamp: values without a zone are in `db.timezone`."""

    def convert(value: Any) -> Any:
        if isinstance(value, dt.datetime):
            aware = value if value.tzinfo is not None else value.replace(tzinfo=zone)
            return aware.astimezone(dt.UTC)
        if isinstance(value, str):  # SQLite without a declared type stores ISO text
            return convert(dt.datetime.fromisoformat(value))
        return value

    return convert


def column_mapping(
    column_type: Any, numeric_mapping: str | None, zone: dt.tzinfo, dialect: str
) -> ColumnMapping | None:
    """The mapping of a reflected column type, or None when Connect has no equivalent."""
    t = column_type
    if isinstance(t, sa.Boolean):
        return ColumnMapping(BOOLEAN_SCHEMA, _to_bool)
    if isinstance(t, mysql.TINYINT):
        if getattr(t, "display_width", None) == 1 and dialect in ("mysql", "mariadb"):
            return ColumnMapping(BOOLEAN_SCHEMA, _to_bool)  # MariaDB's BOOLEAN is TINYINT(1)
        return ColumnMapping(INT16_SCHEMA if getattr(t, "unsigned", False) else INT8_SCHEMA, _to_int)
    if isinstance(t, sa.Integer):
        return _integer(t)
    if isinstance(t, sa.Float):
        return _floating(t, dialect)
    if isinstance(t, sa.Numeric):
        return _numeric(t, numeric_mapping)
    if isinstance(t, sa.DateTime):
        return ColumnMapping(TIMESTAMP_SCHEMA, timestamp_reader(zone))
    if isinstance(t, sa.Date):
        return ColumnMapping(DATE_SCHEMA, _date)
    if isinstance(t, sa.Time):
        return ColumnMapping(TIME_SCHEMA, _time)
    if isinstance(t, sa.String | sa.Enum | sa.JSON | sa.Uuid):
        return ColumnMapping(STRING_SCHEMA, _to_str)
    if isinstance(t, sa.LargeBinary | sa.types._Binary):
        return ColumnMapping(BYTES_SCHEMA, _to_bytes)
    return None


def _integer(t: sa.Integer) -> ColumnMapping:
    unsigned = getattr(t, "unsigned", False)
    if isinstance(t, sa.BigInteger):
        return ColumnMapping(INT64_SCHEMA, _to_int)
    if isinstance(t, sa.SmallInteger):
        return ColumnMapping(INT32_SCHEMA if unsigned else INT16_SCHEMA, _to_int)
    return ColumnMapping(INT64_SCHEMA if unsigned else INT32_SCHEMA, _to_int)


def _floating(t: sa.Float[Any], dialect: str) -> ColumnMapping:
    single = isinstance(t, sa.REAL) or (t.precision is not None and t.precision <= 24)
    if isinstance(t, sa.Double | sa.DOUBLE_PRECISION) or dialect == "sqlite":
        single = False  # SQLite's REAL is an 8-byte float
    return ColumnMapping(FLOAT32_SCHEMA if single else FLOAT64_SCHEMA, _to_float)


def _numeric(t: sa.Numeric[Any], mapping: str | None) -> ColumnMapping:
    precision, scale = t.precision, t.scale
    if precision is None:
        # Unconstrained NUMERIC (PostgreSQL) has no fixed scale, which a Connect Decimal needs.
        return ColumnMapping(FLOAT64_SCHEMA, _to_float)
    scale = scale or 0
    integral = mapping in (NUMERIC_PRECISION_ONLY, NUMERIC_BEST_FIT, NUMERIC_BEST_FIT_EAGER_DOUBLE) and scale == 0
    if integral and precision <= 18:
        schema = (
            INT8_SCHEMA
            if precision < 3
            else INT16_SCHEMA
            if precision < 5
            else INT32_SCHEMA
            if precision < 10
            else INT64_SCHEMA
        )
        return ColumnMapping(schema, _to_int)
    if mapping == NUMERIC_BEST_FIT_EAGER_DOUBLE and scale > 0:
        return ColumnMapping(FLOAT64_SCHEMA, _to_float)
    if mapping == NUMERIC_BEST_FIT and scale > 0 and precision <= 15:
        return ColumnMapping(FLOAT64_SCHEMA, _to_float)
    return ColumnMapping(Schema.decimal(scale), _decimal(scale))


def schema_for_value(value: Any, zone: dt.tzinfo) -> ColumnMapping:
    """Query mode: the mapping of a column judged by one of its (non-null) values."""
    if isinstance(value, bool):
        return ColumnMapping(BOOLEAN_SCHEMA, _to_bool)
    if isinstance(value, int):
        return ColumnMapping(INT64_SCHEMA, _to_int)
    if isinstance(value, float):
        return ColumnMapping(FLOAT64_SCHEMA, _to_float)
    if isinstance(value, decimal.Decimal):
        exponent = value.as_tuple().exponent
        scale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return ColumnMapping(Schema.decimal(scale), _decimal(scale))
    if isinstance(value, dt.datetime):
        return ColumnMapping(TIMESTAMP_SCHEMA, timestamp_reader(zone))
    if isinstance(value, dt.date):
        return ColumnMapping(DATE_SCHEMA, _date)
    if isinstance(value, dt.time | dt.timedelta):
        return ColumnMapping(TIME_SCHEMA, _time)
    if isinstance(value, bytes | bytearray | memoryview):
        return ColumnMapping(BYTES_SCHEMA, _to_bytes)
    if isinstance(value, uuid.UUID | str | dict | list):
        return ColumnMapping(STRING_SCHEMA, _to_str)
    return ColumnMapping(STRING_SCHEMA, _to_str)


__all__ = ["ColumnMapping", "column_mapping", "schema_for_value", "timestamp_reader"]
