"""The intake on value columns (`SinkRecordBatch.value_columns`: AvroConverter's values decoded field by
field): the rows, files, labels and errant reports that the Structs of the same values give, without
ever reading the batch's `values`. Values come from real Avro bytes (confluent-kafka's in-memory
registry), decoded by AvroConverter as the runtime does for a task that takes value columns."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from connect.api import DataError, RecordListBatch, SinkRecord, SinkRecordBatch, StructColumns, TopicPartition
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
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaType,
    Struct,
)
from connect.converters.schema_registry.avro import AvroConverter
from spark_sink.buffers import PartitionBuffer
from spark_sink.config import SinkSettings
from spark_sink.intake import PartitionState, RecordIntake
from spark_sink.partitioners import Labels, Partitioner, PartitionInput, load_partitioner, load_timestamp_extractor
from spark_sink.task import SparkParquetSinkTask
from spark_sink.timezones import LocalClock, resolve

TP = TopicPartition("orders", 0)
BASE_TIME_MS = 1_700_000_000_000
ADDRESS = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], optional=True, name="shop.Address")
LINE = Schema.struct([("sku", STRING_SCHEMA), ("qty", INT32_SCHEMA)], name="shop.Line")
FIELDS = [
    ("id", INT64_SCHEMA),
    ("tiny", INT8_SCHEMA),
    ("small", INT16_SCHEMA),
    ("count", INT32_SCHEMA),
    ("ratio", FLOAT32_SCHEMA),
    ("weight", FLOAT64_SCHEMA),
    ("paid", BOOLEAN_SCHEMA),
    ("name", STRING_SCHEMA),
    ("blob", BYTES_SCHEMA),
    ("price", Schema.decimal(2)),
    ("day", DATE_SCHEMA),
    ("clock", TIME_SCHEMA),
    ("at", TIMESTAMP_SCHEMA),
    ("tags", Schema.array(STRING_SCHEMA)),
    ("lines", Schema.array(LINE)),
    ("counts", Schema.map(STRING_SCHEMA, INT32_SCHEMA)),
    ("address", ADDRESS),
    ("note", OPTIONAL_STRING_SCHEMA),
    ("level", Schema(SchemaType.INT32, optional=True, default=1)),
]
ORDER = Schema.struct(FIELDS, name="shop.Order")
ORDER_WITH_CHANNEL = Schema.struct([*FIELDS, ("channel", OPTIONAL_STRING_SCHEMA)], name="shop.Order")


def order(n: int, schema: Schema = ORDER) -> Struct:
    values: dict[str, Any] = {
        "id": n,
        "tiny": n % 100,
        "small": -n,
        "count": n * 10,
        "ratio": 0.5,
        "weight": n / 4,
        "paid": n % 2 == 0,
        "name": f"n{n % 3}",
        "blob": bytes([n % 256, 0xFF]),
        "price": Decimal(n) + Decimal("0.25"),
        "day": dt.date(2024, 2, 29) + dt.timedelta(days=n % 3),
        "clock": dt.time(13, 14, 15, 16000),
        "at": dt.datetime(2024, 2, 29, 13, tzinfo=dt.UTC) + dt.timedelta(minutes=n * 700),
        "tags": ["a", "b"][: n % 3],
        "lines": [Struct(LINE, {"sku": f"s{n}", "qty": n})] if n % 2 else [],
        "counts": {"x": n} if n % 2 else {},
        "address": Struct(ADDRESS, {"city": "Oslo", "zip": "0150" if n % 2 else None}) if n % 3 else None,
        "note": f"note {n}" if n % 2 else None,
        "level": 7 if n % 4 == 0 else None,  # a null reads as the field's default, 1
    }
    if schema is ORDER_WITH_CHANNEL:
        values["channel"] = "web"
    return Struct(schema, values)


def avro_columns(values: Sequence[Struct], schema: Schema = ORDER, avro: AvroConverter | None = None) -> StructColumns:
    """The values written by AvroConverter and read back as the runtime does for a task that takes columns."""
    avro = avro or avro_converter()
    columns = avro.to_connect_columns_batch(TP.topic, avro.from_connect_data_batch(TP.topic, schema, values))
    assert columns is not None
    return columns


def avro_converter() -> AvroConverter:
    avro = AvroConverter()
    avro.configure({"schema.registry.url": "mock://spark-value-columns"}, False)
    return avro


class ColumnsBatch(SinkRecordBatch):
    """A batch as the runtime hands it to a task that takes value columns, except that reading `values` (the
    same values as Structs, built when read) fails: the intake must not build a Struct per record."""

    def __init__(self, columns: StructColumns, first_offset: int = 0) -> None:
        offsets = list(range(first_offset, first_offset + len(columns)))
        keys = [f"k{o}".encode() for o in offsets]
        super().__init__(TP, offsets, [BASE_TIME_MS + o for o in offsets], keys, [], None, columns.schema)
        self.value_columns = columns

    @property  # type: ignore[override]
    def values(self) -> Sequence[Any]:
        raise AssertionError("the intake read `values` of a batch that has value columns")

    @values.setter
    def values(self, _: Sequence[Any]) -> None:
        pass

    def record(self, index: int) -> SinkRecord:
        assert self.value_columns is not None
        value = self.value_columns.struct(index)
        return SinkRecord(
            TP.topic, TP.partition, None, self.keys[index], self.value_schema, value, self.offsets[index],
            self.timestamps[index],
        )  # fmt: skip

    def as_structs(self) -> RecordListBatch:
        """The same records with their values as Structs (what `put` or a task without columns gets)."""
        return RecordListBatch([self.record(i) for i in range(len(self))])


class ByRecordKey(Partitioner):
    """A partitioner that reads the records (their keys and values), not the table's columns."""

    def encode_partitions(self, batch: PartitionInput) -> Labels:
        return pa.array([f"key={r.key.decode()[-1]}/{r.value.get('name')}" for r in batch.records], pa.string())


