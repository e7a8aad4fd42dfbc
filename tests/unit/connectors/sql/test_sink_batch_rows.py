"""The SQL sink's rows from Avro (and JSON Schema) value columns are the rows `put` makes from the same
records, in every key mode, and a record that fails reaches the errant record reporter as the record it is."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from connect.api import Config, DataError, SinkRecord, SinkRecordBatch, Struct
from connect.api.converter import Converter
from connect.api.data import (
    DATE_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
)
from connect.converters import JsonConverter, StringConverter
from connect.converters.schema_registry.avro import AvroConverter
from connect.converters.schema_registry.jsonschema import JsonSchemaConverter
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.pipeline.sink_batches import split_by_partition
from connect.testing import FakeErrantRecordReporter
from connectors.sql.sink_batch_rows import rows_of_batch
from connectors.sql.sink_config import CONFIG_DEF, SinkSettings
from connectors.sql.sink_rows import SinkRow, to_row
from connectors.sql.sink_task import SqlSinkTask
from tests.support.pipelines import record_pipeline
from tests.support.worker_fakes import FakeMessage
from tests.unit.connectors.sql.sqlite_fakes import SinkContext

TOPIC = "orders"
KEY = Schema.struct([("id", INT64_SCHEMA)], name="shop.OrderKey")
VALUE = Schema.struct(
    [
        ("id", OPTIONAL_INT64_SCHEMA),
        ("name", OPTIONAL_STRING_SCHEMA),
        ("amount", Schema.decimal(2)),
        ("day", DATE_SCHEMA),
        ("at", TIMESTAMP_SCHEMA),
        ("blob", OPTIONAL_BYTES_SCHEMA),
        ("level", Schema(SchemaType.INT32, default=1, optional=True)),
    ],
    name="shop.Order",
)
NESTED = Schema.struct([("id", INT64_SCHEMA), ("tags", Schema.array(STRING_SCHEMA, optional=True))], name="shop.Tagged")


def _converter(is_key: bool, value_format: str = "avro") -> Converter:
    converter = JsonSchemaConverter() if value_format == "jsonschema" else AvroConverter()
    converter.configure({"schema.registry.url": "mock://sql-sink-rows"}, is_key)
    return converter


def _value(n: int) -> Struct:
    return Struct(
        VALUE,
        {
            "id": None if n == 3 else n,  # record 3 has a null id: refused where id is a key column
            "name": None if n % 2 else f"n{n}",
            "amount": Decimal(n) / 4,
            "day": dt.date(2024, 2, 1 + n),
            "at": dt.datetime(2024, 2, 1, 12, n, tzinfo=dt.UTC),
            "blob": bytes([n]) if n % 3 else None,
            "level": None if n % 2 else n,  # a null reads as the default, 1
        },
    )


def _keys(kind: str, count: int) -> tuple[Converter | None, list[bytes | None]]:
    """Keys of `count` records: Avro structs, schemaless JSON maps or strings (these two with a null key)."""
    if kind == "none":
        return None, [None] * count
    if kind == "avro":
        avro = _converter(True)
        return avro, [avro.from_connect_data(TOPIC, KEY, Struct(KEY, {"id": n})) for n in range(count)]
    converter: Converter = StringConverter() if kind == "string" else JsonConverter()
    converter.configure({"schemas.enable": "false"}, True)
    raw = [f"k{n}".encode() if kind == "string" else b'{"id": %d}' % n for n in range(count)]
    raw[5] = None
    return converter, raw


def _batches(
    values: list[Struct], key_kind: str = "none", value_format: str = "avro"
) -> tuple[SinkRecordBatch, SinkRecordBatch]:
    """The same consumed records as a batch with value columns and as one with Structs."""
    value_converter = _converter(False, value_format)
    key_converter, raw_keys = _keys(key_kind, len(values))
    raw_values = [value_converter.from_connect_data(TOPIC, v.schema, v) for v in values]
    messages = [FakeMessage(TOPIC, 2, 40 + n, k, v) for n, (k, v) in enumerate(zip(raw_keys, raw_values, strict=True))]
    made = []
    for columns in (True, False):
        [batch] = split_by_partition(messages, None, None, lambda _topic, _headers: ())
        assert batch.convert(key_converter, value_converter, value_columns=columns)
        assert (batch.value_columns is not None) is columns
        made.append(batch)
    return made[0], made[1]


def _settings(**props: str) -> SinkSettings:
    return SinkSettings.from_config(Config(CONFIG_DEF, {"connection.url": "jdbc:sqlite:unused.db", **props}))


def _shape(row: SinkRow) -> tuple[Any, ...]:
    record = row.record
    return (
        record.kafka_offset,
        row.table,
        row.delete,
        row.key_columns,
        list(row.values.items()),
        list(row.schemas.items()),
    )


def _records_built(batch: SinkRecordBatch) -> list[int]:
    """Counts the records the batch builds from here on (their indexes)."""
    built: list[int] = []
    build = batch.record

    def counting(index: int) -> SinkRecord:
        built.append(index)
        return build(index)

    batch.record = counting  # type: ignore[method-assign]
    return built


@pytest.mark.parametrize(
    ("key_kind", "props"),
    [
        ("none", {}),
        ("none", {"pk.mode": "kafka", "fields.whitelist": "name,amount"}),
        ("none", {"pk.mode": "kafka", "pk.fields": "t,p,o"}),
        ("none", {"pk.mode": "record_value", "pk.fields": "id"}),
        ("none", {"pk.mode": "record_value", "pk.fields": "name,id", "fields.whitelist": "day"}),
        ("none", {"pk.mode": "record_value"}),
        ("none", {"pk.mode": "record_value", "pk.fields": "nope"}),
        ("avro", {"pk.mode": "record_key", "fields.whitelist": "id,blob,level"}),
        ("avro", {"pk.mode": "record_key", "pk.fields": "id", "table.name.format": "t_${topic}"}),
        ("json", {"pk.mode": "record_key"}),
        ("string", {"pk.mode": "record_key", "pk.fields": "code", "fields.whitelist": "name"}),
    ],
    ids=lambda param: param if isinstance(param, str) else ",".join(f"{k}={v}" for k, v in param.items()) or "-",
)
def test_rows_from_value_columns_are_the_rows_of_the_records(key_kind: str, props: dict[str, str]) -> None:
    _assert_rows_from_columns_are_the_rows_of_the_records(key_kind, props, "avro")


@pytest.mark.parametrize("props", [{}, {"pk.mode": "record_value", "pk.fields": "id"}, {"pk.mode": "kafka"}], ids=str)
def test_rows_from_json_schema_value_columns_are_the_rows_of_the_records(props: dict[str, str]) -> None:
    _assert_rows_from_columns_are_the_rows_of_the_records("none", props, "jsonschema")


def _assert_rows_from_columns_are_the_rows_of_the_records(
    key_kind: str, props: dict[str, str], value_format: str
) -> None:
    settings = _settings(**props)
    columnar, structs = _batches([_value(n) for n in range(8)], key_kind, value_format)
    built = _records_built(columnar)
    rows, refused = rows_of_batch(columnar, settings)
    expected_rows, expected_refused = [], []
    for record in structs:
        try:
            expected_rows.append(to_row(record, settings))
        except DataError as exc:
            expected_refused.append((record.kafka_offset - 40, str(exc)))
    assert [_shape(r) for r in rows] == [_shape(r) for r in expected_rows]
    assert refused == expected_refused
    assert len(rows) + len(refused) == 8 and (rows or props.get("pk.fields") == "nope")
    # Reading the rows' records (for the comparison) built them; making the rows built none.
    assert built == [row.index for row in rows]
    assert all(row.record == structs[row.index] for row in rows)


def test_a_nested_field_with_a_value_refuses_its_record_with_the_reason_put_gives() -> None:
    settings = _settings()
    values = [Struct(NESTED, {"id": n, "tags": None if n else ["a"]}) for n in range(3)]
    columnar, structs = _batches(values)
    rows, refused = rows_of_batch(columnar, settings)
    assert [r.values for r in rows] == [{"id": 1, "tags": None}, {"id": 2, "tags": None}]
    assert [r.values for r in rows] == [to_row(r, settings).values for r in structs[1:]]
    assert refused == [(0, "Field tags is nested (list); only primitive fields become columns")]


def _task(db: Path, reporter: FakeErrantRecordReporter, **props: str) -> SqlSinkTask:
    task = SqlSinkTask()
    task.initialize(SinkContext(reporter))  # type: ignore[arg-type]
    task.start({"connection.url": f"jdbc:sqlite:{db}", **props})
    return task


def test_refused_rows_reach_the_reporter_as_their_records_and_the_rest_are_written(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    with sqlite3.connect(db) as connection:  # the database refuses a null name
        connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, name TEXT NOT NULL, level INTEGER)")
    reporter = FakeErrantRecordReporter()
    task = _task(db, reporter, **{"pk.mode": "record_value", "pk.fields": "id", "fields.whitelist": "name,level"})
    columnar, structs = _batches([_value(n) for n in (0, 1, 2, 3, 4)])
    built = _records_built(columnar)
    task.put_batches([columnar])
    task.stop()
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT id, name, level FROM orders ORDER BY id").fetchall() == [
            (0, "n0", 0),
            (2, "n2", 2),
            (4, "n4", 4),
        ]
    reported = {record.kafka_offset: (record, str(error)) for record, error in reporter.reported}
    assert sorted(reported) == [41, 43]  # records 1 (null name) and 3 (null id)
    for offset, (record, _) in reported.items():
        assert (record.topic, record.kafka_partition, record.original_kafka_offset) == (TOPIC, 2, offset)
        assert record.value == structs[offset - 40].value and record.value_schema == structs[0].value_schema
    assert "NOT NULL constraint failed: orders.name" in reported[41][1]
    assert reported[43][1] == "Record orders-2@43: The primary key column id is null"
    assert sorted(built) == [1, 3], "records are built for the reported ones only"


class _MockRegistryAvro(AvroConverter):
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        super().configure({"schema.registry.url": "mock://sql-sink-rows", **configs}, is_key)


def test_a_tombstone_comes_in_batches_of_records_and_deletes_its_key(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    pipeline = record_pipeline(ConnectorTaskId("sql", 0), key=_MockRegistryAvro(), value=_MockRegistryAvro())
    keys = [pipeline.key_converter.from_connect_data(TOPIC, KEY, Struct(KEY, {"id": n})) for n in (0, 1)]
    values = [pipeline.value_converter.from_connect_data(TOPIC, VALUE, _value(n)) for n in (0, 1)]
    messages = [FakeMessage(TOPIC, 0, n, keys[n % 2], ([*values, None])[n]) for n in range(3)]  # key 0's tombstone
    seen: set[str] = set()
    batches, _ = pipeline.to_sink_batches(messages, seen, seen.add, value_columns=True)
    assert [b.value_columns for b in batches] == [None, None], "a null among the values: records, not columns"
    task = _task(
        db,
        FakeErrantRecordReporter(),
        **{"insert.mode": "upsert", "pk.mode": "record_key", "delete.enabled": "true", "auto.create": "true"},
    )
    task.put_batches(batches)
    task.stop()
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT id, name, level FROM orders").fetchall() == [(1, None, 1)]


def _schemaless_batch(values: list[bytes | None], keys: list[bytes | None]) -> SinkRecordBatch:
    """Consumed JSON records without schemas, converted as the worker converts a batch."""
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"}, False)
    key_converter = JsonConverter()
    key_converter.configure({"schemas.enable": "false"}, True)
    messages = [FakeMessage(TOPIC, 0, n, k, v) for n, (k, v) in enumerate(zip(keys, values, strict=True))]
    [batch] = split_by_partition(messages, None, None, lambda _topic, _headers: ())
    assert batch.convert(key_converter, converter, value_columns=True)
    return batch


SCHEMALESS = [
    b'{"id": 0, "name": "a", "amount": 1.5, "flag": true}',
    b'{"name": "b", "id": 1, "amount": 2, "flag": false}',  # the same keys in another order
    b'{"id": 2, "name": null, "amount": 3.5, "flag": true}',
    b'{"id": 3, "name": ["nested"], "amount": 4.5, "flag": true}',  # refused: a list is no column
    b'{"id": null, "name": "e", "amount": 5.5, "flag": true}',  # refused where id is a key column
]


@pytest.mark.parametrize(
    "props",
    [
        {},
        {"pk.mode": "record_key"},
        {"pk.mode": "record_key", "pk.fields": "id"},
        {"pk.mode": "record_value", "pk.fields": "id"},
        {"pk.mode": "kafka", "fields.whitelist": "name"},
    ],
    ids=str,
)
def test_rows_from_schemaless_maps_of_one_shape_are_the_rows_of_the_records(props: dict[str, str]) -> None:
    """Maps with the same keys become rows column by column; each row and each refusal is the record path's."""
    settings = _settings(**props)
    keys: list[bytes | None] = [b'{"id": %d}' % n for n in range(len(SCHEMALESS))]
    keys[4] = b'{"id": null}'
    batch = _schemaless_batch(SCHEMALESS, keys)
    built = _records_built(batch)
    rows, refused = rows_of_batch(batch, settings)
    expected_rows, expected_refused = [], []
    for record in _schemaless_batch(SCHEMALESS, keys):
        try:
            expected_rows.append(to_row(record, settings))
        except DataError as exc:
            expected_refused.append((record.kafka_offset, str(exc)))
    assert [(r.index, r.key_columns, r.values) for r in rows] == [
        (e.record.kafka_offset, e.key_columns, e.values) for e in expected_rows
    ]
    assert refused == expected_refused and refused
    assert built == []  # no SinkRecord was made for a row or a refusal
