"""The Spark Parquet sink on a real Spark standalone cluster, writing to a real HDFS.

The cluster is Spark's own master and two workers from pyspark's distribution (`spark_standalone`,
tests/fixtures/spark_standalone: 1 core and 1 GB each on loopback); the output root is on the session's
MiniDFSCluster (`hdfs`). A `kconnect standalone` worker runs the sink with
`spark.master=spark://127.0.0.1:<port>`: its SparkSession is the application's driver, the executors
run in the Spark workers' JVMs, and only HDFS is shared between them. Every check reads the published
Parquet back with pyarrow (over WebHDFS): each (topic, partition, offset) and each sequence number once,
no gaps.

- a pipeline with the Parquet hand-off, whose hand-off files the executors read from `_handoff/` on HDFS;
- the kconnect worker killed with -9 while records keep arriving, then restarted (a new application);
- one Spark worker killed with -9 (its daemon and its executor, as when its machine is lost) while a task
  of the sink's job runs there: the task runs again on the other worker, and the sink neither fails nor
  loses or repeats a record.
"""

from __future__ import annotations

import functools
import json
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.hdfs.plugin import HdfsEndpoint
from tests.fixtures.spark_standalone import SparkStandalone
from tests.fixtures.tcp_ports import free_port
from tests.support.spark_sink_workers import (
    FLUSH_SIZE,
    PARTITIONS,
    SPARK_OPTIONS,
    Output,
    SequenceProducer,
    SinkWorker,
    all_committed,
    assert_exactly_once,
    logged,
    newest_manifests,
    sink_file,
    wait_for,
    worker_file,
)
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def cluster_options(cluster: SparkStandalone) -> dict[str, str]:
    """The sink's Spark settings for the test cluster: the driver on loopback, small executors, no driver UI."""
    return {
        **SPARK_OPTIONS,
        "spark.master": cluster.master_url,
        "spark.executor.memory": "512m",
        "spark.executor.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        "spark.ui.enabled": "false",
    }


def hdfs_output(hdfs: HdfsEndpoint) -> tuple[str, Output]:
    """A fresh output root on HDFS: its URL (the sink's `path`) and how pyarrow reads it."""
    url = f"{hdfs.url}/kconnect-standalone/{uuid.uuid4().hex[:12]}"
    return url, Output(hdfs.pyarrow_fs(), hdfs.path_of(url))


def executors_ran_tasks(cluster: SparkStandalone) -> bool:
    """Some executor in the cluster's workers finished a task (the jobs ran there, not in the driver)."""
    return any(
        "Finished task" in log.read_text(errors="replace")
        for index in range(cluster.workers)
        for log in cluster.executor_logs(index)
    )


class DriverStatus:
    """The sink's Spark application as its driver reports it: Spark's monitoring REST API on the driver's UI."""

    def __init__(self, ui_port: int) -> None:
        self.base = f"http://127.0.0.1:{ui_port}/api/v1/applications"

    def _get(self, path: str) -> Any:
        with _NO_PROXY.open(f"{self.base}{path}", timeout=5) as response:
            return json.load(response)

    def busy_executor(self) -> tuple[str, str, int] | None:
        """(application id, executor id, stage id) of an executor running a task right now; None if none does."""
        try:
            app_id = self._get("")[0]["id"]
            busy = [e["id"] for e in self._get(f"/{app_id}/executors") if e["id"] != "driver" and e["activeTasks"]]
            stages = self._get(f"/{app_id}/stages?status=active")
        except (OSError, ValueError, LookupError):
            return None  # not up yet
        return (app_id, busy[0], stages[0]["stageId"]) if busy and stages else None

    def finished_stage(self, app_id: str, stage_id: int) -> list[dict[str, Any]] | None:
        """The attempts of a stage once one of them completed (every task event counted by then)."""
        attempts: list[dict[str, Any]] = self._get(f"/{app_id}/stages/{stage_id}")
        return attempts if any(a["status"] == "COMPLETE" for a in attempts) else None


def kill_inside_a_task(cluster: SparkStandalone, driver: DriverStatus) -> int:
    """Kills the Spark worker whose executor runs a task of the sink's job, at once; returns its index.

    Proof that the kill landed inside the task: the stage completes with a failed task (it ran again on
    the other worker). A task of a small flush takes a fraction of a second, so the kill can land after it
    finished; then the worker starts again, the application gets an executor there, and the next task is
    the target (at most 3 tries)."""
    for _ in range(3):
        busy = wait_until(driver.busy_executor, 120, "a running task", interval=0.002)
        assert busy is not None  # wait_until returns a truthy value
        app_id, executor_id, stage_id = busy
        victim = cluster.worker_of(app_id, executor_id)
        assert victim is not None, f"executor {executor_id} of {app_id} runs in no worker of the cluster"
        cluster.kill_worker(victim)
        finished = functools.partial(driver.finished_stage, app_id, stage_id)
        attempts = wait_until(finished, 120, f"stage {stage_id} to complete") or []
        if any(a["numFailedTasks"] for a in attempts):
            return victim
        cluster.ensure_workers()
    raise AssertionError("in 3 tries no kill landed inside a task")


@contextmanager
def producing(producer: SequenceProducer) -> Iterator[None]:
    """Records keep arriving, PARTITIONS * 10 every 0.1 s, until the block ends."""
    stop = threading.Event()

    def produce() -> None:
        while not stop.is_set():
            producer.send(PARTITIONS * 10)
            time.sleep(0.1)

    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(30)


