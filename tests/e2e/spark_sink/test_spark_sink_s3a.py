"""The Spark Parquet sink on S3 through Hadoop's S3A connector, against a local S3 endpoint (moto).

What differs from a disk or HDFS: a rename is a copy and a delete, an object appears only when its
upload completes, and `create(overwrite=false)` is a check before an upload, not an atomic create. The
sink's manifest (the commit point) therefore needs S3's conditional PUT (`If-None-Match: *`), which
S3A sends when the create asks for `fs.option.create.conditional.overwrite`:

- two writers that both opened one manifest path: the second loses at close, and the first's
  manifest stays; the same race with conditional create switched off shows the overwrite that the
  option prevents;
- a real worker killed with -9 after a manifest and in the middle of publishing, then restarted:
  every (topic, partition, offset) is in the published files exactly once, read back with pyarrow's
  own S3 filesystem and Hive-style partition discovery; what the kills left in staging is swept away
  at the next partition assignment.
"""

from __future__ import annotations

import functools
import json
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pytest

from spark_sink.faults import CommitStep
from tests.fixtures.s3.plugin import S3Endpoint
from tests.support.spark_crash import CRASH_AT_ENV, CRASHING_SINK
from tests.support.spark_sink_workers import (
    FLUSH_SIZE,
    PARTITIONS,
    SPARK_OPTIONS,
    SequenceProducer,
    SinkWorker,
    logged,
    new_bucket,
    wait_for,
    worker_file,
    write_properties,
)

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

CRASH_STEPS = (CommitStep.MANIFEST_CREATED, CommitStep.FILE_MOVED)


