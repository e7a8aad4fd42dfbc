"""Schemas and their changes, partitioners, wall-clock rotation and back-pressure, with real Spark."""

from __future__ import annotations

import datetime as dt
import decimal
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from connect.api import DataError, Schema, SinkRecord, Struct, TopicPartition
from connect.api.data import (
    DATE_SCHEMA,
    FLOAT64_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
)
from spark_sink.faults import CommitStep
from spark_sink.gathering import GATHER_ROWS
from tests.support.spark_harness import (
    BASE_TIME_MS,
    SinkHarness,
    interleave,
    json_records,
    offsets_by_partition,
    read_dataset,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.spark

TP = TopicPartition("things", 0)


def files_of(root: Path) -> list[Path]:
    return sorted((root / "topics").rglob("*.parquet"))


def struct_records(schema: Schema, values: list[dict[str, Any]], first_offset: int = 0) -> list[SinkRecord]:
    return [
        SinkRecord(TP.topic, TP.partition, None, None, schema, Struct(schema, v), first_offset + i, BASE_TIME_MS)
        for i, v in enumerate(values)
    ]


def test_connect_structs_map_to_arrow_types_spark_reads(
    harness_factory: Callable[..., SinkHarness], spark: Any, tmp_path: Path
) -> None:
    address = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], optional=True)
    schema = Schema.struct([
        ("id", INT64_SCHEMA),
        ("price", Schema.decimal(2)),
        ("day", DATE_SCHEMA),
        ("at", TIMESTAMP_SCHEMA),
        ("clock", TIME_SCHEMA),
        ("tags", Schema.array(STRING_SCHEMA)),
        ("counts", Schema.map(STRING_SCHEMA, INT32_SCHEMA)),
        ("address", address),
        ("ratio", FLOAT64_SCHEMA),
    ], name="thing")  # fmt: skip
    at = dt.datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=dt.UTC)
    value = {
        "id": 1,
        "price": decimal.Decimal("12.34"),
        "day": dt.date(2024, 5, 6),
        "at": at,
        "clock": dt.time(1, 2, 3),
        "tags": ["a", "b"],
        "counts": {"x": 1},
        "address": Struct(address, {"city": "Oslo"}),
        "ratio": 0.5,
    }
    sink = harness_factory(flush_size=2)
    sink.open(TP)
    sink.put(struct_records(schema, [value, {**value, "id": 2, "address": None}]))
    sink.flush_all()
    (file,) = files_of(tmp_path / "out")
    table = pq.read_table(file)
    assert table.schema.field("price").type == pa.decimal128(38, 2)
    assert table.schema.field("day").type == pa.date32()
    assert table.schema.field("at").type == pa.timestamp("us", "UTC")
    assert table.schema.field("clock").type == pa.int32(), "TIME is milliseconds of the day (Spark has no TIME)"
    rows = table.to_pylist()
    assert rows[0]["price"] == decimal.Decimal("12.34")
    assert rows[0]["at"] == at
    assert rows[0]["clock"] == 3_723_000
    assert rows[0]["counts"] == [("x", 1)]
    assert rows[0]["address"] == {"city": "Oslo", "zip": None}
    assert rows[1]["address"] is None
    spark_rows = spark.read.parquet(str(file)).orderBy("id").collect()
    assert spark_rows[0]["address"]["city"] == "Oslo" and spark_rows[0]["tags"] == ["a", "b"]


def _versioned(version: int, with_email: bool) -> Schema:
    fields = [("id", INT64_SCHEMA), ("name", STRING_SCHEMA)]
    if with_email:
        fields.append(("email", OPTIONAL_STRING_SCHEMA))
    base = Schema.struct(fields, name="user")
    return Schema(base.type, name="user", version=version, fields=base.fields)


