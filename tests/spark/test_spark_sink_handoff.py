"""The two hand-offs of `batch.handoff`: the same files through either, and no hand-off file left behind."""

from __future__ import annotations

import datetime as dt
import decimal
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from connect.api import ConfigError, ConnectError, Schema, SchemaType, SinkRecord, Struct, TimestampType, TopicPartition
from connect.api.data import (
    BOOLEAN_SCHEMA,
    DATE_NAME,
    DATE_SCHEMA,
    DECIMAL_NAME,
    DECIMAL_SCALE_PARAM,
    FLOAT32_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_NAME,
    TIMESTAMP_SCHEMA,
)
from spark_sink import handoff as handoff_module
from spark_sink import spark_job, spark_resources
from spark_sink.buffers import Chunk, ClosedBatch
from spark_sink.config import SinkSettings
from spark_sink.decoding.connect_arrow import PRECISION_PARAM
from spark_sink.epoch import plan_epoch
from spark_sink.frames import bounded_batches
from spark_sink.handoff import (
    HANDOFF_DIR,
    LOCK_FILE,
    Handoff,
    LocalHandoffArea,
    StorageHandoffArea,
    choose_handoff,
    is_local_master,
    local_parent,
    sweep_local,
    sweep_storage,
)
from spark_sink.spark_job import Layout, staged_files, write_job
from spark_sink.storage.hadoop import HadoopStorage
from tests.support.spark_harness import BASE_TIME_MS, SinkHarness, json_records

pytestmark = pytest.mark.spark

TP = TopicPartition("typed", 0)
REBASE_IN_READ = "spark.sql.parquet.datetimeRebaseModeInRead"
ADDRESS = Schema.struct([("city", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA)], optional=True)
HOME = Schema.struct([("street", STRING_SCHEMA), ("no", INT32_SCHEMA)])
RATE = Schema(
    SchemaType.BYTES, optional=True, name=DECIMAL_NAME, parameters={DECIMAL_SCALE_PARAM: "4", PRECISION_PARAM: "9"}
)
TYPED = Schema.struct([
    ("id", INT64_SCHEMA),
    ("small", Schema(SchemaType.INT8)),
    ("short", INT16_SCHEMA),
    ("ratio", FLOAT32_SCHEMA),
    ("score", OPTIONAL_FLOAT64_SCHEMA),
    ("flag", BOOLEAN_SCHEMA),
    ("raw", OPTIONAL_BYTES_SCHEMA),
    ("price", Schema.decimal(2)),
    ("rate", RATE),
    ("day", DATE_SCHEMA),
    ("at", TIMESTAMP_SCHEMA),
    ("maybe_at", Schema(SchemaType.INT64, optional=True, name=TIMESTAMP_NAME, version=1)),
    ("clock", TIME_SCHEMA),
    ("tags", Schema.array(STRING_SCHEMA)),
    ("places", Schema.array(ADDRESS, optional=True)),
    ("counts", Schema.map(STRING_SCHEMA, INT32_SCHEMA)),
    ("days", Schema.map(STRING_SCHEMA, Schema(SchemaType.INT32, optional=True, name=DATE_NAME), optional=True)),
    ("address", ADDRESS),
    ("home", HOME),
    ("shop.region", OPTIONAL_STRING_SCHEMA),
], name="typed")  # fmt: skip


def typed_values() -> list[dict[str, Any]]:
    first = {
        "id": 1,
        "small": -8,
        "short": 300,
        "ratio": 0.25,
        "score": 1.5,
        "flag": True,
        "raw": b"\x00\xff",
        "price": decimal.Decimal("12.34"),
        "rate": decimal.Decimal("0.1234"),
        "day": dt.date(2024, 5, 6),
        "at": dt.datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=dt.UTC),
        "maybe_at": dt.datetime(1999, 12, 31, 23, 59, 59, tzinfo=dt.UTC),
        "clock": dt.time(1, 2, 3),
        "tags": ["a", "ü"],
        "places": [Struct(ADDRESS, {"city": "Oslo"}), None],
        "counts": {"x": 1, "y": 2},
        "days": {"d": dt.date(2000, 1, 1), "none": None},
        "address": Struct(ADDRESS, {"city": "Bergen", "zip": "5003"}),
        "home": Struct(HOME, {"street": "Main", "no": 7}),
        "shop.region": "eu/west",
    }
    # Days and instants before the Gregorian reform and at the far end: no calendar rebase on either path.
    second = {
        **first,
        "id": 2,
        "score": None,
        "raw": None,
        "rate": None,
        "day": dt.date(1200, 3, 1),
        "at": dt.datetime(1500, 1, 1, 0, 0, 0, 1000, tzinfo=dt.UTC),
        "maybe_at": None,
        "tags": [],
        "places": None,
        "counts": {},
        "days": None,
        "address": None,
        "shop.region": None,
    }
    third = {**first, "id": 3, "day": dt.date(9999, 12, 31), "at": dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)}
    return [first, second, third]


