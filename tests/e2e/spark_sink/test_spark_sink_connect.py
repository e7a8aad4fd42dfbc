"""The Spark Parquet sink over Spark Connect, against a real Spark Connect server.

The server is Spark's own (`SparkConnectServer` from the jars pyspark ships, started with its
`spark-submit`, local[1] on loopback); a `kconnect standalone` worker runs the sink with
`spark.master=sc://...`. The worker has no JVM of its own: batches travel to the server as Arrow
(the only hand-off a Connect client has), the server's Spark writes the staging files, and the worker
commits and publishes them on the file:// path both see. A path the worker cannot reach without a JVM
of its own (hdfs://) fails the task with a message saying so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pyspark
import pytest

from tests.fixtures.spark_cds import driver_java_options
from tests.fixtures.tcp_ports import free_port
from tests.support.spark_sink_workers import (
    FLUSH_SIZE,
    PARTITIONS,
    SequenceProducer,
    SinkWorker,
    all_committed,
    assert_exactly_once,
    logged,
    sink_file,
    wait_for,
    worker_file,
)
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

SERVER_MAIN = "org.apache.spark.sql.connect.service.SparkConnectServer"


@pytest.fixture
def connect_server(tmp_path: Path) -> Iterator[str]:
    """A Spark Connect server on loopback; yields its sc:// address."""
    spark_home = os.path.dirname(pyspark.__file__)
    port = free_port()
    log_file = tmp_path / "connect-server.log"
    command = [
        os.path.join(spark_home, "bin", "spark-submit"),
        "--class", SERVER_MAIN,
        "--master", "local[1]",
        "--conf", f"spark.connect.grpc.binding.port={port}",
        "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
        "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.driver.bindAddress=127.0.0.1",
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.driver.memory=512m",
        "--conf", f"spark.driver.extraJavaOptions={driver_java_options()}",
    ]  # fmt: skip
    with log_file.open("ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env={**os.environ, "SPARK_HOME": spark_home},
            cwd=tmp_path,
            start_new_session=True,
        )
    try:

        def started() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"the Spark Connect server exited:\n{log_file.read_text()[-4000:]}")
            return "Spark Connect server started at" in log_file.read_text(errors="replace")

        wait_until(started, 180, "the Spark Connect server", interval=0.2)
        yield f"sc://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def test_the_sink_writes_exactly_once_through_a_spark_connect_server(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    connect_server: str,
    sink_workers: list[SinkWorker],
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    root = tmp_path / "out"
    producer = SequenceProducer(kafka_bootstrap, topic)
    producer.send(3 * FLUSH_SIZE * PARTITIONS)
    remote = {"spark.master": connect_server}
    worker = SinkWorker(
        worker_file(tmp_path, kafka_bootstrap, "worker"),
        sink_file(tmp_path, "spark-remote", topic, root, **remote),
        tmp_path / "worker.log",
    )
    sink_workers.append(worker)
    wait_for(lambda: all_committed(root, topic, producer.per_partition()), 180, "every record committed", worker)
    assert_exactly_once(root, topic, producer)
    assert logged(worker, "hands batches to Spark as Arrow batches"), worker.log_tail()
    assert (tmp_path / "connect-server.log").read_text().count("Spark Connect server started") == 1

    producer.send(FLUSH_SIZE * PARTITIONS)  # later flushes reuse the session
    wait_for(lambda: all_committed(root, topic, producer.per_partition()), 120, "the next files", worker)
    assert_exactly_once(root, topic, producer)
    assert worker.terminate() == 0, worker.log_tail()


def test_a_path_that_needs_a_local_jvm_fails_the_task_with_a_clear_message(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    connect_server: str,
    sink_workers: list[SinkWorker],
) -> None:
    topic = topic_factory(partitions=1)
    SequenceProducer(kafka_bootstrap, topic).send(1)
    hdfs = {"spark.master": connect_server, "path": "hdfs://127.0.0.1:9/kconnect"}
    worker = SinkWorker(
        worker_file(tmp_path, kafka_bootstrap, "worker"),
        sink_file(tmp_path, "spark-hdfs", topic, tmp_path / "unused", **hdfs),
        tmp_path / "worker.log",
    )
    sink_workers.append(worker)
    message = "with Spark Connect (spark.master=sc://...) the sink writes to file:// paths only"
    wait_for(lambda: logged(worker, message), 120, "the task's failure", worker)
