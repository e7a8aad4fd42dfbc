"""Cast, TimestampConverter and the topic routers."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from connect.api import ConfigError, DataError, Schema, SchemaType, SinkRecord, Struct
from connect.api.data import (
    BOOLEAN_SCHEMA,
    DATE_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
)
from connect.api.transform import Transformation
from connect.transforms import CastKey, CastValue, RegexRouter, TimestampConverterValue, TimestampRouter
from connect.transforms.java_date_format import JavaDateFormat

MOMENT = dt.datetime(2024, 3, 5, 14, 7, 9, 123000, tzinfo=dt.UTC)
MOMENT_MS = 1709647629123


def record(
    value_schema: Schema | None, value: Any, topic: str = "orders", timestamp: int | None = MOMENT_MS
) -> SinkRecord:
    return SinkRecord(topic, 0, None, None, value_schema, value, kafka_offset=1, timestamp=timestamp)


def configured(cls: type[Transformation[Any]], **configs: str) -> Transformation[Any]:
    t = cls()
    t.configure(configs)
    return t


def applied(t: Transformation[Any], rec: Any) -> Any:
    result = t.apply(rec)
    assert result is not None
    return result


# ------------------------------------------------------------------------------------------------ Cast


def test_cast_struct_fields_changes_values_and_schema() -> None:
    schema = Schema.struct([("a", INT64_SCHEMA), ("b", STRING_SCHEMA), ("c", FLOAT64_SCHEMA), ("d", BOOLEAN_SCHEMA)])
    value = Struct(schema, {"a": 300, "b": "12", "c": 2.9, "d": True})
    out = applied(configured(CastValue, spec="a:int8,b:int32,c:int64,d:string"), record(schema, value))
    assert dict(out.value.items()) == {"a": 44, "b": 12, "c": 2, "d": "true"}  # int8 wraps as in Java
    assert [f.schema.type for f in out.value_schema.fields] == [
        SchemaType.INT8,
        SchemaType.INT32,
        SchemaType.INT64,
        SchemaType.STRING,
    ]


def test_cast_keeps_optionality_and_casts_defaults() -> None:
    field = Schema(SchemaType.STRING, optional=True, default="7")
    schema = Schema.struct([("n", field)])
    out = applied(configured(CastValue, spec="n:int32"), record(schema, Struct(schema, {})))
    cast_field = out.value_schema.field("n").schema
    assert cast_field.optional and cast_field.default == 7
    assert out.value.get("n") == 7


def test_cast_whole_value_and_key() -> None:
    out = applied(configured(CastValue, spec="string"), record(INT32_SCHEMA, 5))
    assert out.value == "5" and out.value_schema == STRING_SCHEMA
    key_rec = SinkRecord("t", 0, STRING_SCHEMA, "1", None, None, kafka_offset=0)
    assert applied(configured(CastKey, spec="boolean"), key_rec).key is False  # only "true" is true
    assert applied(configured(CastValue, spec="float64"), record(None, "2.5")).value == 2.5


def test_cast_schemaless_map_and_logical_types() -> None:
    out = applied(configured(CastValue, spec="a:string,b:int16"), record(None, {"a": 1.5, "b": True, "c": 1}))
    assert out.value == {"a": "1.5", "b": 1, "c": 1}
    schema = Schema.struct([("price", Schema.decimal(2)), ("day", DATE_SCHEMA)])
    value = Struct(schema, {"price": Decimal("9.99"), "day": dt.date(1970, 1, 3)})
    out = applied(configured(CastValue, spec="price:float64,day:int32"), record(schema, value))
    assert dict(out.value.items()) == {"price": 9.99, "day": 2}


def test_cast_errors() -> None:
    with pytest.raises(ConfigError, match="Invalid type found in casting spec: int128"):
        configured(CastValue, spec="a:int128")
    with pytest.raises(ConfigError, match="may only specify a single cast"):
        configured(CastValue, spec="int8,a:int16")
    with pytest.raises(DataError, match="out of range"):
        configured(CastValue, spec="int8").apply(record(None, "300"))
    with pytest.raises(DataError, match="not supported"):
        configured(CastValue, spec="int8").apply(record(None, [1]))


# ------------------------------------------------------------------------------------------------ TimestampConverter


@pytest.mark.parametrize(
    ("target", "configs", "expected", "schema"),
    [
        ("string", {"format": "yyyy-MM-dd HH:mm:ss.SSS"}, "2024-03-05 14:07:09.123", STRING_SCHEMA),
        ("unix", {}, MOMENT_MS, INT64_SCHEMA),
        ("unix", {"unix.precision": "seconds"}, MOMENT_MS // 1000, INT64_SCHEMA),
        ("unix", {"unix.precision": "microseconds"}, MOMENT_MS * 1000, INT64_SCHEMA),
        ("Date", {}, dt.date(2024, 3, 5), DATE_SCHEMA),
        ("Time", {}, dt.time(14, 7, 9, 123000), TIME_SCHEMA),
        ("Timestamp", {}, MOMENT, TIMESTAMP_SCHEMA),
    ],
)
def test_timestamp_converter_targets_from_a_timestamp_field(
    target: str, configs: dict[str, str], expected: Any, schema: Schema
) -> None:
    row = Schema.struct([("at", TIMESTAMP_SCHEMA), ("id", INT32_SCHEMA)])
    t = configured(TimestampConverterValue, field="at", **{"target.type": target}, **configs)
    out = applied(t, record(row, Struct(row, {"at": MOMENT, "id": 1})))
    assert out.value.get("at") == expected
    assert out.value_schema.field("at").schema == schema
    assert out.value.get("id") == 1


def test_timestamp_converter_parses_strings_and_unix_numbers_without_schema() -> None:
    parse = configured(
        TimestampConverterValue, field="at", format="yyyy-MM-dd'T'HH:mm:ss.SSSX", **{"target.type": "unix"}
    )
    assert applied(parse, record(None, {"at": "2024-03-05T14:07:09.123Z"})).value == {"at": MOMENT_MS}
    whole = configured(TimestampConverterValue, **{"target.type": "Timestamp", "unix.precision": "seconds"})
    assert applied(whole, record(None, MOMENT_MS // 1000)).value == MOMENT.replace(microsecond=0)
    unix_schema = applied(
        configured(TimestampConverterValue, **{"target.type": "Date"}), record(OPTIONAL_INT64_SCHEMA, MOMENT_MS)
    )
    assert unix_schema.value == dt.date(2024, 3, 5) and unix_schema.value_schema == DATE_SCHEMA.as_optional()


def test_timestamp_converter_config_and_data_errors() -> None:
    with pytest.raises(ConfigError, match="requires format option"):
        configured(TimestampConverterValue, **{"target.type": "string"})
    with pytest.raises(ConfigError, match=r"target\.type"):
        configured(TimestampConverterValue, **{"target.type": "week"})
    bad = configured(TimestampConverterValue, format="yyyy-MM-dd", **{"target.type": "unix"})
    with pytest.raises(DataError, match="does not match pattern"):
        bad.apply(record(None, "March 5th"))
    with pytest.raises(DataError, match="does not correspond to a known timestamp type"):
        configured(TimestampConverterValue, **{"target.type": "unix"}).apply(record(INT8_SCHEMA, 1))


# ------------------------------------------------------------------------------------------------ routers


def test_regex_router_rewrites_matching_topics_with_java_group_references() -> None:
    t = configured(RegexRouter, regex="(?<env>[a-z]+)-(.*)", replacement="$2_${env}")
    assert applied(t, record(None, 1, topic="prod-orders")).topic == "orders_prod"
    unchanged = record(None, 1, topic="PROD")
    assert t.apply(unchanged) is unchanged
    partial = configured(RegexRouter, regex="orders", replacement="x")
    assert applied(partial, record(None, 1, topic="orders-eu")).topic == "orders-eu"  # must match as a whole
    with pytest.raises(ConfigError, match="regex"):
        configured(RegexRouter, regex="(", replacement="x")


def test_timestamp_router_formats_the_record_time_in_utc() -> None:
    t = configured(TimestampRouter)
    assert applied(t, record(None, 1)).topic == "orders-20240305"
    hourly = configured(
        TimestampRouter, **{"topic.format": "${timestamp}.${topic}", "timestamp.format": "yyyy-MM-dd'T'HH"}
    )
    assert applied(hourly, record(None, 1)).topic == "2024-03-05T14.orders"
    with pytest.raises(DataError, match="Timestamp missing on record"):
        t.apply(record(None, 1, timestamp=None))


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("yyyyMMdd", "20240305"),
        ("yyyy-MM-dd HH:mm:ss.SSS", "2024-03-05 14:07:09.123"),
        ("dd MMM yyyy hh:mm:ss a", "05 Mar 2024 02:07:09 PM"),
        ("EEE, d MMMM yy HH:mm Z", "Tue, 5 March 24 14:07 +0000"),
        ("'day' DDD 'of' yyyy", "day 065 of 2024"),
    ],
)
def test_java_date_formats_format_and_parse(pattern: str, text: str) -> None:
    fmt = JavaDateFormat(pattern)
    assert fmt.format(MOMENT) == text
    assert fmt.format(fmt.parse(text)) == text


def test_java_date_format_offsets_and_errors() -> None:
    assert JavaDateFormat("yyyy-MM-dd HH:mmXXX").parse("2024-03-05 16:07+02:00") == MOMENT.replace(
        second=0, microsecond=0
    )
    with pytest.raises(ConfigError, match="Illegal pattern character 'b'"):
        JavaDateFormat("yyyy-bb")
