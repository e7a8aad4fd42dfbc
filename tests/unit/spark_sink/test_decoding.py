"""Values to Arrow: JSON bytes in bulk, Connect schemas, strings; schema compatibility; settings."""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from connect.api import ConfigError, DataError, Schema, Struct
from connect.api.data import (
    DATE_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
)
from spark_sink.config import SinkSettings, normalize_root
from spark_sink.connector import SparkParquetSinkConnector
from spark_sink.decoding import ValueDecoder
from spark_sink.decoding.connect_arrow import arrow_schema, to_array
from spark_sink.decoding.json_batch import parse_json_objects
from spark_sink.schema_compat import Change, decide, project


def test_json_batch_parses_in_bulk_with_the_open_files_schema() -> None:
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    ((table, rows),) = parse_json_objects([b'{"id":1,"name":"a"}', b'{"id":2}'], schema)
    assert rows == 2 and table.schema.equals(schema)
    assert table.column("name").to_pylist() == ["a", None]


def test_json_batch_splits_where_types_change_and_normalises_inference() -> None:
    payloads = [b'{"a":1,"n":null,"t":"2024-01-01T00:00:00"}', b'{"a":2}', b'{"a":"x"}', b'{"a":"y","l":[]}']
    parts = parse_json_objects(payloads, None)
    assert [rows for _, rows in parts] == [2, 2]
    assert parts[0][0].schema == pa.schema([("a", pa.int64()), ("t", pa.string())]), "no null column, no guessed time"
    assert parts[0][0].column("t").to_pylist() == ["2024-01-01T00:00:00", None]
    assert parts[1][0].schema == pa.schema([("a", pa.string())])


def test_json_batch_handles_pretty_printed_values_and_reports_invalid_ones() -> None:
    ((table, _),) = parse_json_objects([b'{\n  "a": 1\n}', b'{"a":2}'], None)
    assert table.column("a").to_pylist() == [1, 2]
    with pytest.raises(DataError, match="not valid JSON"):
        parse_json_objects([b'{"a":1}', b"{oops"], None)
    with pytest.raises(DataError, match="not an object"):
        parse_json_objects([b"[1,2]"], None)


@pytest.mark.parametrize("blank", [b"", b" ", b"\t"])
@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("schema", [None, pa.schema([("a", pa.int64())])])
def test_json_batch_reports_an_empty_or_blank_value_wherever_it_is(
    blank: bytes, position: int, schema: pa.Schema | None
) -> None:
    # A blank line is no row to the JSON reader: the batch must not silently come out a row short.
    payloads = [b'{"a":1}', b'{"a":2}']
    payloads.insert(position, blank)
    with pytest.raises(DataError, match="not valid JSON"):
        parse_json_objects(payloads, schema)


def test_decoder_by_kind_of_value() -> None:
    decoder = ValueDecoder("auto")
    segments = decoder.decode(["plain", "text", {"k": 1}, [1, 2]], None, None)
    assert [s.table.column_names for s in segments] == [["value"], ["k"], ["value"]]
    assert segments[0].table.column("value").to_pylist() == ["plain", "text"]
    assert segments[2].table.column("value").to_pylist() == [[1, 2]]
    (binary,) = ValueDecoder("binary").decode([b"\x00\xff"], None, None)
    assert binary.table.column("value").to_pylist() == [b"\x00\xff"]
    with pytest.raises(DataError, match="UTF-8"):
        ValueDecoder("string").decode([b"\xff"], None, None)
    (parsed,) = ValueDecoder("json").decode(['{"x":true}'], None, None)
    assert parsed.table.column("x").to_pylist() == [True]


def test_connect_schemas_become_arrow_columns() -> None:
    inner = Schema.struct([("z", OPTIONAL_STRING_SCHEMA)], optional=True)
    schema = Schema.struct([("id", INT64_SCHEMA), ("at", TIMESTAMP_SCHEMA), ("in", inner)])
    assert arrow_schema(schema).field("id").nullable is False
    values = [Struct(schema, {"id": 1, "at": 1000, "in": Struct(inner, {"z": "q"})}),
              Struct(schema, {"id": 2, "at": dt.datetime(1970, 1, 1, 0, 0, 2, tzinfo=dt.UTC)})]  # fmt: skip
    (segment,) = ValueDecoder("auto").decode(values, schema, None)
    assert segment.table.column("at").cast(pa.int64()).to_pylist() == [1_000_000, 2_000_000]
    assert segment.table.column("in").to_pylist() == [{"z": "q"}, None]
    assert to_array([decimal.Decimal("1.50"), None], Schema.decimal(2, optional=True)).type == pa.decimal128(38, 2)
    with pytest.raises(DataError, match="do not match"):
        to_array(["x"], INT32_SCHEMA)