def test_a_manifest_create_on_s3a_is_exclusive_even_when_both_writers_passed_the_existence_check(
    local_s3: S3Endpoint,
) -> None:
    bucket, plain_bucket = new_bucket(local_s3), new_bucket(local_s3)
    options = {**SPARK_OPTIONS, **local_s3.spark_options}
    probe = subprocess.run(
        [sys.executable, "-m", "tests.fixtures.s3.manifest_race", json.dumps(options), bucket, plain_bucket],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr[-4000:]
    outcome = json.loads(probe.stdout.strip().splitlines()[-1])

    guarded = outcome["conditional"]
    assert guarded["conditional_create"], "S3A declares conditional create, and the sink uses it"
    assert guarded["second_opened"], "both writers got past overwrite=false: S3 has no atomic check there"
    assert (guarded["first_won"], guarded["second_won"]) == (True, False), "exactly one writer has the manifest"
    assert guarded["content"] == "first", "the winner's manifest is not replaced"
    assert not guarded["late_create_won"], "an existing manifest is never replaced"

    # Without conditional create the second upload silently replaces the committed manifest: the
    # sink warns about such stores, and this is why.
    plain = outcome["plain"]
    assert not plain["conditional_create"]
    assert (plain["first_won"], plain["second_won"], plain["content"]) == (True, True, "second")


def sink_properties(directory: Path, topic: str, root: str, options: Mapping[str, str]) -> Path:
    return write_properties(
        directory / "s3a-sink.properties",
        {
            "name": "s3a-sink",
            "connector.class": "SparkParquetSinkConnector",
            "tasks.max": "1",
            "topics": topic,
            "path": root,
            "flush.size": str(FLUSH_SIZE),
            "store.kafka.metadata": "true",
            **SPARK_OPTIONS,
            **options,
        },
    )


class S3Output:
    """The sink's output under s3a://bucket/prefix, read with pyarrow's S3 filesystem (not Hadoop's)."""

    def __init__(self, fs: pafs.FileSystem, bucket: str, prefix: str) -> None:
        self.fs = fs
        self.base = f"{bucket}/{prefix}"

    def files(self, directory: str) -> list[str]:
        selector = pafs.FileSelector(f"{self.base}/{directory}", recursive=True, allow_not_found=True)
        return sorted(info.path for info in self.fs.get_file_info(selector) if info.type == pafs.FileType.File)

    def newest_manifest(self, topic: str, partition: int) -> dict[str, Any] | None:
        names = [path for path in self.files(f"_commits/{topic}/{partition}") if path.endswith(".json")]
        if not names:
            return None
        with self.fs.open_input_stream(names[-1]) as stream:
            manifest: dict[str, Any] = json.loads(stream.read())
        return manifest

    def all_committed(self, topic: str, expected: Mapping[int, int]) -> bool:
        for partition, count in expected.items():
            manifest = self.newest_manifest(topic, partition)
            if manifest is None or manifest["end_offset"] != count - 1:
                return False
            published = self.fs.get_file_info([f"{self.base}/{f['path']}" for f in manifest["files"]])
            if any(info.type != pafs.FileType.File for info in published):
                return False
        return True

    def positions(self) -> list[tuple[str, int, int]]:
        dataset = ds.dataset(f"{self.base}/topics", filesystem=self.fs, format="parquet", partitioning="hive")
        rows = dataset.to_table(columns=["_topic", "_partition", "_offset"])
        columns = (rows["_topic"].to_pylist(), rows["_partition"].to_pylist(), rows["_offset"].to_pylist())
        return list(zip(*columns, strict=True))


@pytest.mark.slow
def test_kill_9_while_committing_to_s3a_then_restart_publishes_every_offset_once(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    sink_workers: list[SinkWorker],
    local_s3: S3Endpoint,
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    bucket = new_bucket(local_s3)
    output = S3Output(local_s3.pyarrow_fs(), bucket, "sink")
    producer = SequenceProducer(kafka_bootstrap, topic)
    worker_props = worker_file(tmp_path, kafka_bootstrap, "worker")
    # Static membership: a restarted worker takes the killed one's place at once, without a session timeout.
    overrides = {
        "consumer.override.group.instance.id": "s3a",
        "batch.handoff": "parquet",
        "connector.class": CRASHING_SINK,
        **local_s3.spark_options,
    }
    sink_props = sink_properties(tmp_path, topic, f"s3a://{bucket}/sink", overrides)

    for round_number, step in enumerate(CRASH_STEPS):
        producer.send(2 * FLUSH_SIZE * PARTITIONS)
        crashed = SinkWorker(worker_props, sink_props, tmp_path / f"{step.value}.log", {CRASH_AT_ENV: step.name})
        sink_workers.append(crashed)
        code = crashed.exit_code(180)
        assert code == -signal.SIGKILL, f"killed at {step.name}, exit code {code}:\n{crashed.log_tail()}"
        assert f"{CRASH_AT_ENV}={step.name}: killing this process" in crashed.log(), crashed.log_tail()

        restarted = SinkWorker(worker_props, sink_props, tmp_path / f"{step.value}-restart.log")
        sink_workers.append(restarted)
        expected = producer.per_partition()
        committed = functools.partial(output.all_committed, topic, expected)
        wait_for(committed, 180, "every record committed on S3", restarted)
        assert restarted.terminate() == 0, restarted.log_tail()

        keys = output.positions()
        assert len(keys) == len(set(keys)), f"round {round_number}: an offset was published twice"
        assert set(keys) == {(topic, p, o) for p, n in expected.items() for o in range(n)}, "no gaps"

    # A killed epoch may have staged files for partitions whose manifests the restarts then wrote from
    # new epochs: garbage that the next partition assignment sweeps away, leaving staging empty.
    sweeper = SinkWorker(worker_props, sink_props, tmp_path / "sweep.log")
    sink_workers.append(sweeper)
    wait_for(functools.partial(logged, sweeper, "s3a-sink-0: assigned"), 120, "the next assignment", sweeper)
    wait_for(lambda: output.files("_staging") == [], 120, "staging emptied at the next assignment", sweeper)
    assert sweeper.terminate() == 0, sweeper.log_tail()
    assert len(output.positions()) == sum(producer.per_partition().values()), "the sweep removed no published row"