@pytest.mark.parametrize(
    ("mode", "file_columns"),
    [
        ("NONE", [["id", "name"], ["id", "name", "email"], ["id", "name"]]),
        ("BACKWARD", [["id", "name"], ["id", "name", "email"]]),
        ("FORWARD", [["id", "name"]]),
    ],
)
def test_schema_changes_rotate_as_schema_compatibility_says(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path, mode: str, file_columns: list[list[str]]
) -> None:
    v1, v2 = _versioned(1, False), _versioned(2, True)
    records = (
        struct_records(v1, [{"id": i, "name": "a"} for i in range(3)])
        + struct_records(v2, [{"id": i, "name": "b", "email": "e"} for i in range(3, 6)], 3)
        + struct_records(v1, [{"id": i, "name": "c"} for i in range(6, 9)], 6)
    )
    sink = harness_factory(flush_size=100, schema_compatibility=mode, rotate_schedule_interval_ms="100", timezone="UTC")
    sink.open(TP)
    sink.put(records)
    wait_until(lambda: sink.task.pre_commit({}).get(TP) == 9, 60, "every record committed")
    assert sink.task.wait_until_written(60), "and moved into place"
    files = files_of(tmp_path / "out")
    assert [pq.read_schema(f).names for f in files] == file_columns
    assert sum(pq.read_metadata(f).num_rows for f in files) == 9


