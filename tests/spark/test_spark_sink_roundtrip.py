"""Several epochs for several partitions, read back by Spark and pyarrow: every offset once, no gaps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from connect.api import TopicPartition
from tests.support.spark_harness import SinkHarness, interleave, json_records, offsets_by_partition, read_dataset

pytestmark = pytest.mark.spark

TP0 = TopicPartition("orders", 0)
TP1 = TopicPartition("orders", 1)


def test_epochs_of_several_partitions_read_back_exactly_once(
    harness_factory: Callable[..., SinkHarness], spark: Any, tmp_path: Path
) -> None:
    sink = harness_factory(flush_size=30, store_kafka_metadata="true")
    assert sink.open(TP0, TP1) == {}, "a fresh root has nothing to resume from"
    for start in range(0, 200, 50):
        sink.put(interleave(json_records(TP0, range(start, start + 50)), json_records(TP1, range(start, start + 50))))
    committed = sink.flush_all()
    assert committed == {TP0: 180, TP1: 180}, "offsets up to the last full file of 30 are published"

    root = tmp_path / "out"
    names = sorted(p.name for p in (root / "topics" / "orders" / "partition=0").iterdir())
    assert names == [f"orders+0+{s:020d}+{s + 29:020d}.snappy.parquet" for s in range(0, 180, 30)]
    table = read_dataset(root)
    assert offsets_by_partition(table) == {0: list(range(180)), 1: list(range(180))}
    assert set(table.column("partition").to_pylist()) == {0, 1}, "Hive directory partition=<n> is a column"
    first = pq.read_table(root / "topics" / "orders" / "partition=1" / names[0].replace("orders+0", "orders+1"))
    assert first.column("_offset").to_pylist() == list(range(30)), "rows keep offset order inside a file"
    assert first.column("name").to_pylist()[:2] == ["user-0", "user-1"]

    # The sink's own metrics (served as kafka_connect_connector_plugin_*) say what was committed.
    [metrics] = sink.context.metrics.groups()
    assert metrics.values["files-committed-total"] == 12 and metrics.values["rows-committed-total"] == 360
    assert metrics.values["epochs-committed-total"] >= 1
    assert float(metrics.values["bytes-committed-total"]) > 360 * 10
    assert float(metrics.values["flush-time-ms-max"]) > 0

    frame = spark.read.parquet(str(root))
    assert frame.count() == 360
    assert frame.select("_partition", "_offset").distinct().count() == 360
    assert sorted(r["partition"] for r in frame.select("partition").distinct().collect()) == [0, 1]
    assert spark.read.parquet(str(root / "topics" / "orders")).count() == 360


def test_records_after_a_restart_continue_the_offsets(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path
) -> None:
    first = harness_factory(flush_size=25, store_kafka_metadata="true")
    first.open(TP0)
    first.put(json_records(TP0, range(0, 60)))
    assert first.flush_all() == {TP0: 50}
    first.stop()

    second = harness_factory(flush_size=25, store_kafka_metadata="true")
    assert second.open(TP0) == {TP0: 50}, "resumes after the last manifest, not where the consumer was"
    second.put(json_records(TP0, range(40, 100)))  # the consumer may redeliver what the manifests cover
    assert second.flush_all() == {TP0: 100}
    assert offsets_by_partition(read_dataset(tmp_path / "out")) == {0: list(range(100))}


@pytest.mark.parametrize(("codec", "extension", "parquet_name"), [
    ("snappy", ".snappy.parquet", "SNAPPY"),
    ("zstd", ".zstd.parquet", "ZSTD"),
    ("gzip", ".gz.parquet", "GZIP"),
    ("none", ".parquet", "UNCOMPRESSED"),
])  # fmt: skip
def test_codecs_name_and_compress_the_files(
    harness_factory: Callable[..., SinkHarness], tmp_path: Path, codec: str, extension: str, parquet_name: str
) -> None:
    sink = harness_factory(flush_size=10, parquet_codec=codec)
    sink.open(TP0)
    sink.put(json_records(TP0, range(10)))
    sink.flush_all()
    (file,) = (tmp_path / "out" / "topics" / "orders" / "partition=0").iterdir()
    assert file.name == f"orders+0+{0:020d}+{9:020d}{extension}"
    assert pq.ParquetFile(file).metadata.row_group(0).column(0).compression == parquet_name