def struct_records(values: list[dict[str, Any]]) -> list[SinkRecord]:
    return [
        SinkRecord(
            TP.topic, TP.partition, None, b"k", TYPED, Struct(TYPED, v), i, BASE_TIME_MS, TimestampType.CREATE_TIME
        )
        for i, v in enumerate(values)
    ]


def nested_json(offset: int) -> bytes:
    region = ("eu", "us", "ap")[offset % 3]
    tags = ",".join(f'"t{i}"' for i in range(offset % 4))
    note = "null" if offset % 2 else f'"n{offset}"'
    return (
        f'{{"id":{offset},"region":"{region}","user":{{"name":"u{offset}","tags":[{tags}]}},'
        f'"scores":[{offset}.5,{offset + 1}.25],"note":{note},"when":"2024-01-01T00:00:{offset % 60:02d}Z"}}'
    ).encode()


def data_files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted((root / "topics").rglob("*.parquet"))}


def assert_same_files(arrow_root: Path, parquet_root: Path, spark: Any) -> None:
    """Same names, the same Parquet schema (required/optional, logical types, Spark's schema) and rows."""
    arrow_files, parquet_files = data_files(arrow_root), data_files(parquet_root)
    assert list(parquet_files) == list(arrow_files) and arrow_files, "the same files by name"
    for name, expected_path in arrow_files.items():
        expected, found = pq.ParquetFile(expected_path), pq.ParquetFile(parquet_files[name])
        assert found.schema.equals(expected.schema), f"{name}: Parquet schema\n{found.schema}\n{expected.schema}"
        assert found.schema_arrow.equals(expected.schema_arrow, check_metadata=True), f"{name}: Spark's schema"
        assert found.read().equals(expected.read()), f"{name}: the rows"
        spark_expected, spark_found = (
            spark.read.parquet(str(expected_path)),
            spark.read.parquet(str(parquet_files[name])),
        )
        assert spark_found.schema == spark_expected.schema
        assert spark_found.collect() == spark_expected.collect()


def write_both(
    harness_factory: Callable[..., SinkHarness],
    tmp_path: Path,
    records: list[SinkRecord],
    flush_size: int,
    **props: str,
) -> tuple[Path, Path]:
    roots = (tmp_path / "arrow", tmp_path / "parquet")
    for root, handoff, expected in zip(roots, ("arrow", "parquet"), (Handoff.ARROW, Handoff.LOCAL_FILE), strict=True):
        sink = harness_factory(flush_size=flush_size, root=root, batch_handoff=handoff, **props)
        sink.open(TP)
        sink.put(records)
        sink.flush_all()
        assert sink.task.handoff is expected
    return roots


@pytest.fixture
def handoff_parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tasks' local hand-off areas under this test's directory (they follow the system temp dir)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return Path(local_parent())


def test_connect_types_give_the_same_files_through_both_handoffs(
    harness_factory: Callable[..., SinkHarness], spark: Any, tmp_path: Path, handoff_parent: Path
) -> None:
    # A session that reads other Parquet files in Spark 2's calendar must not shift the hand-off's old days.
    spark.conf.set(REBASE_IN_READ, "LEGACY")
    try:
        arrow_root, parquet_root = write_both(harness_factory, tmp_path, struct_records(typed_values()), 3)
    finally:
        spark.conf.unset(REBASE_IN_READ)
    assert_same_files(arrow_root, parquet_root, spark)
    (file,) = data_files(parquet_root).values()
    schema = pq.ParquetFile(file).schema
    assert schema.column(0).max_definition_level == 0, "a required Connect field stays a required column"
    table = pq.read_table(file)
    assert table.schema.field("at").type == pa.timestamp("us", "UTC")
    assert table.schema.field("rate").type == pa.decimal128(9, 4)
    assert table.column("day").to_pylist() == [dt.date(2024, 5, 6), dt.date(1200, 3, 1), dt.date(9999, 12, 31)]
    assert table.column("at")[1].as_py() == dt.datetime(1500, 1, 1, 0, 0, 0, 1000, tzinfo=dt.UTC)
    required = {f.name for f in pq.read_schema(file) if not f.nullable}
    assert required == {f.name for f in TYPED.fields if not f.schema.optional}, "required Connect fields"


