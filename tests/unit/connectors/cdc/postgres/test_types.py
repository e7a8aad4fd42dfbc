"""Debezium's mapping of PostgreSQL types beyond what the real-server test streams: the decimal, binary and
interval modes, zoned timestamps per column precision, Java's byte form of unscaled decimals, and refusals."""

from __future__ import annotations

import decimal
import math

import pytest

from connect.api.errors import DataError
from connectors.cdc.postgres.types import (
    BIT,
    BYTEA,
    DATE,
    INTERVAL,
    MONEY,
    NUMERIC,
    POINT,
    TIME,
    TIMESTAMP,
    TIMESTAMPTZ,
    VARBIT,
    BinaryMode,
    ColumnType,
    DecimalMode,
    IntervalMode,
    Modes,
    column_type,
)


def kind(oid: int, typmod: int = -1, **modes: object) -> ColumnType:
    found = column_type(oid, typmod, Modes(**modes))  # type: ignore[arg-type]
    assert found is not None
    return found


def numeric_typmod(precision: int, scale: int) -> int:
    return ((precision << 16) | scale) + 4


def test_fixed_scale_decimals_carry_scale_and_precision_and_keep_the_column_s_scale() -> None:
    fixed = kind(NUMERIC, numeric_typmod(10, 2))
    assert fixed.schema.parameters == {"scale": "2", "connect.decimal.precision": "10"}
    assert fixed.decode("12.5") == decimal.Decimal("12.50")
    with pytest.raises(DataError, match="NaN"):
        fixed.decode("NaN")


@pytest.mark.parametrize(
    ("text", "scale", "unscaled"),
    [
        ("1", 0, b"\x01"),
        ("-1", 0, b"\xff"),
        ("1.28", 2, b"\x00\x80"),
        ("-1.28", 2, b"\x80"),
        ("0.000", 0, b"\x00"),  # Java's stripTrailingZeros, as Debezium applies it
        ("12.500", 1, b"\x7d"),
        ("100", 0, b"\x64"),
    ],
)
def test_variable_scale_decimals_keep_each_value_s_scale_in_java_s_byte_form(
    text: str, scale: int, unscaled: bytes
) -> None:
    value = kind(NUMERIC).decode(text)
    assert (value.get("scale"), value.get("value")) == (scale, unscaled)
    assert kind(NUMERIC).schema.name == "io.debezium.data.VariableScaleDecimal"


def test_double_and_string_decimal_modes() -> None:
    assert kind(NUMERIC, decimal=DecimalMode.DOUBLE).decode("12.5") == 12.5
    assert math.isnan(kind(NUMERIC, decimal=DecimalMode.DOUBLE).decode("NaN"))
    assert kind(NUMERIC, numeric_typmod(10, 2), decimal=DecimalMode.STRING).decode("12.50") == "12.50"
    assert kind(NUMERIC, decimal=DecimalMode.STRING).decode("NaN") == "NAN"


def test_binary_modes() -> None:
    text = "\\x00ff10"
    assert kind(BYTEA).decode(text) == b"\x00\xff\x10"
    assert kind(BYTEA, binary=BinaryMode.BASE64).decode(text) == "AP8Q"
    assert kind(BYTEA, binary=BinaryMode.BASE64_URL_SAFE).decode("\\xfbff") == "-_8="
    assert kind(BYTEA, binary=BinaryMode.HEX).decode(text) == "00ff10"
    with pytest.raises(DataError, match="hex"):
        kind(BYTEA).decode("\\000")


@pytest.mark.parametrize(
    ("typmod", "text", "written"),
    [
        (-1, "2024-03-01 10:34:56+00", "2024-03-01T10:34:56.000000Z"),
        (3, "2024-03-01 10:34:56.5+00", "2024-03-01T10:34:56.500Z"),
        (0, "2024-03-01 10:34:56+00", "2024-03-01T10:34:56Z"),
        (-1, "2024-02-29 23:30:00-01:30", "2024-03-01T01:00:00.000000Z"),
    ],
)
def test_zoned_timestamps_are_utc_with_the_column_s_fraction_digits(typmod: int, text: str, written: str) -> None:
    assert kind(TIMESTAMPTZ, typmod).decode(text) == written