def top_up(producer: SequenceProducer) -> None:
    """Whole files only: without a time-based rotation the sink commits full `flush.size` files."""
    producer.send(-producer.per_partition()[0] % FLUSH_SIZE * PARTITIONS)


@pytest.mark.slow
def test_a_worker_on_a_standalone_cluster_writes_every_record_to_hdfs_exactly_once(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    sink_workers: list[SinkWorker],
    spark_standalone: SparkStandalone,
    hdfs: HdfsEndpoint,
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    url, output = hdfs_output(hdfs)
    producer = SequenceProducer(kafka_bootstrap, topic)
    producer.send(3 * FLUSH_SIZE * PARTITIONS)
    # The Parquet hand-off: executors on other machines read the file from `_handoff/` under the output root.
    options = {**cluster_options(spark_standalone), "batch.handoff": "parquet"}
    worker = SinkWorker(
        worker_file(tmp_path, kafka_bootstrap, "worker"),
        sink_file(tmp_path, "spark-cluster", topic, url, **options),
        tmp_path / "worker.log",
    )
    sink_workers.append(worker)

    wait_for(lambda: all_committed(output, topic, producer.per_partition()), 180, "every record committed", worker)
    assert_exactly_once(output, topic, producer)
    assert logged(worker, "hands batches to Spark as a Parquet file under the output root"), worker.log_tail()
    assert executors_ran_tasks(spark_standalone), "the jobs ran in the cluster's executors"
    assert output.files("_handoff", ".parquet") == [], "each hand-off file is deleted after its job"
    assert worker.terminate() == 0, worker.log_tail()


@pytest.mark.slow
def test_kill_9_of_the_kconnect_worker_mid_stream_then_restart_loses_and_duplicates_nothing(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    sink_workers: list[SinkWorker],
    spark_standalone: SparkStandalone,
    hdfs: HdfsEndpoint,
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    url, output = hdfs_output(hdfs)
    producer = SequenceProducer(kafka_bootstrap, topic)
    producer.send(FLUSH_SIZE * PARTITIONS)
    worker_props = worker_file(tmp_path, kafka_bootstrap, "worker")
    # Static membership: the restarted worker takes the killed one's place at once, without a session timeout.
    sink_props = sink_file(
        tmp_path,
        "spark-cluster-crash",
        topic,
        url,
        **cluster_options(spark_standalone),
        **{"consumer.override.group.instance.id": "standalone-crash"},
    )
    first = SinkWorker(worker_props, sink_props, tmp_path / "first.log")
    sink_workers.append(first)
    wait_for(lambda: len(newest_manifests(output, topic)) == PARTITIONS, 180, "the first commits", first)

    with producing(producer):
        committed = newest_manifests(output, topic)
        wait_for(lambda: newest_manifests(output, topic) != committed, 60, "commits while records arrive", first)
        first.kill()

        restarted = SinkWorker(worker_props, sink_props, tmp_path / "restarted.log")
        sink_workers.append(restarted)
        wait_for(functools.partial(logged, restarted, "spark-cluster-crash-0: assigned"), 120, "the restart", restarted)
    top_up(producer)

    wait_for(lambda: all_committed(output, topic, producer.per_partition()), 180, "every record committed", restarted)
    assert_exactly_once(output, topic, producer)
    assert restarted.terminate() == 0, restarted.log_tail()


@pytest.mark.slow
def test_kill_9_of_a_spark_worker_mid_job_loses_and_duplicates_nothing(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    sink_workers: list[SinkWorker],
    spark_standalone: SparkStandalone,
    hdfs: HdfsEndpoint,
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    url, output = hdfs_output(hdfs)
    producer = SequenceProducer(kafka_bootstrap, topic)
    producer.send(FLUSH_SIZE * PARTITIONS)
    ui_port = free_port()
    # The driver's UI on: its REST API tells which executor runs a task right now (updated at every task event).
    options = {**cluster_options(spark_standalone), "spark.ui.enabled": "true", "spark.ui.port": str(ui_port)}
    options["spark.ui.liveUpdate.period"] = "0ms"
    worker = SinkWorker(
        worker_file(tmp_path, kafka_bootstrap, "worker"),
        sink_file(tmp_path, "spark-cluster-executor", topic, url, **options),
        tmp_path / "worker.log",
    )
    sink_workers.append(worker)
    wait_for(lambda: len(newest_manifests(output, topic)) == PARTITIONS, 180, "the first commits", worker)
    assert all(spark_standalone.executor_pids(i) for i in range(2)), "the application has an executor on each worker"

    with producing(producer):
        victim = kill_inside_a_task(spark_standalone, DriverStatus(ui_port))
        committed = newest_manifests(output, topic)
        wait_for(lambda: newest_manifests(output, topic) != committed, 120, "commits after the kill", worker)
    top_up(producer)

    wait_for(lambda: all_committed(output, topic, producer.per_partition()), 180, "every record committed", worker)
    assert_exactly_once(output, topic, producer)
    assert spark_standalone.executor_pids(victim) == [], "the lost worker's executor is gone with it"
    assert "threw an uncaught and unrecoverable exception" not in worker.log(), "the sink task never failed"
    assert worker.terminate() == 0, worker.log_tail()
