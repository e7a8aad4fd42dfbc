"""The local HDFS behind the Spark sink's hdfs:// tests: it starts, stops only its own JVM, serves Spark
Parquet writes and reads, and refuses an exclusive create of an existing file (commit manifests rely on it)."""

from __future__ import annotations

import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from py4j.protocol import Py4JJavaError  # type: ignore[import-untyped]
from pyspark.sql import SparkSession

from tests.fixtures.hdfs import LocalHdfs
from tests.fixtures.hdfs.cluster import MARKER_PROPERTY
from tests.fixtures.hdfs.errors import PortInUseError
from tests.fixtures.tcp_ports import free_port

pytestmark = pytest.mark.integration


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


@pytest.fixture(scope="module")
def local_spark() -> Iterator[SparkSession]:
    """A local[1] session bound to loopback; a session someone else already runs is borrowed, not stopped."""
    active = SparkSession.getActiveSession()
    if active is not None:
        yield active
        return
    session = (
        SparkSession.builder.master("local[1]")
        .appName("kconnect-local-hdfs-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()


def hadoop_path(spark: SparkSession, url: str) -> tuple[Any, Any]:
    """(FileSystem, Path) of Hadoop's Java API for `url`, through the session's JVM."""
    jvm = spark._jvm
    assert jvm is not None, "the session has no JVM gateway"
    path = jvm.org.apache.hadoop.fs.Path(url)
    return path.getFileSystem(spark._jsc.hadoopConfiguration()), path


def test_hdfs_url_names_a_loopback_namenode(hdfs_url: str) -> None:
    scheme, _, address = hdfs_url.partition("://")
    assert scheme == "hdfs"
    assert address.startswith("127.0.0.1:") and int(address.rpartition(":")[2]) > 0


def test_cluster_starts_and_stop_ends_only_its_own_jvm(tmp_path: Path, hdfs_url: str) -> None:
    cluster = LocalHdfs(tmp_path / "hdfs", free_port())
    try:
        cluster.start()
        pid = cluster.running_pid()
        assert pid is not None
        assert cluster.pid_file.read_text().strip() == str(pid)
        assert f"-D{MARKER_PROPERTY}={cluster.directory}" in cmdline(pid)
        assert cluster.http_address is not None and cluster.http_address.startswith("127.0.0.1:")
        assert cluster.config_file.is_file()
    finally:
        cluster.stop()

    assert not Path(f"/proc/{pid}").exists() or f"-D{MARKER_PROPERTY}={cluster.directory}" not in cmdline(pid)
    assert not cluster.pid_file.exists()
    assert cluster.running_pid() is None


def test_a_taken_port_fails_the_start_with_the_log_tail_and_leaves_nothing_running(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        cluster = LocalHdfs(tmp_path / "hdfs", holder.getsockname()[1])

        with pytest.raises(PortInUseError, match="Address already in use"):
            cluster.start()

    assert cluster.running_pid() is None
    assert not cluster.pid_file.exists()


def test_stop_leaves_a_foreign_process_named_by_a_stale_pid_file_alone(tmp_path: Path) -> None:
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        cluster = LocalHdfs(tmp_path / "hdfs", free_port())
        cluster.directory.mkdir(parents=True)
        cluster.pid_file.write_text(f"{stranger.pid}\n")

        cluster.stop()

        assert stranger.poll() is None
        assert not cluster.pid_file.exists()
    finally:
        stranger.kill()
        stranger.wait()


@pytest.mark.spark
def test_spark_writes_and_reads_parquet_on_hdfs(local_spark: SparkSession, hdfs_url: str) -> None:
    target = f"{hdfs_url}/t/{uuid.uuid4().hex}"
    frame = local_spark.range(20).selectExpr("id", "concat('name-', id) AS name").repartition(2)

    # The marker file is asked for by this write: a borrowed session of the sink's has it turned off.
    frame.write.option("mapreduce.fileoutputcommitter.marksuccessfuljobs", "true").parquet(target)

    back = local_spark.read.parquet(target)
    assert sorted((row.id, row.name) for row in back.collect()) == [(i, f"name-{i}") for i in range(20)]
    fs, path = hadoop_path(local_spark, target)
    assert fs.getUri().toString() == hdfs_url  # the data lives in HDFS, not in a local fallback
    names = [status.getPath().getName() for status in fs.listStatus(path)]
    assert "_SUCCESS" in names
    assert sum(name.endswith(".parquet") for name in names) == 2


@pytest.mark.spark
def test_exclusive_create_of_an_existing_file_fails(local_spark: SparkSession, hdfs_url: str) -> None:
    fs, path = hadoop_path(local_spark, f"{hdfs_url}/manifests/{uuid.uuid4().hex}.json")
    first = fs.create(path, False)
    first.write(b"first")
    first.close()

    with pytest.raises(Py4JJavaError) as refused:
        fs.create(path, False)

    assert refused.value.java_exception.getClass().getName() == "org.apache.hadoop.fs.FileAlreadyExistsException"
    assert fs.getFileStatus(path).getLen() == len(b"first")
