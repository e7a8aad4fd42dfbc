"""Which runs the PostgreSQL bulk path takes: only those whose every value is of a type its column takes through
COPY exactly as an INSERT's cast would store it (the rest keep the INSERT statements)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa

from connectors.sql.pg_bulk import copyable

TABLE = sa.Table(
    "t",
    sa.MetaData(),
    sa.Column("id", sa.BigInteger, primary_key=True),
    sa.Column("name", sa.Text),
    sa.Column("amount", sa.Double),
    sa.Column("price", sa.Numeric),
    sa.Column("active", sa.Boolean),
    sa.Column("blob", sa.LargeBinary),
    sa.Column("day", sa.Date),
    sa.Column("at", sa.Time),
    sa.Column("stamp", sa.DateTime),
    sa.Column("code", sa.Uuid),
)
NATURAL: dict[str, Any] = {
    "id": 1,
    "name": "x",
    "amount": 1.5,
    "price": Decimal("1.25"),
    "active": True,
    "blob": b"\x00",
    "day": dt.date(2026, 1, 1),
    "at": dt.time(1, 2),
    "stamp": dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    "code": "6f1c0d52-3c9a-4d7e-9b1a-0b6e2f1d2c3a",
}


def test_values_of_their_columns_natural_types_and_nulls_go_through_copy() -> None:
    nulls = {name: None for name in NATURAL} | {"id": 2}
    numbers_for_reals = NATURAL | {"amount": 2, "price": 3.5}
    assert copyable(TABLE, list(NATURAL), [NATURAL, nulls, numbers_for_reals])


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("id", 2.5),  # an INSERT's cast rounds it; COPY would refuse it
        ("id", True),  # a bool is an int to Python, not to PostgreSQL
        ("name", 7),  # COPY would write "7" where an INSERT's cast writes the same, but bools ("True") would not
        ("active", 1),
        ("blob", "text"),
        ("day", dt.datetime(2026, 1, 1)),
        ("code", 12),
    ],
)
def test_a_value_of_another_type_keeps_its_run_on_the_insert_statements(column: str, value: Any) -> None:
    assert not copyable(TABLE, list(NATURAL), [NATURAL, NATURAL | {column: value}])