def test_times_and_timestamps_at_their_edges() -> None:
    assert kind(TIME).decode("24:00:00") == 86_400_000_000
    assert kind(TIMESTAMP).decode("1969-12-31 23:59:59.999999") == -1
    assert kind(DATE).decode("1969-12-31") == -1
    for text in ("infinity", "-infinity", "0044-03-15 BC"):
        with pytest.raises(DataError, match="not supported yet"):
            kind(DATE).decode(text)


def test_intervals_as_micro_durations_and_iso_strings() -> None:
    assert kind(INTERVAL).decode("-1 days +02:00:00") == -22 * 3600 * 1_000_000
    assert kind(INTERVAL).decode("-00:00:01.5") == -1_500_000
    iso = kind(INTERVAL, interval=IntervalMode.STRING)
    assert iso.schema.name == "io.debezium.time.Interval"
    assert iso.decode("1 year 2 mons 3 days 04:05:06.78") == "P1Y2M3DT4H5M6.78S"
    assert iso.decode("10 days") == "P0Y0M10DT0H0M0S"


def test_types_without_a_mapping_yet_have_none() -> None:
    assert column_type(1007, -1) is None  # int4[]
    assert column_type(601, -1) is None  # lseg
    assert kind(3904).decode("[1,5)") == "[1,5)"  # ranges: their text, as Debezium writes them


@pytest.mark.parametrize(
    ("text", "value"),
    [("$1,234.50", "1234.50"), ("-$3.00", "-3.00"), ("($3.00)", "-3.00"), ("12.345", "12.35"), ("€0.5", "0.50")],
)
def test_money_is_read_as_postgres_money_reads_it_at_the_fraction_digits(text: str, value: str) -> None:
    assert kind(MONEY).decode(text) == decimal.Decimal(value)


def test_money_follows_the_decimal_mode_and_its_fraction_digits() -> None:
    precise = kind(MONEY, money_fraction_digits=3)
    assert (
        precise.schema.parameters == {"scale": "3"} and precise.schema.name == "org.apache.kafka.connect.data.Decimal"
    )
    assert precise.decode("$1.5") == decimal.Decimal("1.500") and precise.fallback == decimal.Decimal("0.000")
    assert kind(MONEY, decimal=DecimalMode.DOUBLE).decode("-$2.25") == -2.25
    assert kind(MONEY, decimal=DecimalMode.STRING).decode("$1,000.50") == "1000.50"
    with pytest.raises(DataError, match="money value 'EUR 5' cannot be read"):
        kind(MONEY).decode("EUR 5")


def test_bit_strings_are_booleans_at_length_one_and_little_endian_bits_beyond() -> None:
    assert kind(BIT, 1).decode("1") is True and kind(BIT, 1).decode("0") is False
    assert kind(VARBIT, 1).decode("1") is True
    bits = kind(BIT, 12)
    assert bits.schema.name == "io.debezium.data.Bits" and bits.schema.parameters == {"length": "12"}
    assert bits.decode("000100000001") == b"\x01\x01"  # 257: the last character is the lowest bit
    assert bits.decode("000000000000") == b"" and bits.fallback == b""
    assert kind(VARBIT).schema.parameters == {"length": str(2**31 - 1)}


def test_points_carry_their_coordinates_and_ogc_wkb() -> None:
    point = kind(POINT)
    value = point.decode("(1.5,-2)")
    assert (value.get("x"), value.get("y"), value.get("srid")) == (1.5, -2.0, None)
    # OGC WKB: little-endian mark, type 1 (point), then x and y as little-endian doubles.
    assert value.get("wkb") == bytes.fromhex("0101000000000000000000f83f00000000000000c0")
    assert point.fallback.get("x") == 0.0 and point.schema.doc == "Geometry (POINT)"
    with pytest.raises(DataError, match="point value"):
        point.decode("(a,b)")
