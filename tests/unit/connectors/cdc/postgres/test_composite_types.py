"""Arrays and enums: PostgreSQL's array text form parsed, Debezium's schemas, and what is refused."""

from __future__ import annotations

import pytest

from connect.api.data import SchemaType
from connect.api.errors import DataError
from connectors.cdc.postgres.composite_types import array_placeholder, column_kind, parse_array
from connectors.cdc.postgres.types import INT4, INTERVAL, NUMERIC, TEXT, TIME, TIMETZ, Modes


def test_the_array_text_form_is_parsed_with_its_quotes_escapes_and_nulls() -> None:
    assert parse_array("{}") == []
    assert parse_array("{1,NULL,-3}") == ["1", None, "-3"]
    assert parse_array('{plain,"with space","a,b","quo\\"te","back\\\\slash",NULL,"NULL",""}') == [
        "plain",
        "with space",
        "a,b",
        'quo"te',
        "back\\slash",
        None,
        "NULL",
        "",
    ]
    with pytest.raises(DataError, match="more than one dimension"):
        parse_array("{{1,2},{3,4}}")
    with pytest.raises(DataError, match="explicit bounds"):
        parse_array("[0:1]={1,2}")


def test_arrays_decode_each_element_as_a_column_of_its_type() -> None:
    ints = column_kind(1007, -1, Modes(), element_oid=INT4)
    prices = column_kind(1231, 6 * 65536 + 2 + 4, Modes(), element_oid=NUMERIC)
    assert ints is not None and prices is not None
    assert ints.schema.type is SchemaType.ARRAY and ints.schema.value_schema is not None
    assert ints.schema.value_schema.optional and ints.decode("{1,NULL}") == [1, None] and ints.fallback == []
    assert prices.schema.value_schema is not None and prices.schema.value_schema.parameters == {
        "scale": "2",
        "connect.decimal.precision": "6",
    }
    assert column_kind(1187, -1, Modes(), element_oid=INTERVAL) is None, "Debezium maps no interval arrays"
    times = column_kind(1183, -1, Modes(), element_oid=TIME)
    assert times is not None and times.decode("{10:34:56.789999,NULL}") == [38096789000, None]  # java.sql.Time
    zoned = column_kind(1270, -1, Modes(), element_oid=TIMETZ)
    assert zoned is not None and zoned.decode("{12:34:56.5+02}") == ["10:34:56Z"]


def test_an_enum_and_an_enum_array_carry_the_labels_in_sort_order() -> None:
    mood = column_kind(90001, -1, Modes(), enum_labels=("sad", "ok"))
    moods = column_kind(90002, -1, Modes(), element_oid=90001, enum_labels=("sad", "ok"))
    assert mood is not None and moods is not None
    assert (mood.schema.name, mood.schema.parameters, mood.decode("ok")) == (
        "io.debezium.data.Enum",
        {"allowed": "sad,ok"},
        "ok",
    )
    assert moods.schema.value_schema is not None and not moods.schema.value_schema.optional, "as Debezium's"
    assert moods.decode("{ok,sad}") == ["ok", "sad"]


def test_an_unchanged_toasted_array_is_written_as_debezium_writes_it() -> None:
    texts = column_kind(1009, -1, Modes(), element_oid=TEXT)
    ints = column_kind(1007, -1, Modes(), element_oid=INT4)
    assert texts is not None and ints is not None
    assert array_placeholder(texts.schema, "__ph") == ["__ph"]
    assert array_placeholder(ints.schema, "__ph") == [95, 95, 112, 104]
