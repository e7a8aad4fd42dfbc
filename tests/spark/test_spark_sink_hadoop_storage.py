"""The Hadoop FileSystem storage (used for hdfs://, s3a://, ...) exercised through Spark's JVM on file://."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from connect.api import TopicPartition
from spark_sink.commit import _create
from spark_sink.manifest import Manifest
from spark_sink.recovery import manifest_seqs, read_manifest
from spark_sink.storage.hadoop import HadoopStorage

pytestmark = pytest.mark.spark


def test_hadoop_storage_operations_the_commit_protocol_needs(spark: Any, tmp_path: Path) -> None:
    storage = HadoopStorage(f"file://{tmp_path}", spark)
    tp = TopicPartition("t", 0)
    manifest = Manifest("t", 0, 0, 0, 9, (), "e", "w", 1)
    assert _create(storage, manifest)
    assert not _create(storage, manifest), "create(overwrite=false) refuses an existing manifest"
    assert manifest_seqs(storage, tp) == [0]
    assert read_manifest(storage, tp, 0) == manifest

    (tmp_path / "_staging" / "e" / "_g=t+0+0+0").mkdir(parents=True)
    (tmp_path / "_staging" / "e" / "_g=t+0+0+0" / "part-0.parquet").write_bytes(b"x")
    assert sorted(storage.walk("_staging")) == [
        ("_staging/e", True),
        ("_staging/e/_g=t+0+0+0", True),
        ("_staging/e/_g=t+0+0+0/part-0.parquet", False),
    ]
    assert [(e.name, e.is_dir) for e in storage.list_dir("_staging")] == [("e", True)]
    assert storage.rename("_staging/e/_g=t+0+0+0/part-0.parquet", "topics/t/partition=0/f.parquet")
    assert not storage.rename("_staging/e/_g=t+0+0+0/part-0.parquet", "topics/t/partition=0/g.parquet")
    assert (tmp_path / "topics" / "t" / "partition=0" / "f.parquet").read_bytes() == b"x"
    storage.delete("_staging/e")
    storage.delete("_staging/missing")
    assert storage.list_dir("_staging") == [] and storage.walk("nothing") == []