def test_json_with_metadata_and_several_groups_gives_the_same_files_through_both_handoffs(
    harness_factory: Callable[..., SinkHarness], spark: Any, tmp_path: Path, handoff_parent: Path
) -> None:
    records = json_records(TP, range(60), value=nested_json)
    arrow_root, parquet_root = write_both(
        harness_factory,
        tmp_path,
        records,
        30,
        store_kafka_metadata="true",
        partitioner_class="FieldPartitioner",
        partition_field_name="region",
    )
    assert len(data_files(parquet_root)) == 6, "three regions in each of two flushes: one file per group"
    assert_same_files(arrow_root, parquet_root, spark)
    table = pq.read_table(next(iter(data_files(parquet_root).values())))
    assert table.column("_offset").to_pylist() == sorted(table.column("_offset").to_pylist()), "offset order"
    assert table.schema.field("user").type == pa.struct([("name", pa.string()), ("tags", pa.list_(pa.string()))])


def three_group_job(rows: int, pad: int) -> tuple[ClosedBatch, pa.Table]:
    """A batch of `rows` rows whose labels cycle through three groups, each row `pad` characters long."""
    table = pa.table({"id": pa.array(range(rows), pa.int64()), "pad": [f"v{i}".ljust(pad, "x") for i in range(rows)]})
    labels = pa.array([f"k={i % 3}" for i in range(rows)])
    batch = ClosedBatch(TP, 1, 0, rows - 1, (Chunk(table, pa.array(range(rows), pa.int64()), labels),), rows, 0, "x")
    return batch, table


