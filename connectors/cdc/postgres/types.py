"""PostgreSQL column types as Debezium's PostgreSQL connector maps them: a Connect schema per column, and the
value of PostgreSQL's text output (pgoutput's and the snapshot's, with `replication.SESSION_OPTIONS`) in it.

The mapping follows Debezium 3.6.1's `PostgresValueConverter` and `JdbcValueConverters`, with each column's
length and scale as pgjdbc's `TypeInfoCache` derives them from the type modifier (which Debezium's
pgoutput decoder uses): `numeric(p,s)` gives p and s, an unconstrained `numeric` p = 0 (a variable-scale
decimal), time types their fractional digits (6 when unconstrained). Temporal values follow
`time.precision.mode`, decimals `decimal.handling.mode`, bytea `binary.handling.mode`, intervals
`interval.handling.mode`.

Covered: booleans, integers, oid, floats, numeric, money (`money.fraction.digits`), bit strings, the
character types, json/jsonb, xml, uuid, inet, cidr, macaddr, ranges, tsvector, point, bytea, date, time,
timetz, timestamp, timestamptz, interval (enums and arrays: `composite_types.py`). `column_type` answers None
for any other type (the other geometric types, PostGIS, extension types such as hstore and ltree, ...): the
caller leaves such a column out, as Debezium does with a type it has no schema for, and says so. Infinite
dates and timestamps and BC dates are refused with a DataError for now.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import enum
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from connect.api.data import (
    DATE_NAME,
    DECIMAL_NAME,
    DECIMAL_SCALE_PARAM,
    TIME_NAME,
    TIMESTAMP_NAME,
    Schema,
    SchemaType,
    Struct,
)
from connect.api.errors import DataError

# PostgreSQL's type OIDs (pg_type.dat).
BOOL, BYTEA, CHAR, NAME, INT8, INT2, INT4, TEXT, OID = 16, 17, 18, 19, 20, 21, 23, 25, 26
JSON, XML, CIDR, FLOAT4, FLOAT8, MACADDR8, MACADDR, INET = 114, 142, 650, 700, 701, 774, 829, 869
BPCHAR, VARCHAR, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL, TIMETZ = 1042, 1043, 1082, 1083, 1114, 1184, 1186, 1266
NUMERIC, UUID, JSONB = 1700, 2950, 3802
POINT, MONEY, BIT, VARBIT, TSVECTOR = 600, 790, 1560, 1562, 3614
RANGES = (3904, 3906, 3908, 3910, 3912, 3926)  # int4range, numrange, tsrange, tstzrange, daterange, int8range

NO_MODIFIER = -1
PRECISION_PARAM = "connect.decimal.precision"
DAYS_PER_MONTH_AVG = 365.25 / 12.0  # io.debezium.time.MicroDuration.DAYS_PER_MONTH_AVG
_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


class DecimalMode(enum.Enum):
    PRECISE = "precise"
    DOUBLE = "double"
    STRING = "string"


class TimePrecisionMode(enum.Enum):
    ADAPTIVE = "adaptive"
    ADAPTIVE_TIME_MICROSECONDS = "adaptive_time_microseconds"
    CONNECT = "connect"
    MICROSECONDS = "microseconds"
    NANOSECONDS = "nanoseconds"


class BinaryMode(enum.Enum):
    BYTES = "bytes"
    BASE64 = "base64"
    BASE64_URL_SAFE = "base64-url-safe"
    HEX = "hex"


class IntervalMode(enum.Enum):
    NUMERIC = "numeric"
    STRING = "string"


@dataclass(frozen=True)
class Modes:
    decimal: DecimalMode = DecimalMode.PRECISE
    time_precision: TimePrecisionMode = TimePrecisionMode.ADAPTIVE
    binary: BinaryMode = BinaryMode.BYTES
    interval: IntervalMode = IntervalMode.NUMERIC
    money_fraction_digits: int = 2


@dataclass(frozen=True)
class ColumnType:
    """A column's Connect schema (required; `optional()` for a nullable column), its text decoder, and the
    value Debezium writes for a NOT NULL column whose value the server did not send (the zero of the type:
    `JdbcValueConverters.convertValue`'s fallback)."""

    schema: Schema
    decode: Callable[[str], Any]
    fallback: Any = None

    def optional(self) -> ColumnType:
        schema = self.schema.as_optional()
        if schema.type is not SchemaType.STRUCT:
            return ColumnType(schema, self.decode, self.fallback)
        # A struct value carries its schema: rebuild it with the optional one.
        decode = self.decode

        def decode_optional(text: str) -> Struct:
            return Struct(schema, dict(decode(text).items()))

        fallback = Struct(schema, dict(self.fallback.items())) if self.fallback is not None else None
        return ColumnType(schema, decode_optional, fallback)


def _semantic(kind: SchemaType, name: str, **extra: Any) -> Schema:
    return Schema(kind, name=name, version=1, **extra)


def numeric_precision_scale(typmod: int) -> tuple[int, int]:
    """pgjdbc's precision and scale of a numeric type modifier (0, 0 when unconstrained)."""
    if typmod == NO_MODIFIER:
        return 0, 0
    return ((typmod - 4) & 0xFFFF0000) >> 16, (typmod - 4) & 0xFFFF


def fraction_digits(typmod: int) -> int:
    """pgjdbc's scale of a time type: its fractional second digits, 6 when unconstrained."""
    return 6 if typmod == NO_MODIFIER else typmod


UNKNOWN_LENGTH = 2**31 - 1  # pgjdbc's `unknownLength` default, Integer.MAX_VALUE
# Types JDBC (pgjdbc) calls CHAR or VARCHAR: the ones Debezium's string masks apply to.
CHARACTER_TYPES = frozenset({TEXT, VARCHAR, BPCHAR, CHAR, NAME})


def column_length(oid: int, typmod: int) -> int:
    """A column's length as Debezium's PostgreSQL connector derives it (`ColumnMetaData`, `PostgresType`):
    pgjdbc's precision, or its display size where the precision is 0 and there is no type modifier."""
    if oid in (INT2, INT4, OID, INT8, FLOAT4, FLOAT8, CHAR, BOOL):
        return {INT2: 5, INT4: 10, OID: 10, INT8: 19, FLOAT4: 8, FLOAT8: 17, CHAR: 1, BOOL: 1}[oid]
    if oid == NUMERIC:
        if typmod == NO_MODIFIER:
            return 131089  # the display size of an unconstrained numeric
        return numeric_precision_scale(typmod)[0]
    if oid in (BPCHAR, VARCHAR):
        return UNKNOWN_LENGTH if typmod == NO_MODIFIER else typmod - 4
    if oid == BIT:
        return typmod
    if oid == VARBIT:
        return UNKNOWN_LENGTH if typmod == NO_MODIFIER else typmod
    if oid == DATE:
        return 13
    if oid == INTERVAL:
        return 49
    if oid in (TIME, TIMETZ, TIMESTAMP, TIMESTAMPTZ):
        seconds = {NO_MODIFIER: 7, 0: 0, 1: 3}.get(typmod, typmod + 1)
        return {TIME: 8, TIMETZ: 14, TIMESTAMP: 22, TIMESTAMPTZ: 28}[oid] + seconds
    return UNKNOWN_LENGTH


def column_type(oid: int, typmod: int, modes: Modes = Modes()) -> ColumnType | None:
    """The schema and decoder Debezium gives a column of type `oid` with modifier `typmod`; None if none."""
    simple = _SIMPLE.get(oid)
    if simple is not None:
        return simple
    if oid == NUMERIC:
        return _numeric(typmod, modes.decimal)
    if oid == MONEY:
        return _money(modes.money_fraction_digits, modes.decimal)
    if oid in (BIT, VARBIT):
        return _bits(column_length(oid, typmod))
    if oid == POINT:
        return ColumnType(POINT_SCHEMA, _point, _point_value(0.0, 0.0))
    if oid == BYTEA:
        return _bytea(modes.binary)
    if oid in (DATE, TIME, TIMESTAMP):
        return _temporal(oid, fraction_digits(typmod), modes.time_precision)
    if oid == TIMESTAMPTZ:
        width = fraction_digits(typmod)
        return ColumnType(
            _semantic(SchemaType.STRING, "io.debezium.time.ZonedTimestamp"), lambda text: _zoned(text, width)
        )
    if oid == TIMETZ:
        return ColumnType(_semantic(SchemaType.STRING, "io.debezium.time.ZonedTime"), _zoned_time)
    if oid == INTERVAL:
        if modes.interval is IntervalMode.STRING:
            return ColumnType(_semantic(SchemaType.STRING, "io.debezium.time.Interval"), _interval_iso)
        return ColumnType(_semantic(SchemaType.INT64, "io.debezium.time.MicroDuration"), _interval_micros)
    return None


def _text(value: str) -> str:
    return value


_STRING = ColumnType(Schema(SchemaType.STRING), _text, "")
_SIMPLE: dict[int, ColumnType] = {
    BOOL: ColumnType(Schema(SchemaType.BOOLEAN), lambda text: text == "t", False),
    INT2: ColumnType(Schema(SchemaType.INT16), int, 0),
    INT4: ColumnType(Schema(SchemaType.INT32), int, 0),
    INT8: ColumnType(Schema(SchemaType.INT64), int, 0),
    OID: ColumnType(Schema(SchemaType.INT64), int, 0),
    FLOAT4: ColumnType(Schema(SchemaType.FLOAT32), float, 0.0),
    FLOAT8: ColumnType(Schema(SchemaType.FLOAT64), float, 0.0),
    **{oid: _STRING for oid in (TEXT, VARCHAR, BPCHAR, CHAR, NAME, INET, CIDR, MACADDR, MACADDR8, *RANGES)},
    JSON: ColumnType(_semantic(SchemaType.STRING, "io.debezium.data.Json"), _text, ""),
    JSONB: ColumnType(_semantic(SchemaType.STRING, "io.debezium.data.Json"), _text, ""),
    XML: ColumnType(_semantic(SchemaType.STRING, "io.debezium.data.Xml"), _text, ""),
    UUID: ColumnType(_semantic(SchemaType.STRING, "io.debezium.data.Uuid"), _text, ""),
    TSVECTOR: ColumnType(_semantic(SchemaType.STRING, "io.debezium.data.Tsvector"), _text, ""),
}

_VARIABLE_SCALE_DECIMAL = Schema(
    SchemaType.STRUCT,
    name="io.debezium.data.VariableScaleDecimal",
    version=1,
    doc="Variable scaled decimal",
    fields=Schema.struct([("scale", Schema(SchemaType.INT32)), ("value", Schema(SchemaType.BYTES))]).fields,
)


def _finite_decimal(text: str) -> decimal.Decimal:
    value = decimal.Decimal(text)
    if not value.is_finite():
        raise DataError(f"numeric value {text} cannot be written as a decimal (decimal.handling.mode=precise)")
    return value


def _stripped(value: decimal.Decimal) -> decimal.Decimal:
    """Java's `stripTrailingZeros`, never to a negative scale (`PostgresValueConverter` sets those to 0)."""
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    if not any(digits):
        return decimal.Decimal(0)
    kept = list(digits)
    while exponent < 0 and kept[-1] == 0:
        kept.pop()
        exponent += 1
    return decimal.Decimal((sign, tuple(kept), exponent))


def _unscaled_bytes(value: decimal.Decimal, scale: int) -> bytes:
    """Java's BigInteger.toByteArray of the unscaled value: big-endian two's complement, shortest form."""
    unscaled = int(value.scaleb(scale).to_integral_exact())
    return unscaled.to_bytes((unscaled + (unscaled < 0)).bit_length() // 8 + 1, "big", signed=True)


def _numeric(typmod: int, mode: DecimalMode) -> ColumnType:
    precision, scale = numeric_precision_scale(typmod)
    zero = decimal.Decimal(0).scaleb(-scale)
    if mode is DecimalMode.DOUBLE:
        return ColumnType(Schema(SchemaType.FLOAT64), float, 0.0)
    if mode is DecimalMode.STRING:
        return ColumnType(Schema(SchemaType.STRING), lambda text: "NAN" if text == "NaN" else text, f"{zero:f}")
    if precision == 0:  # unconstrained: each value keeps its own scale

        def variable(text: str) -> Struct:
            value = _stripped(_finite_decimal(text))
            own_scale = -int(value.as_tuple().exponent)
            return Struct(_VARIABLE_SCALE_DECIMAL, {"scale": own_scale, "value": _unscaled_bytes(value, own_scale)})

        return ColumnType(
            _VARIABLE_SCALE_DECIMAL, variable, Struct(_VARIABLE_SCALE_DECIMAL, {"scale": 0, "value": b"\x00"})
        )
    schema = Schema(
        SchemaType.BYTES,
        name=DECIMAL_NAME,
        version=1,
        parameters={DECIMAL_SCALE_PARAM: str(scale), PRECISION_PARAM: str(precision)},
    )
    return ColumnType(schema, lambda text: _finite_decimal(text).quantize(decimal.Decimal(1).scaleb(-scale)), zero)


def _money(digits: int, mode: DecimalMode) -> ColumnType:
    """Debezium's `moneySchema` and `convertMoney`: the text output parsed as `PostgresMoney` does, then at
    `money.fraction.digits` (HALF_UP) as a Decimal, a double, or the parsed number's plain string."""
    step = decimal.Decimal(1).scaleb(-digits)
    zero = decimal.Decimal(0).quantize(step)
    if mode is DecimalMode.DOUBLE:
        return ColumnType(Schema(SchemaType.FLOAT64), lambda text: float(_money_value(text)), 0.0)
    if mode is DecimalMode.STRING:
        return ColumnType(Schema(SchemaType.STRING), lambda text: f"{_money_value(text):f}", f"{zero:f}")
    schema = Schema(SchemaType.BYTES, name=DECIMAL_NAME, version=1, parameters={DECIMAL_SCALE_PARAM: str(digits)})
    return ColumnType(schema, lambda text: _money_value(text).quantize(step, rounding=decimal.ROUND_HALF_UP), zero)


def _money_value(text: str) -> decimal.Decimal:
    """`PostgresMoney.parse`: parentheses or a minus for negative amounts, then a leading currency symbol and
    the thousands separators dropped (`$1,234.50`, `-$3.00`, `($3.00)`)."""
    value = text.strip()
    negative = value.startswith(("(", "-"))
    value = value.lstrip("-").removeprefix("(").removesuffix(")")
    if value and not (value[0].isdigit() or value[0] == "."):
        value = value[1:]
    try:
        parsed = decimal.Decimal(value.replace(",", ""))
    except decimal.InvalidOperation:
        raise DataError(f"money value {text!r} cannot be read (lc_monetary must print plain numbers)") from None
    return -parsed if negative else parsed


BITS_NAME = "io.debezium.data.Bits"


def _bits(length: int) -> ColumnType:
    """`bit(1)` (and `varbit(1)`) as a boolean; longer bit strings as `io.debezium.data.Bits`: Java's
    `BitSet.toByteArray` of the bits, the last character the lowest bit, little-endian, as few bytes as the
    highest set bit needs (`PostgresValueConverter.convertBits`)."""
    if length <= 1:
        return ColumnType(Schema(SchemaType.BOOLEAN), lambda text: int(text, 2) != 0, False)
    schema = Schema(SchemaType.BYTES, name=BITS_NAME, version=1, parameters={"length": str(length)})

    def little_endian(text: str) -> bytes:
        bits = int(text, 2)
        return bits.to_bytes((bits.bit_length() + 7) // 8, "little")

    return ColumnType(schema, little_endian, b"")


POINT_SCHEMA = Schema(
    SchemaType.STRUCT,
    name="io.debezium.data.geometry.Point",
    version=1,
    doc="Geometry (POINT)",
    fields=Schema.struct(
        [
            ("x", Schema(SchemaType.FLOAT64)),
            ("y", Schema(SchemaType.FLOAT64)),
            ("wkb", Schema(SchemaType.BYTES, optional=True)),
            ("srid", Schema(SchemaType.INT32, optional=True)),
        ]
    ).fields,
)
_WKB_POINT = struct.Struct("<BIdd")  # byte order mark 1 (little-endian), geometry type 1 (point), x, y


def _point_value(x: float, y: float) -> Struct:
    """Debezium's `Point.createValue`: the coordinates and their OGC WKB, no SRID."""
    return Struct(POINT_SCHEMA, {"x": x, "y": y, "wkb": _WKB_POINT.pack(1, 1, x, y), "srid": None})


def _point(text: str) -> Struct:
    """PostgreSQL's point output, `(x,y)`, as pgjdbc's PGpoint reads it."""
    x, _, y = text.strip().removeprefix("(").removesuffix(")").partition(",")
    try:
        return _point_value(float(x), float(y))
    except ValueError:
        raise DataError(f"point value {text!r} cannot be read") from None


def _bytea(mode: BinaryMode) -> ColumnType:
    def raw(text: str) -> bytes:
        if not text.startswith("\\x"):
            raise DataError("bytea values must come in hex output (bytea_output=hex)")
        return bytes.fromhex(text[2:])

    if mode is BinaryMode.BYTES:
        return ColumnType(Schema(SchemaType.BYTES), raw, b"")
    encoders: dict[BinaryMode, Callable[[bytes], str]] = {
        BinaryMode.BASE64: lambda data: base64.b64encode(data).decode(),
        BinaryMode.BASE64_URL_SAFE: lambda data: base64.urlsafe_b64encode(data).decode(),
        BinaryMode.HEX: lambda data: data.hex(),
    }
    encode = encoders[mode]
    return ColumnType(Schema(SchemaType.STRING), lambda text: encode(raw(text)), "")


def _finite(text: str) -> str:
    if text in ("infinity", "-infinity") or text.endswith(" BC"):
        raise DataError(f"the date or timestamp {text} is not supported yet")
    return text


def _date(text: str) -> int:
    return (datetime.date.fromisoformat(_finite(text)) - _EPOCH_DATE).days


_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?")


def _time_micros(text: str) -> int:
    """Microseconds since midnight of `HH:MM:SS[.ffffff]` (24:00:00 included, as PostgreSQL allows)."""
    match = _TIME.fullmatch(text)
    if match is None:
        raise DataError(f"not a time: {text}")
    hours, minutes, seconds, fraction = match.groups()
    micros = int((fraction or "").ljust(6, "0"))
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1_000_000 + micros


def _timestamp_micros(text: str) -> int:
    """Microseconds since the epoch of a timestamp without time zone, read as UTC wall time."""
    day, _, time = _finite(text).partition(" ")
    return _date(day) * 86_400_000_000 + _time_micros(time)


def _temporal(oid: int, digits: int, mode: TimePrecisionMode) -> ColumnType:
    if oid == DATE:
        name = DATE_NAME if mode is TimePrecisionMode.CONNECT else "io.debezium.time.Date"
        return ColumnType(_semantic(SchemaType.INT32, name), _date, 0)
    micros = _time_micros if oid == TIME else _timestamp_micros
    adaptive = mode in (TimePrecisionMode.ADAPTIVE, TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS)
    if oid == TIME and mode is TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS:
        unit = "micro"
    elif mode is TimePrecisionMode.CONNECT or (adaptive and digits <= 3):
        unit = "milli"
    elif mode is TimePrecisionMode.NANOSECONDS or (adaptive and digits > 6):
        unit = "nano"
    else:
        unit = "micro"
    kind = "Time" if oid == TIME else "Timestamp"
    if mode is TimePrecisionMode.CONNECT:
        name = TIME_NAME if oid == TIME else TIMESTAMP_NAME
    else:
        name = "io.debezium.time." + {"milli": "", "micro": "Micro", "nano": "Nano"}[unit] + kind
    if unit == "milli":
        schema_type = SchemaType.INT32 if oid == TIME else SchemaType.INT64
        return ColumnType(_semantic(schema_type, name), lambda text: micros(text) // 1000, 0)
    if unit == "nano":
        return ColumnType(_semantic(SchemaType.INT64, name), lambda text: micros(text) * 1000, 0)
    return ColumnType(_semantic(SchemaType.INT64, name), micros, 0)


def _utc(text: str) -> datetime.datetime:
    """A timestamptz as PostgreSQL writes it with TimeZone=UTC: `2024-03-01 10:34:56.789+00`."""
    moment = datetime.datetime.fromisoformat(_finite(text).replace(" ", "T", 1))
    return moment.astimezone(datetime.UTC)


def _zoned(text: str, width: int) -> str:
    """io.debezium.time.ZonedTimestamp: ISO-8601 in UTC, the fraction padded to the column's digits (Java's
    ISO_OFFSET_DATE_TIME when the column has none: the shortest fraction, none for whole seconds)."""
    moment = _utc(text)
    if 0 < width <= 9:
        fraction = "." + f"{moment.microsecond:06d}000"[:width]
    else:
        fraction = f".{moment.microsecond:06d}".rstrip("0").rstrip(".") if moment.microsecond else ""
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


_TIMETZ = re.compile(r"(\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)([+-]\d{2})(?::?(\d{2}))?(?::?(\d{2}))?")


def _zoned_time(text: str) -> str:
    """io.debezium.time.ZonedTime: the time shifted to UTC, as Java's ISO_OFFSET_TIME writes it."""
    match = _TIMETZ.fullmatch(text)
    if match is None:
        raise DataError(f"not a time with time zone: {text}")
    time, hours, minutes, seconds = match.groups()
    sign = -1 if hours.startswith("-") else 1
    offset = sign * ((abs(int(hours)) * 60 + int(minutes or 0)) * 60 + int(seconds or 0)) * 1_000_000
    micros = (_time_micros(time) - offset) % 86_400_000_000
    whole, fraction = divmod(micros, 1_000_000)
    text_time = f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    if fraction:
        text_time += f".{fraction:06d}".rstrip("0")
    return text_time + "Z"


_INTERVAL_PART = re.compile(r"([+-]?\d+) (year|mon|day)s?")
_INTERVAL_TIME = re.compile(r"([+-])?(\d+):(\d{2}):(\d{2}(?:\.\d+)?)")


def _interval_parts(text: str) -> tuple[int, int, int, int, int, float]:
    """Years, months, days, hours, minutes and seconds of an interval in IntervalStyle=postgres."""
    counts = {"year": 0, "mon": 0, "day": 0}
    for number, unit in _INTERVAL_PART.findall(text):
        counts[unit] = int(number)
    hours = minutes = 0
    seconds = 0.0
    time = _INTERVAL_TIME.search(text)
    if time is not None:
        sign = -1 if time.group(1) == "-" else 1
        hours, minutes, seconds = sign * int(time.group(2)), sign * int(time.group(3)), sign * float(time.group(4))
    return counts["year"], counts["mon"], counts["day"], hours, minutes, seconds


def _interval_micros(text: str) -> int:
    """io.debezium.time.MicroDuration, computed as `MicroDuration.durationMicros` does (a month is 365.25/12
    days), in the same floating-point steps."""
    years, months, days, hours, minutes, seconds = _interval_parts(text)
    number_of_days = ((years * 12) + months) * DAYS_PER_MONTH_AVG + days
    number_of_seconds = (((number_of_days * 24 + hours) * 60) + minutes) * 60 + seconds
    return int(number_of_seconds * 1e6)


def _interval_iso(text: str) -> str:
    """io.debezium.time.Interval: ISO-8601 `P<y>Y<m>M<d>DT<h>H<m>M<s>S`."""
    years, months, days, hours, minutes, seconds = _interval_parts(text)
    second_text = format(decimal.Decimal(repr(seconds)).normalize(), "f")
    return f"P{years}Y{months}M{days}DT{hours}H{minutes}M{second_text}S"