def intake_outcome(
    batches: Sequence[SinkRecordBatch], next_expected: int | None = None, with_reporter: bool = True, **overrides: str
) -> tuple[list[Any], list[tuple[int, str]]]:
    """What the intake makes of `batches` (offered as the task does, then drained): each file closed or
    open with its offset range, reason, table, offsets and labels; and the errant records reported."""
    props = {"path": "/tmp/unused", "flush.size": "100", **{k.replace("_", "."): v for k, v in overrides.items()}}
    settings = SinkSettings.from_props(props)
    extractor = load_timestamp_extractor(settings.raw) if settings.rotate_interval_ms > 0 else None
    reported: list[tuple[int, str]] = []

    def report(record: SinkRecord, error: DataError) -> None:
        assert isinstance(record.value, Struct)  # the one record reported is built, its value a Struct
        reported.append((record.kafka_offset, str(error)))

    clock = LocalClock(resolve("UTC"))
    intake = RecordIntake(settings, load_partitioner(settings.raw), extractor, clock, report if with_reporter else None)
    state = PartitionState(TP, PartitionBuffer(TP, 1), next_expected=next_expected)
    for batch in batches:
        intake.offer(state, batch, BASE_TIME_MS)
    intake.add_gathered(state)
    files = [*state.closed]
    if not state.buffer.empty:
        files.append(state.buffer.close("open"))
    return [
        (
            f.start_offset,
            f.end_offset,
            f.reason,
            pa.concat_tables([c.table for c in f.chunks]) if f.chunks else None,
            [o for c in f.chunks for o in c.offsets.to_pylist()],
            [c.labels if isinstance(c.labels, str) else c.labels.to_pylist() for c in f.chunks],
        )
        for f in files
    ], reported


def assert_same_as_structs(
    batches: Sequence[ColumnsBatch], next_expected: int | None = None, **overrides: str
) -> list[Any]:
    from_columns = intake_outcome(batches, next_expected, **overrides)
    from_structs = intake_outcome([b.as_structs() for b in batches], next_expected, **overrides)
    assert from_columns == from_structs
    return from_columns[0]


def test_the_sink_task_takes_value_columns() -> None:
    assert SparkParquetSinkTask.takes_value_columns


