"""The Spark Parquet sink on a real HDFS (the session's MiniDFSCluster, `hdfs_url`).

A standalone worker moves sequence-numbered JSON records from Kafka to hdfs:// and Spark reads every
offset back exactly once; manifests are created exclusively (concurrent writers of one commit number:
one wins); and a task that fails between two commit steps is recovered by the next one on HDFS, whose
rename and delete semantics differ from a local disk's.
"""

from __future__ import annotations

import collections
import json
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from connect.api import ConnectError, TopicPartition
from spark_sink.commit import _create
from spark_sink.faults import CommitStep
from spark_sink.layout import parse_file_name
from spark_sink.manifest import Manifest, ManifestError
from spark_sink.recovery import manifest_seqs, read_manifest, recover_partition
from spark_sink.session import SESSIONS
from spark_sink.storage.hadoop import HadoopStorage
from tests.support.spark_harness import SinkHarness, json_records
from tests.support.standalone_workers import all_running, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.spark]

# The Spark tier's options: in a run of both tiers the one shared session matches what each asks for.
SPARK_OPTIONS = {"spark.master": "local[2]", "spark.driver.memory": "1g"}
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
PARTITIONS = 3
PER_PARTITION = 250


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    lease = SESSIONS.acquire(SPARK_OPTIONS)
    lease.spark.sparkContext.setLogLevel("ERROR")
    yield lease.spark
    lease.release()


@pytest.fixture
def hdfs_root(hdfs_url: str) -> str:
    return f"{hdfs_url}/kconnect-it/{uuid.uuid4().hex[:12]}"


def produce_sequence(bootstrap: str, topic: str, count: int) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for seq in range(count):
        producer.produce(
            topic, json.dumps({"seq": seq, "name": f"user-{seq % 7}"}).encode(), partition=seq % PARTITIONS
        )
    assert producer.flush(30) == 0


def published_to(storage: HadoopStorage, tp: TopicPartition) -> int | None:
    """The end offset of the partition's last commit manifest; None before the first, or while the last is
    still being written (HDFS shows a file being created, empty, before its writer closes it)."""
    seqs = manifest_seqs(storage, tp)
    if not seqs:
        return None
    try:
        return read_manifest(storage, tp, seqs[-1]).end_offset
    except ManifestError:
        return None


def test_a_worker_writes_every_record_to_hdfs_exactly_once(
    kafka_bootstrap: str, topic_factory: Callable[..., str], hdfs_root: str, spark: Any, tmp_path: Path
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    produce_sequence(kafka_bootstrap, topic, PARTITIONS * PER_PARTITION)
    props = worker_props(kafka_bootstrap, tmp_path / "connect.offsets", **{"key.converter": BYTES})
    props["value.converter"] = BYTES
    sink = {
        "connector.class": "SparkParquetSinkConnector",
        "topics": topic,
        "path": hdfs_root,
        "flush.size": "100",
        "rotate.interval.ms": "2000",  # the last 50 records of each partition go by wall clock
        "store.kafka.metadata": "true",
        **SPARK_OPTIONS,
    }
    storage = HadoopStorage(hdfs_root, spark)
    partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]

    with running_worker(props) as (_, client):
        assert client.put("/connectors/hdfs-sink/config", json=sink).status_code == 201
        wait_until(
            lambda: all(published_to(storage, tp) == PER_PARTITION - 1 for tp in partitions),
            120,
            "every offset committed on HDFS",
            interval=0.5,
        )
        assert all_running(client, "hdfs-sink", 1)

    rows = spark.read.parquet(f"{hdfs_root}/topics").select("_topic", "_partition", "_offset", "seq").collect()
    counts = collections.Counter((r["_topic"], r["_partition"], r["_offset"]) for r in rows)
    assert [key for key, n in counts.items() if n > 1] == [], "no offset twice"
    assert set(counts) == {(topic, p, o) for p in range(PARTITIONS) for o in range(PER_PARTITION)}, "no gaps"
    assert sorted(r["seq"] for r in rows) == list(range(PARTITIONS * PER_PARTITION))

    files = [path for path, is_dir in storage.walk("topics") if not is_dir]
    names = [parse_file_name(path.rsplit("/", 1)[1]) for path in files]
    assert all(name is not None for name in names), files
    for partition in range(PARTITIONS):
        ranges = sorted((n.start_offset, n.end_offset) for n in names if n is not None and n.partition == partition)
        assert ranges == [(0, 99), (100, 199), (200, 249)], f"files of partition {partition}: {ranges}"
        assert f"topics/{topic}/partition={partition}/" in " ".join(files)
    assert storage.list_dir("_staging") == [], "staging is cleaned up after every epoch"


