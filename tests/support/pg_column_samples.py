"""One row of twenty-seven PostgreSQL column types, with the Connect values Debezium's PostgreSQL connector gives
them (default modes), shared by the tests of kconnect's type mapping and of its agreement with Debezium."""

from __future__ import annotations

import datetime
import decimal
import struct

from connect.api.data import Struct
from connectors.cdc.postgres.types import POINT_SCHEMA

COLUMNS = {
    "flag": ("boolean", "true"),
    "small": ("smallint", "-5"),
    "big": ("bigint", "9007199254740993"),
    "ratio": ("double precision", "0.1"),
    "money2": ("numeric(10,2)", "12.5"),
    "anyscale": ("numeric", "12.500"),
    "label": ("varchar(20)", "'héllo'"),
    "padded": ("char(4)", "'ab'"),
    "doc": ("jsonb", """'{"b": [1, 2], "a": 1}'"""),
    "id": ("uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"),
    "raw": ("bytea", "'\\x00ff10'"),
    "day": ("date", "'2024-03-01'"),
    "at": ("time", "'10:34:56.789'"),
    "at_ms": ("time(3)", "'10:34:56.789'"),
    "ts": ("timestamp", "'2024-03-01 10:34:56.789'"),
    "ts_ms": ("timestamp(3)", "'2024-03-01 10:34:56.789'"),
    "tstz": ("timestamptz", "'2024-03-01 12:34:56.789+02'"),
    "tstz0": ("timestamptz(0)", "'2024-03-01 12:34:56+02'"),
    "ttz": ("timetz", "'12:34:56.5+02'"),
    "span": ("interval", "'1 year 2 months 3 days 04:05:06.78'"),
    "cash": ("money", "'-1234.5'"),
    "bit1": ("bit", "B'1'"),
    "bits": ("bit(10)", "B'1000000011'"),
    "varbits": ("varbit(16)", "B'101'"),
    "anybits": ("varbit", "B'0000'"),
    "spot": ("point", "'(1.5,-2)'"),
    "words": ("tsvector", "'a fat cat'"),
}

EXPECTED = {
    "flag": True,
    "small": -5,
    "big": 9007199254740993,
    "ratio": 0.1,
    "money2": decimal.Decimal("12.50"),
    "label": "héllo",
    "padded": "ab  ",
    "doc": '{"a": 1, "b": [1, 2]}',
    "id": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "raw": b"\x00\xff\x10",
    "day": (datetime.date(2024, 3, 1) - datetime.date(1970, 1, 1)).days,
    "at": 38096789000,  # MicroTime
    "at_ms": 38096789,  # Time (milliseconds)
    "ts": 1709289296789000,  # MicroTimestamp
    "ts_ms": 1709289296789,  # Timestamp (milliseconds)
    "tstz": "2024-03-01T10:34:56.789000Z",
    "tstz0": "2024-03-01T10:34:56Z",
    "ttz": "10:34:56.5Z",
    # ((1 * 12 + 2) * 365.25 / 12 + 3) days + 04:05:06.78, as io.debezium.time.MicroDuration computes it
    "span": int(((((14 * (365.25 / 12.0) + 3) * 24 + 4) * 60) + 5) * 60 * 1e6 + 6.78e6),
    "cash": decimal.Decimal("-1234.50"),
    "bit1": True,
    "bits": b"\x03\x02",  # 0b1000000011 = 515, little-endian
    "varbits": b"\x05",
    "anybits": b"",  # no bit set: Java's BitSet.toByteArray of an empty set
    "spot": Struct(POINT_SCHEMA, {"x": 1.5, "y": -2.0, "wkb": struct.pack("<BIdd", 1, 1, 1.5, -2.0), "srid": None}),
    "words": "'a' 'cat' 'fat'",
}
