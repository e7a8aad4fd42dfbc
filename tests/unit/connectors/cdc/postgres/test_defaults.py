"""Column defaults as Debezium's `PostgresDefaultValueConverter` parses the default expressions."""

from __future__ import annotations

from decimal import Decimal

import pytest

from connectors.cdc.postgres.defaults import default_value
from connectors.cdc.postgres.types import (
    BOOL,
    DATE,
    INET,
    INT4,
    INT8,
    INTERVAL,
    NUMERIC,
    TEXT,
    TIME,
    TIMESTAMP,
    TIMESTAMPTZ,
    UUID,
    ColumnType,
    column_type,
)


def kind(oid: int, typmod: int = -1) -> ColumnType:
    found = column_type(oid, typmod)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("oid", "typmod", "expression", "expected"),
    [
        (INT4, -1, "nextval('t_id_seq'::regclass)", 0),  # serial: a generated value's placeholder
        (INT4, -1, "'-5'::integer", -5),
        (INT8, -1, " 9007199254740993", 9007199254740993),
        (NUMERIC, 8 * 65536 + 2 + 4, "1.5", Decimal("1.50")),
        (BOOL, -1, "true", True),
        (TEXT, -1, "'it''s'::text", "it"),  # Debezium's non-greedy '(.*?)' stops at the doubled quote
        (TEXT, -1, "NULL::text", None),
        (UUID, -1, "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        (DATE, -1, "CURRENT_DATE", 0),
        (DATE, -1, "'2020-02-03'::date", 18295),
        (INT4, -1, "(n * 2)", None),  # not a literal Debezium can parse
        (INET, -1, "'10.0.0.1'::inet", None),  # a type Debezium has no default mapper for
        (TIMESTAMPTZ, -1, "now()", "1970-01-01T00:00:00.000000Z"),  # the placeholder: midnight UTC
        (TIMESTAMP, -1, "'2020-01-02 03:04:05'::timestamp without time zone", 1577934245000000),
        (TIME, -1, "LOCALTIME", 0),
        (INTERVAL, -1, "'1 day 02:00:00'::interval", 26 * 3600 * 1_000_000),
        (INTERVAL, -1, "make_interval(days => 1)", 0),  # generated: PGInterval("epoch"), a zero interval
        (INTERVAL, -1, "NULL::interval", None),
        (INT4, -1, None, None),
    ],
)
def test_default_expressions_become_debeziums_schema_defaults(
    oid: int, typmod: int, expression: str | None, expected: object
) -> None:
    assert default_value(oid, expression, kind(oid, typmod)) == expected


def test_an_enum_default_is_its_label_when_the_cast_names_the_column_s_type() -> None:
    text = kind(TEXT)
    assert default_value(90001, "'dark'::shade", text, ("public", "shade")) == "dark"
    assert default_value(90001, "'dark'::public.shade", text, ("public", "shade")) == "dark"
    assert default_value(90001, "'dark'::other.shade", text, ("public", "shade")) is None
    assert default_value(90001, "'dark'::hue", text, ("public", "shade")) is None