def test_the_shuffled_write_of_a_large_epoch_gives_the_same_files_through_both_handoffs(
    spark: Any, tmp_path: Path, handoff_parent: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = 3000
    batch, table = three_group_job(rows, 1)
    # As for epochs over 128 MB (arrow) and groups over 128 MB (parquet): repartition by group; the
    # hand-off file of the parquet one then holds row groups of a sixth of the table each.
    monkeypatch.setattr(spark_job, "COALESCE_BELOW_BYTES", 0)
    monkeypatch.setattr(spark_job, "ROW_GROUP_MAX_BYTES", table.nbytes // 6)
    row_groups: list[Sequence[int]] = []
    original = handoff_module.write_parquet
    monkeypatch.setattr(handoff_module, "write_parquet", lambda t, p, g: (row_groups.append(g), original(t, p, g)))
    area = LocalHandoffArea(str(handoff_parent))
    try:
        for name, handoff in (("arrow", None), ("parquet", area)):
            storage = HadoopStorage(f"file://{tmp_path / name}", spark)
            (job,) = plan_epoch(f"w-{name}", [(batch, 0)], "topics", "snappy").jobs
            assert spark_job.layout(job, handoff) is Layout.SHUFFLE
            write_job(spark, storage, job, "snappy", 1024 * 1024, "test", handoff)
            for group, path in staged_files(storage, job).items():
                ids = pq.read_table(tmp_path / name / path).column("id").to_pylist()
                assert ids == list(range(group.index, rows, 3)), f"{name}: group k={group.index} in offset order"
        assert sorted(os.listdir(area.directory)) == [LOCK_FILE], "the hand-off file is gone after its job"
    finally:
        area.close()
    ((*sixths, rest),) = row_groups
    assert len(sixths) >= 5 and len(set(sixths)) == 1 and rest <= sixths[0], "row groups of at most a sixth"
    arrow = spark.read.parquet(str(tmp_path / "arrow" / "_staging"))
    parquet = spark.read.parquet(str(tmp_path / "parquet" / "_staging"))
    assert parquet.schema == arrow.schema
    assert sorted(parquet.collect()) == sorted(arrow.collect())


@pytest.fixture
def small_scan_splits(spark: Any) -> Iterator[int]:
    """Spark cuts files into splits of this many bytes (and packs no two into one task)."""
    split = 64 * 1024
    settings = {"spark.sql.files.maxPartitionBytes": str(split), "spark.sql.files.openCostInBytes": str(split)}
    before = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    yield split
    for key, value in before.items():
        spark.conf.set(key, value)


def test_several_scan_tasks_write_the_groups_of_a_parquet_handoff_each_whole(
    spark: Any, tmp_path: Path, handoff_parent: Path, small_scan_splits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spark_job, "COALESCE_BELOW_BYTES", 0)  # as for epochs over 128 MB
    rows = 6000
    batch, table = three_group_job(rows, 100)
    (job,) = plan_epoch("w-rg", [(batch, 0)], "topics", "snappy").jobs
    assert table.nbytes > 4 * small_scan_splits, "the hand-off file spans several splits"
    area = LocalHandoffArea(str(handoff_parent))
    storage = HadoopStorage(f"file://{tmp_path / 'out'}", spark)
    try:
        assert spark_job.layout(job, area) is Layout.ROW_GROUPS
        write_job(spark, storage, job, "snappy", 1024 * 1024, "test", area)
        staged = staged_files(storage, job)  # StagingError unless exactly one file per group
    finally:
        area.close()
    for group, path in staged.items():
        written = pq.read_table(tmp_path / "out" / path)
        assert written.column("id").to_pylist() == list(range(group.index, rows, 3)), "whole, in offset order"
    writers = {Path(path).name.split("-")[1] for path in staged.values()}  # part-<task>-<uuid>...
    assert len(writers) > 1, f"the groups were written by several tasks, not one: {sorted(staged.values())}"


def test_layouts_by_handoff_and_size(handoff_parent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = plan_epoch("w-1", [(three_group_job(3, 1)[0], 0)], "topics", "snappy").jobs[0]
    single = ClosedBatch(TP, 1, 0, 2, (Chunk(pa.table({"id": [1, 2, 3]}), pa.array([0, 1, 2]), "k=0"),), 3, 0, "x")
    (lone,) = plan_epoch("w-2", [(single, 0)], "topics", "snappy").jobs
    area = LocalHandoffArea(str(handoff_parent))
    try:
        assert spark_job.layout(lone, area) is Layout.ONE_GROUP
        assert spark_job.layout(lone, None) is Layout.ONE_GROUP
        assert spark_job.layout(one, area) is Layout.COALESCE, "small jobs leave the other cores to decoding"
        assert spark_job.layout(one, None) is Layout.COALESCE
        monkeypatch.setattr(spark_job, "COALESCE_BELOW_BYTES", 0)
        assert spark_job.layout(one, None) is Layout.SHUFFLE, "Arrow batches do not keep groups whole"
        assert spark_job.layout(one, area) is Layout.ROW_GROUPS
        monkeypatch.setattr(spark_job, "ROW_GROUP_MAX_BYTES", 0)
        assert spark_job.layout(one, area) is Layout.SHUFFLE, "a group too large to read at once"
    finally:
        area.close()


class RecordingStorage:
    """A storage that notes, at each upload, whether the file arrived and left the local disk."""

    def __init__(self, inner: HadoopStorage) -> None:
        self.inner = inner
        self.uploads: list[tuple[str, bool, bool]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def upload(self, local_file: str, path: str) -> None:
        self.inner.upload(local_file, path)
        self.uploads.append((path, self.inner.exists(path), os.path.exists(local_file)))


def test_the_handoff_through_the_output_root_for_executors_elsewhere(
    spark: Any, tmp_path: Path, handoff_parent: Path
) -> None:
    storage = RecordingStorage(HadoopStorage(f"file://{tmp_path / 'out'}", spark))
    table = pa.table({"id": pa.array([1, 2, 3], pa.int64())})
    batch = ClosedBatch(TP, 1, 0, 2, (Chunk(table, pa.array([0, 1, 2], pa.int64()), "partition=0"),), 3, 0, "x")
    (job,) = plan_epoch("w-7", [(batch, 4)], "topics", "snappy").jobs
    area = StorageHandoffArea(storage, LocalHandoffArea(str(handoff_parent)))  # type: ignore[arg-type]
    try:
        write_job(spark, storage, job, "snappy", 1024 * 1024, "test", area)  # type: ignore[arg-type]
    finally:
        area.close()
    assert storage.uploads == [(f"{HANDOFF_DIR}/w-7-s0.parquet", True, False)], "moved under the root, then read"
    assert storage.list_dir(HANDOFF_DIR) == [], "and deleted after the job"
    (path,) = staged_files(storage, job).values()  # type: ignore[arg-type]
    assert pq.read_table(tmp_path / "out" / path).column("id").to_pylist() == [1, 2, 3]
    assert list(handoff_parent.iterdir()) == [], "the local scratch area is gone with the task"


def test_leftovers_under_the_output_root_are_deleted_once_old(spark: Any, tmp_path: Path) -> None:
    storage = HadoopStorage(f"file://{tmp_path}", spark)
    (tmp_path / HANDOFF_DIR).mkdir()
    (tmp_path / HANDOFF_DIR / "w-1-s0.parquet").write_bytes(b"x")
    now_ms = int((tmp_path / HANDOFF_DIR / "w-1-s0.parquet").stat().st_mtime * 1000)
    assert sweep_storage(storage, now_ms + 1000) == [], "a live writer elsewhere may still be reading it"
    assert sweep_storage(storage, now_ms + 2 * 3600 * 1000) == ["w-1-s0.parquet"]
    assert storage.list_dir(HANDOFF_DIR) == []


def test_the_handoff_files_of_a_dead_process_are_deleted_at_task_start(
    harness_factory: Callable[..., SinkHarness], handoff_parent: Path
) -> None:
    script = (
        "import os, sys, pyarrow as pa\n"
        "from spark_sink.handoff import LocalHandoffArea\n"
        "area = LocalHandoffArea(sys.argv[1])\n"
        "area.write(pa.table({'x': [1]}), 'w-1-s0', [1])\n"
        "print(area.directory, flush=True)\n"
        "os._exit(0)  # dies without closing its area, as a killed worker would\n"
    )
    dead = subprocess.run(
        [sys.executable, "-c", script, str(handoff_parent)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    assert sorted(os.listdir(dead)) == [LOCK_FILE, "w-1-s0.parquet"]
    live = LocalHandoffArea(str(handoff_parent))  # another task of this process, still running
    try:
        harness_factory()  # its start sweeps
        assert not os.path.exists(dead), "the dead process's area is gone"
        assert os.path.isdir(live.directory), "a live task's area stays"
        assert sweep_local(str(handoff_parent)) == []
    finally:
        live.close()
    assert list(handoff_parent.iterdir()) == []


@pytest.mark.parametrize("handoff", ["arrow", "parquet"])
def test_a_null_in_a_required_field_fails_the_flush_on_both_handoffs(
    harness_factory: Callable[..., SinkHarness], handoff_parent: Path, tmp_path: Path, handoff: str
) -> None:
    schema = Schema.struct([("id", INT64_SCHEMA), ("name", OPTIONAL_STRING_SCHEMA)], name="row")
    values = [Struct(schema, {"id": 1, "name": "a"}), Struct(schema, {"name": "no id"})]  # never validated
    records = [
        SinkRecord(TP.topic, 0, None, None, schema, v, i, BASE_TIME_MS, TimestampType.CREATE_TIME)
        for i, v in enumerate(values)
    ]
    sink = harness_factory(flush_size=2, batch_handoff=handoff)
    sink.open(TP)
    sink.put(records)
    assert not sink.task.wait_until_written(60), "the writer gives up after its staging attempts"
    with pytest.raises(ConnectError, match="null values to non-nullable"):
        sink.put([])
    assert not (tmp_path / "out" / "topics").exists(), "nothing published, not even a zero for the id"


@pytest.fixture
def handoff_writes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the hand-off files written (each checked to exist right after its write)."""
    written: list[str] = []

    def write(table: pa.Table, path: str, row_groups: Sequence[int]) -> None:
        original(table, path, row_groups)
        assert os.path.exists(path)
        written.append(path)

    original = handoff_module.write_parquet
    monkeypatch.setattr(handoff_module, "write_parquet", write)
    return written


def test_every_flush_deletes_its_handoff_file_and_stop_the_area(
    harness_factory: Callable[..., SinkHarness], handoff_parent: Path, handoff_writes: list[str], tmp_path: Path
) -> None:
    sink = harness_factory(flush_size=20, batch_handoff="parquet")
    sink.open(TP)
    sink.put(json_records(TP, range(100)))
    assert sink.flush_all() == {TP: 100}
    assert sink.task.handoff is Handoff.LOCAL_FILE
    (area,) = handoff_parent.iterdir()
    assert 1 <= len(handoff_writes) <= 5 and all(Path(p).parent == area for p in handoff_writes), "in its area"
    assert [p.name for p in area.iterdir()] == [LOCK_FILE], "no hand-off file outlives its job"
    assert len(data_files(tmp_path / "out")) == 5
    sink.stop()
    assert list(handoff_parent.iterdir()) == []


def test_auto_hands_small_jobs_over_as_arrow(
    harness_factory: Callable[..., SinkHarness],
    handoff_parent: Path,
    handoff_writes: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spark_resources, "AUTO_MIN_ROWS", 50)  # instead of 20,000: a file costs a fixed amount
    sink = harness_factory(flush_size=40)
    sink.open(TP)
    sink.put(json_records(TP, range(40)))
    assert sink.flush_all() == {TP: 40}
    assert sink.task.handoff is Handoff.LOCAL_FILE, "auto with a local master"
    assert handoff_writes == [], "40 rows: Arrow batches"
    big = harness_factory(flush_size=60, root=tmp_path / "big")
    big.open(TP)
    big.put(json_records(TP, range(60)))
    assert big.flush_all() == {TP: 60}
    assert len(handoff_writes) == 1, "60 rows: a hand-off file"


class FakeContext:
    def __init__(self, master: str) -> None:
        self.master = master


class FakeSession:
    def __init__(self, master: str) -> None:
        self.sparkContext = FakeContext(master)


class FakeConnectSession:
    pass


FakeConnectSession.__module__ = "pyspark.sql.connect.session"


@pytest.mark.parametrize(
    ("setting", "master", "expected"),
    [
        ("auto", "local[*]", Handoff.LOCAL_FILE),
        ("auto", "local", Handoff.LOCAL_FILE),
        ("auto", "local[4,2]", Handoff.LOCAL_FILE),
        ("auto", "local-cluster[2,1,1024]", Handoff.ARROW),
        ("auto", "yarn", Handoff.ARROW),
        ("auto", "spark://host:7077", Handoff.ARROW),
        ("parquet", "k8s://https://host:443", Handoff.STORAGE_FILE),
        ("parquet", "local[2]", Handoff.LOCAL_FILE),
        ("arrow", "local[2]", Handoff.ARROW),
    ],
)
def test_auto_takes_the_parquet_handoff_where_executors_share_the_driver_disk(
    setting: str, master: str, expected: Handoff
) -> None:
    assert choose_handoff(setting, FakeSession(master)) is expected
    assert is_local_master(master) is master.startswith("local[") or master == "local"


def test_spark_connect_stays_on_the_arrow_handoff() -> None:
    assert choose_handoff("auto", FakeConnectSession()) is Handoff.ARROW
    assert choose_handoff("parquet", FakeConnectSession()) is Handoff.ARROW


def test_batch_handoff_setting() -> None:
    props = {"path": "/tmp/x", "flush.size": "1"}
    assert SinkSettings.from_props(props).handoff == "auto"
    assert SinkSettings.from_props({**props, "batch.handoff": "parquet"}).handoff == "parquet"
    with pytest.raises(ConfigError, match=r"batch\.handoff"):
        SinkSettings.from_props({**props, "batch.handoff": "files"})
    assert "batch.handoff" not in SinkSettings.from_props(props).spark_options, "not passed to Spark"


def test_arrow_batches_are_bounded_in_bytes_and_the_session_sends_them_whole(spark: Any) -> None:
    table = pa.table({"id": pa.array(range(100_000), pa.int64()), "pad": ["x" * 100] * 100_000})
    bounded = bounded_batches(table, 1024 * 1024)
    batches = bounded.to_batches()
    assert bounded.equals(table), "the same rows, only cut differently"
    assert len(batches) > 10 and max(b.nbytes for b in batches) <= 1.1 * 1024 * 1024
    assert bounded_batches(table, table.nbytes) is table, "a table within the bound stays as it is"
    # Spark's 10,000 rows per batch would cut them again: the sink's session asks for larger ones.
    assert int(spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")) >= 1_000_000