def test_manifests_are_created_exclusively_on_hdfs(hdfs_root: str, spark: Any) -> None:
    storage = HadoopStorage(hdfs_root, spark)
    tp = TopicPartition("orders", 4)

    def manifest(seq: int, writer: str) -> Manifest:
        return Manifest("orders", 4, seq, seq * 10, seq * 10 + 9, (), f"epoch-{writer}", writer, 1)

    # Eight writers race for commit 0: HDFS's create(overwrite=false) lets exactly one of them have it.
    with ThreadPoolExecutor(8) as pool:
        won = list(pool.map(lambda i: _create(storage, manifest(0, f"w{i}")), range(8)))
    assert won.count(True) == 1
    assert read_manifest(storage, tp, 0).writer == f"w{won.index(True)}", "the winner's content, complete"
    assert not _create(storage, manifest(0, "late")), "an existing manifest is never replaced"

    # A zombie that still believes in an old number loses even when pruning freed that slot.
    assert _create(storage, manifest(5, "owner"))
    storage.delete("_commits/orders/4/00000000000000000000.json")
    assert not _create(storage, manifest(0, "zombie"))
    assert manifest_seqs(storage, tp) == [5], "the zombie's manifest was withdrawn"
    recovered = recover_partition(storage, tp)
    assert (recovered.next_seq, recovered.published_end) == (6, 59)


class Crash(Exception):
    pass


@pytest.mark.parametrize(
    "step", [CommitStep.STAGED, CommitStep.MANIFEST_CREATED, CommitStep.FILE_MOVED], ids=lambda s: s.value
)
def test_a_new_task_recovers_on_hdfs_after_a_failure_between_commit_steps(
    hdfs_root: str, spark: Any, tmp_path: Path, step: CommitStep
) -> None:
    tp0, tp1 = TopicPartition("events", 0), TopicPartition("events", 1)
    props = {"path": hdfs_root, "flush.size": "40", "store.kafka.metadata": "true", **SPARK_OPTIONS}
    crashed = SinkHarness(tmp_path / "unused", props)

    def crash(at: CommitStep, tp: TopicPartition | None) -> None:
        if at is step:
            raise Crash(f"crash at {step.value}")

    crashed.task.fault_injector = crash
    try:
        crashed.open(tp0, tp1)
        crashed.put(json_records(tp0, range(0, 80)) + json_records(tp1, range(0, 80)))
        assert not crashed.task.wait_until_written(120), "the writer stopped at the failure"
        with pytest.raises(ConnectError, match="crash at"):
            crashed.put([])
    finally:
        crashed.stop()

    recovered = SinkHarness(tmp_path / "unused", props)
    try:
        resume = recovered.open(tp0, tp1)
        for tp in (tp0, tp1):
            recovered.put(json_records(tp, range(resume.get(tp, 0), 120)))
        assert recovered.flush_all(120) == {tp0: 120, tp1: 120}
    finally:
        recovered.stop()

    rows = spark.read.parquet(f"{hdfs_root}/topics").select("_partition", "_offset").collect()
    counts = collections.Counter((r["_partition"], r["_offset"]) for r in rows)
    assert set(counts) == {(p, o) for p in (0, 1) for o in range(120)} and set(counts.values()) == {1}