def test_avro_value_columns_give_the_table_the_structs_give_for_every_connect_type() -> None:
    batch = ColumnsBatch(avro_columns([order(n) for n in range(6)]))
    ((_, _, _, table, offsets, _),) = assert_same_as_structs([batch], store_kafka_metadata="true")
    assert offsets == list(range(6))
    types = {f.name: f.type for f in table.schema}
    assert types["id"] == pa.int64() and types["tiny"] == pa.int8() and types["ratio"] == pa.float32()
    assert types["price"] == pa.decimal128(38, 2) and types["day"] == pa.date32()
    assert types["at"] == pa.timestamp("us", "UTC") and types["clock"] == pa.int32()
    assert types["lines"] == pa.list_(pa.field("element", pa.struct([("sku", pa.string()), ("qty", pa.int32())])))
    assert types["counts"] == pa.map_(pa.string(), pa.field("value", pa.int32()))
    assert types["_key"] == pa.binary() and types["_offset"] == pa.int64()
    rows = table.to_pylist()
    assert rows[1]["price"] == Decimal("1.25") and rows[1]["lines"] == [{"sku": "s1", "qty": 1}]
    assert rows[1]["at"] == dt.datetime(2024, 3, 1, 0, 40, tzinfo=dt.UTC)
    assert rows[0]["address"] is None and rows[1]["address"] == {"city": "Oslo", "zip": "0150"}
    assert [r["level"] for r in rows[:2]] == [7, 1], "a null field takes its default, as Struct.get gives"
    assert rows[3]["clock"] == 47_655_016


@pytest.mark.parametrize(
    ("case", "overrides"),
    [
        ("flush.size", {"flush_size": "4"}),
        ("a field partitioner", {"partitioner_class": "FieldPartitioner", "partition_field_name": "name,paid"}),
        (
            "a field's time",
            {
                "partitioner_class": "DailyPartitioner", "timestamp_extractor": "RecordField", "timestamp_field": "at",
                "locale": "en", "timezone": "UTC",
            },
        ),
        ("a partitioner that reads records", {"partitioner_class": f"{__name__}:ByRecordKey"}),
        ("rotation by a field's time", {"rotate_interval_ms": "36000000", "timestamp_extractor": "RecordField",
                                        "timestamp_field": "at"}),
    ],
)  # fmt: skip
def test_rows_labels_and_files_are_those_of_the_structs(case: str, overrides: dict[str, str]) -> None:
    batches = [ColumnsBatch(avro_columns([order(n) for n in range(start, start + 5)]), start) for start in (0, 5)]
    files = assert_same_as_structs(batches, store_kafka_metadata="true", **overrides)
    assert [o for f in files for o in f[4]] == list(range(10)), case


def test_records_already_published_are_dropped_after_a_rewind() -> None:
    batches = [ColumnsBatch(avro_columns([order(n) for n in range(8)]))]
    ((start, end, _, table, offsets, _),) = assert_same_as_structs(batches, next_expected=5)
    assert (start, end, offsets) == (5, 7, [5, 6, 7])
    assert table.column("id").to_pylist() == [5, 6, 7]


@pytest.mark.parametrize(
    ("mode", "files"),
    [("NONE", [(0, 2, "schema"), (3, 5, "schema"), (6, 8, "open")]), ("BACKWARD", [(0, 2, "schema"), (3, 8, "open")])],
)
def test_a_new_schema_version_is_settled_by_schema_compatibility(mode: str, files: list[tuple[int, int, str]]) -> None:
    avro = avro_converter()  # one registry client: the second schema registers as version 2

    def run(schema: Schema, start: int) -> ColumnsBatch:
        return ColumnsBatch(avro_columns([order(n, schema) for n in range(start, start + 3)], schema, avro), start)

    batches = [run(ORDER, 0), run(ORDER_WITH_CHANNEL, 3), run(ORDER, 6)]
    assert [batch.value_schema.version for batch in batches] == [1, 2, 1]  # type: ignore[union-attr]
    outcome = assert_same_as_structs(batches, schema_compatibility=mode)
    assert [f[:3] for f in outcome] == files
    # BACKWARD: the older version's records go to the newer file, their new field null.
    assert ("channel" in outcome[-1][3].column_names) == (mode == "BACKWARD")


def test_a_value_that_does_not_fit_its_column_is_reported_and_the_others_written() -> None:
    good = avro_columns([order(n) for n in range(4)])
    columns = {name: list(values) for name, values in good.columns.items()}
    columns["price"][2] = Decimal("1e40")  # beyond decimal128(38, 2)
    batch = ColumnsBatch(StructColumns(good.schema, columns))
    (from_columns, reported), from_structs = intake_outcome([batch]), intake_outcome([batch.as_structs()])
    assert (from_columns, reported) == from_structs
    assert [offset for offset, _ in reported] == [2]
    ((_, _, _, table, offsets, _),) = from_columns
    assert offsets == [0, 1, 3] and table.column("id").to_pylist() == [0, 1, 3]
    with pytest.raises(DataError, match="do not match their Connect schema"):
        intake_outcome([batch], with_reporter=False)