def test_schemaless_json_gets_a_new_file_when_fields_appear_or_types_change(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    sink = harness_factory(flush_size=100, rotate_schedule_interval_ms="200", timezone="UTC")
    sink.open(TP)
    values = [b'{"a":1}', b'{"a":2,"b":null}', b'{"a":3,"b":"x"}', b'{"a":4}', b'{"a":"five"}', b'{"a":"6"}']
    records = json_records(TP, range(6), value=lambda o: values[o])
    for batch in (records[:2], records[2:4], records[4:]):
        sink.put(batch)
        # A poll that brings nothing follows each: what was gathered is decoded, so each batch infers a
        # schema of its own (records decoded together share one, null-only fields included).
        sink.idle_poll()
    wait_until(lambda: sink.task.pre_commit({}).get(TP) == 6, 60, "every record committed")
    assert sink.task.wait_until_written(60)
    files = files_of(tmp_path / "out")
    schemas = [pq.read_schema(f) for f in files]
    assert [s.names for s in schemas] == [["a"], ["a", "b"], ["a"]], "null-only fields wait for a value"
    assert [s.field("a").type for s in schemas] == [pa.int64(), pa.int64(), pa.string()]
    assert [f.name.split(".")[0].split("+")[2:] for f in files] == [
        [f"{0:020d}", f"{1:020d}"],
        [f"{2:020d}", f"{3:020d}"],
        [f"{4:020d}", f"{5:020d}"],
    ]
    assert pq.read_table(files[1]).column("b").to_pylist() == ["x", None]


def test_time_based_partitioner_writes_hive_directories(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path, spark: Any
) -> None:
    hour = 3_600_000
    start = 1_704_067_200_000  # 2024-01-01T00:00:00Z
    sink = harness_factory(
        flush_size=1000,
        partitioner_class="io.confluent.connect.storage.partitioner.TimeBasedPartitioner",
        path_format="'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
        partition_duration_ms=str(hour),
        locale="en-US",
        timezone="UTC",
        timestamp_extractor="Record",
        rotate_interval_ms=str(2 * hour),
        store_kafka_metadata="true",
    )
    sink.open(TP)
    sink.put(json_records(TP, range(30), timestamp=lambda o: start + o * hour // 10))  # 3 hours of records
    sink.flush_all()
    root = tmp_path / "out"
    hours = sorted(p.parent.relative_to(root / "topics" / "things").as_posix() for p in files_of(root))
    assert hours == [f"year=2024/month=01/day=01/hour=0{h}" for h in range(2)], "the third hour is still open"
    table = read_dataset(root)
    assert sorted(set(table.column("hour").to_pylist())) == [0, 1]
    assert offsets_by_partition(table) == {0: list(range(20))}
    assert spark.read.parquet(str(root / "topics" / "things")).select("year", "hour").distinct().count() == 2


def test_field_partitioner_escapes_values_readers_unescape(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path, spark: Any
) -> None:
    sink = harness_factory(flush_size=4, partitioner_class="FieldPartitioner", partition_field_name="shop.region")
    sink.open(TP)
    regions = [b"eu/west", b"us", b"eu/west", b"us"]
    sink.put(json_records(TP, range(4), value=lambda o: b'{"id":%d,"shop":{"region":"%s"}}' % (o, regions[o])))
    sink.flush_all()
    root = tmp_path / "out" / "topics" / "things"
    assert sorted(p.name for p in root.iterdir()) == ["shop.region=eu%2Fwest", "shop.region=us"]
    assert sorted(p.name for p in (root / "shop.region=us").iterdir()) == [
        f"things+0+{1:020d}+{3:020d}.snappy.parquet"
    ], "a file's offsets are the first and last of its own rows"
    values = {r["shop.region"] for r in spark.read.parquet(str(root)).select("`shop.region`").collect()}
    assert values == {"eu/west", "us"}


def test_scheduled_rotation_publishes_an_idle_partition(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    sink = harness_factory(flush_size=10_000, rotate_schedule_interval_ms="300", timezone="Europe/Paris")
    sink.open(TP)
    sink.put(json_records(TP, range(5)))
    sink.idle_poll()
    wait_until(lambda: sink.context.commit_requested, 10, "the writer's timer asking for a commit")
    wait_until(lambda: sink.task.pre_commit({}) == {TP: 5}, 60, "the open file published without new records")


def put_until_paused(sink: SinkHarness, tps: list[TopicPartition], per_poll: int) -> tuple[threading.Event, int]:
    """Holds the writer after staging and puts polls of `per_poll` records of each partition until the task
    pauses. Returns the event that lets the writer go on and the records put per partition."""
    release = threading.Event()

    def hold(step: CommitStep, tp: TopicPartition | None) -> None:
        if step is CommitStep.STAGED:
            release.wait(30)

    sink.task.fault_injector = hold
    offset = 0
    while not sink.context.paused:
        assert offset < 20_000, "the task never paused"
        sink.put([r for tp in tps for r in json_records(tp, range(offset, offset + per_poll))])
        offset += per_poll
    return release, offset


def test_back_pressure_pauses_until_the_writer_drained(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    tps = [TopicPartition("things", p) for p in range(4)]
    sink = harness_factory(flush_size=100_000, flush_max_bytes=str(64 * 1024), store_kafka_metadata="true")
    sink.open(*tps)
    release, _ = put_until_paused(sink, tps, 100)
    assert sink.context.paused == set(tps)
    release.set()

    def resumed() -> bool:
        sink.task.pre_commit({})  # what the runtime calls every offset.flush.interval.ms
        return not sink.context.paused

    wait_until(resumed, 60, "resume after the writer drained")
    sink.task.fault_injector = lambda step, tp: None
    assert sink.task.wait_until_written(60)
    published = sink.task.pre_commit({})
    # Which partitions' files closed before the pause depends on the early flushes' order; the others
    # keep their open files until flush.size.
    assert published and set(published) <= set(tps) and all(end > 0 for end in published.values())
    table = read_dataset(tmp_path / "out")
    for partition, offsets in offsets_by_partition(table).items():
        assert offsets == list(range(published[TopicPartition("things", partition)])), "no gaps, no duplicates"


def test_records_gathered_across_polls_count_toward_back_pressure(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    tps = [TopicPartition("things", p) for p in range(8)]
    sink = harness_factory(flush_size=100_000, flush_max_bytes=str(64 * 1024), store_kafka_metadata="true")
    sink.open(*tps)
    # Polls of 20 records a partition: each partition gathers thousands of those before decoding them.
    release, offset = put_until_paused(sink, tps, 20)
    assert offset < GATHER_ROWS // 2, "paused while the records were still gathered, not once decoded"
    release.set()
    sink.task.fault_injector = lambda step, tp: None
    assert sink.task.wait_until_written(60)
    written = offsets_by_partition(read_dataset(tmp_path / "out"))
    assert written and all(offsets == list(range(len(offsets))) for offsets in written.values()), "no gaps"


def test_a_revoked_partition_drops_its_open_file_and_its_next_owner_resumes_after_the_manifests(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    tps = [TopicPartition("things", 0), TopicPartition("things", 1)]
    sink = harness_factory(flush_size=500, store_kafka_metadata="true")
    sink.open(*tps)
    # Full consumer batches (500 records: a backlog), two partitions interleaved: 5 files each, and
    # 250 records of each in its open file.
    for start in range(0, 2750, 250):
        sink.put(interleave(*(json_records(tp, range(start, start + 250)) for tp in tps)))
    assert sink.task.wait_until_written(60)
    sink.task.close([tps[1]])  # its 250 buffered records are dropped with it
    assert sink.task.pre_commit({}) == {tps[0]: 2500}
    assert sink.open(tps[1]) == {tps[1]: 2500}, "the next owner (here the same task) rewinds to the manifests"
    sink.put(json_records(tps[0], range(2750, 3000)))
    for start in range(2500, 3000, 250):
        sink.put(json_records(tps[1], range(start, start + 250)))
    assert sink.flush_all() == {tps[0]: 3000, tps[1]: 3000}
    offsets = offsets_by_partition(read_dataset(tmp_path / "out"))
    assert offsets == {0: list(range(3000)), 1: list(range(3000))}, "every offset once, no gaps"


class CollectingReporter:
    """The runtime's errant record reporter as a sink sees it: takes records, returns a future."""

    def __init__(self) -> None:
        self.reported: list[tuple[int, str]] = []

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        self.reported.append((record.kafka_offset, str(error)))
        done: Future[None] = Future()
        done.set_result(None)
        return done


def test_undecodable_values_go_to_the_errant_record_reporter_and_their_offsets_are_covered(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    reporter = CollectingReporter()
    sink = harness_factory(flush_size=10, reporter=reporter, store_kafka_metadata="true")
    sink.open(TP)
    bad = {3: b"{not json", 7: b"[1, 2]"}
    sink.put(json_records(TP, range(10), value=lambda o: bad.get(o, b'{"id":%d}' % o)))
    assert sink.flush_all() == {TP: 10}, "the file covers all ten offsets: the next owner starts after them"
    assert [offset for offset, _ in reporter.reported] == [3, 7]
    assert "not valid JSON" in reporter.reported[0][1] and "not an object" in reporter.reported[1][1]
    assert offsets_by_partition(read_dataset(tmp_path / "out")) == {0: [0, 1, 2, 4, 5, 6, 8, 9]}


def test_without_error_reporting_an_undecodable_value_fails_the_put(
    harness_factory: Callable[..., SinkHarness],
) -> None:
    sink = harness_factory(flush_size=10)
    sink.open(TP)
    with pytest.raises(DataError, match="not valid JSON"):
        sink.put(json_records(TP, range(3), value=lambda o: b"{not json" if o == 1 else b'{"id":1}'))
        sink.idle_poll()  # gathered records are decoded by a later put, at the latest the next empty one


def test_batches_of_consumed_bytes_and_records_write_the_same_files(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    """`put_batches` (what the runtime calls with ByteArrayConverter) and `put` are one sink: same files,
    same rows, same tombstones skipped, same errant records reported."""
    tps = [TopicPartition("things", 0), TopicPartition("things", 1)]
    special = {4: None, 11: b"{not json", 12: None, 25: b'{"id":25,"name":"n1","new":true}'}

    def value(offset: int) -> bytes | None:
        return special[offset] if offset in special else b'{"id":%d,"name":"n%d"}' % (offset, offset % 3)

    records = interleave(*(json_records(tp, range(30), value=value) for tp in tps))  # type: ignore[arg-type]
    outputs = {}
    for how in ("put", "put_batches"):
        reporter = CollectingReporter()
        root = tmp_path / how
        sink = harness_factory(
            flush_size=10,
            root=root,
            reporter=reporter,
            store_kafka_metadata="true",
            behavior_on_null_values="ignore",
            partitioner_class="FieldPartitioner",
            partition_field_name="name",
        )
        sink.open(*tps)
        for start in range(0, len(records), 13):
            getattr(sink, how)(records[start : start + 13])
        # 25 brings a new field: the files close at 24, and 25-29 wait for more records.
        assert sink.flush_all() == {tps[0]: 25, tps[1]: 25}
        files = sorted(str(f.relative_to(root)) for f in files_of(root))
        table = read_dataset(root).sort_by([("_partition", "ascending"), ("_offset", "ascending")])
        outputs[how] = (files, table.to_pylist(), sorted(reporter.reported))
    assert outputs["put"] == outputs["put_batches"]
    files, rows, reported = outputs["put_batches"]
    assert [offset for offset, _ in reported] == [11, 11]
    assert len(rows) == 2 * (25 - 3) and rows[0]["_key"] == b"k0"
    assert any(f.startswith("topics/things/name=n1/") for f in files)