def test_schema_compatibility_decisions() -> None:
    old = pa.schema([("id", pa.int64())])
    new = pa.schema([("id", pa.int64()), ("email", pa.string())])
    assert decide("NONE", None, None, new, None) is Change.SAME
    assert decide("NONE", old, None, new, None) is Change.ROTATE
    assert decide("BACKWARD", old, None, new, None) is Change.ROTATE
    assert decide("BACKWARD", new, None, old, None) is Change.PROJECT
    assert decide("FULL", new, 2, old, 1) is Change.PROJECT
    assert decide("FORWARD", old, None, new, None) is Change.PROJECT
    assert decide("FORWARD", new, None, old, None) is Change.ROTATE
    changed = pa.schema([("id", pa.string())])
    assert decide("BACKWARD", old, None, changed, None) is Change.ROTATE, "a changed type never projects"
    projected = project(pa.table({"id": [1]}), new)
    assert projected.to_pylist() == [{"id": 1, "email": None}]
    assert project(pa.table({"id": [1], "email": ["e"]}), old).to_pylist() == [{"id": 1}]


def test_settings_parse_and_check() -> None:
    settings = SinkSettings.from_props({"path": "/data/out/", "flush.size": "10", "spark.executor.memory": "2g"})
    assert settings.root == "file:///data/out"
    assert settings.spark_options == {"spark.executor.memory": "2g"}
    assert (settings.codec, settings.topics_dir, settings.schema_compatibility) == ("snappy", "topics", "NONE")
    assert normalize_root("hdfs://nn:8020/data/") == "hdfs://nn:8020/data"
    assert normalize_root("file:/tmp/x") == "file:///tmp/x"
    with pytest.raises(ConfigError, match="timezone"):
        SinkSettings.from_props({"path": "/x", "flush.size": "1", "rotate.schedule.interval.ms": "1000"})
    with pytest.raises(ConfigError, match="timezone"):
        SinkSettings.from_props({"path": "/x", "flush.size": "1", "timezone": "Mars/Olympus"})
    with pytest.raises(ConfigError, match=r"parquet\.codec"):
        SinkSettings.from_props({"path": "/x", "flush.size": "1", "parquet.codec": "lzo"})


def test_connector_validate_reports_partitioner_problems_and_splits_nothing() -> None:
    connector = SparkParquetSinkConnector()
    values = {v.name: v for v in connector.validate({"path": "/x", "flush.size": "1", "partitioner.class": "Nope"})}
    assert any("partitioner.class" in m for m in values["partitioner.class"].error_messages)
    connector.start({"path": "/x", "flush.size": "5"})
    assert connector.task_configs(3) == [{"path": "/x", "flush.size": "5"}] * 3
    assert connector.task_class().__name__ == "SparkParquetSinkTask"
    with pytest.raises(ConfigError, match="_commits"):
        connector.alter_offsets({}, {})


def test_a_new_field_starts_a_new_schema_at_the_record_that_brings_it() -> None:
    schema = pa.schema([("a", pa.int64())])
    payloads = [b'{"a":1}', b'{"a":2,"b":null}', b'{"a":3,"b":"x"}', b'{"a":4}']
    parts = parse_json_objects(payloads, schema)
    assert [rows for _, rows in parts] == [2, 2], "rows before the first value of b keep the file's schema"
    assert parts[0][0].schema.equals(schema) and parts[0][0].column("a").to_pylist() == [1, 2]
    assert parts[1][0].schema == pa.schema([("a", pa.int64()), ("b", pa.string())])
    assert parts[1][0].column("b").to_pylist() == ["x", None]
    ((table, rows),) = parse_json_objects([b'{"a":1,"b":"x"}', b'{"a":2}'], schema)
    assert rows == 2 and table.schema.names == ["a", "b"], "a field in the first record changes it from there"


def test_temporal_values_of_one_python_type_convert_as_mixed_ones_do() -> None:
    """Datetimes, dates or times alone are converted by Arrow in one call; mixed with Connect's encoded
    forms (epoch milliseconds, days, milliseconds of the day) one by one: the same arrays either way."""
    plus_two = dt.timezone(dt.timedelta(hours=2))
    at = [
        dt.datetime(2024, 2, 29, 13, 14, 15, 16000, tzinfo=dt.UTC),
        dt.datetime(2024, 2, 29, 15, 14, 15, tzinfo=plus_two),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999001),  # naive: UTC
        None,
    ]
    days = [dt.date(2024, 2, 29), dt.date(1, 1, 1), None]
    clocks = [dt.time(13, 14, 15, 16999), dt.time(0, 0), None]
    for values, schema, encoded in (
        (at, TIMESTAMP_SCHEMA, 1_709_212_455_016),
        (days, DATE_SCHEMA, 19_782),
        (clocks, TIME_SCHEMA, 47_655_016),
    ):
        alone, mixed = to_array(values, schema), to_array([*values, encoded], schema)
        assert alone.equals(mixed.slice(0, len(values))), schema.name
        assert mixed[len(values)] == mixed[0], schema.name
    micros = to_array(at, TIMESTAMP_SCHEMA).cast(pa.int64()).to_pylist()
    assert micros == [1_709_212_455_016_000, 1_709_212_455_000_000, -999, None]
    assert to_array(clocks, TIME_SCHEMA).to_pylist() == [47_655_016, 0, None], "whole milliseconds"
