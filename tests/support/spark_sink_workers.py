"""Real `kconnect standalone` workers running the Spark Parquet sink, and what the e2e tests check on its output.

A worker runs in a process group of its own (its Spark JVM, if any, joins it) and logs to a file; the
records are sequence-numbered JSON; the checks read the commit manifests and, with pyarrow, every
published file, on a local path or on any filesystem pyarrow reads (`Output`: HDFS through WebHDFS).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from confluent_kafka import Producer

from tests.fixtures.s3.plugin import S3Endpoint
from tests.fixtures.spark_cds import driver_java_options
from tests.support.spark_crash import CRASH_AT_ENV
from tests.support.waiting import wait_until

FLUSH_SIZE = 100
PARTITIONS = 3
SPARK_OPTIONS = {
    "spark.master": "local[1]",
    "spark.driver.memory": "512m",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    # Short-lived JVMs: the C1 compiler alone, and the machine's class-data archive when it has one.
    "spark.driver.extraJavaOptions": driver_java_options(),
}


class SinkWorker:
    """`kconnect standalone worker.properties sink.properties` in a process group of its own, logging to a file."""

    def __init__(self, worker_file: Path, sink_file: Path, log_file: Path, env: Mapping[str, str] | None = None):
        self.log_file = log_file
        environment = {k: v for k, v in os.environ.items() if k != CRASH_AT_ENV}
        environment.update(env or {})
        with log_file.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "workers.cli", "standalone", str(worker_file), str(sink_file)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=environment,
                start_new_session=True,  # the Spark JVM joins the group: cleanup reaches it too
            )

    def log(self) -> str:
        return self.log_file.read_text(errors="replace")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(line for line in self.log().splitlines() if not line.startswith("\tat "))[-6000:]

    def writer_id(self) -> str | None:
        match = re.search(r"Spark Parquet sink task (\w+) writes to", self.log())
        return match.group(1) if match else None

    def exit_code(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the worker did not exit within {timeout:.0f} s:\n{self.log_tail()}") from None

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM (a graceful stop) and the exit code."""
        self.process.send_signal(signal.SIGTERM)
        return self.exit_code(timeout)

    def kill(self) -> None:
        """SIGKILL the worker; its Spark JVM follows (it exits when the Python side of its pipe is gone)."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def cleanup(self) -> None:
        """Stop whatever is left of this worker's process group (the worker itself and its JVM)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)


def write_properties(path: Path, props: Mapping[str, str]) -> Path:
    path.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    return path


def worker_file(directory: Path, bootstrap: str, name: str, **extra: str) -> Path:
    """`extra` with `_` for `.` (`task_isolation`)."""
    return write_properties(
        directory / f"{name}.properties",
        {
            "bootstrap.servers": bootstrap,
            "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "offset.storage.file.filename": str(directory / f"{name}.offsets"),
            "offset.flush.interval.ms": "500",
            "listeners": "http://127.0.0.1:0",
            "consumer.session.timeout.ms": "6000",
            "consumer.heartbeat.interval.ms": "1000",
            **{key.replace("_", "."): value for key, value in extra.items()},
        },
    )


def sink_file(directory: Path, name: str, topic: str, root: Path | str, **extra: str) -> Path:
    """`root`: a local directory or a URL (hdfs://...)."""
    return write_properties(
        directory / f"{name}-sink.properties",
        {
            "name": name,
            "connector.class": "SparkParquetSinkConnector",
            "tasks.max": "1",
            "topics": topic,
            "path": str(root),
            "flush.size": str(FLUSH_SIZE),
            "store.kafka.metadata": "true",
            **SPARK_OPTIONS,
            **extra,
        },
    )


def json_sequence_value(seq: int) -> bytes:
    return json.dumps({"seq": seq, "payload": f"record-{seq:06d}"}).encode()


class SequenceProducer:
    """Produces records with a field `seq` = n, n counting up from 0, partition n % PARTITIONS: by default
    `{"seq": n, ...}` as JSON, else whatever `serialize(n)` gives."""

    def __init__(self, bootstrap: str, topic: str, serialize: Callable[[int], bytes] = json_sequence_value) -> None:
        self._producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        self._serialize = serialize
        self.topic = topic
        self.sent = 0

    def send(self, count: int) -> None:
        for _ in range(count):
            value = self._serialize(self.sent)
            self._producer.produce(self.topic, value, partition=self.sent % PARTITIONS)
            self.sent += 1
        assert self._producer.flush(30) == 0, "every record acknowledged"

    def per_partition(self) -> dict[int, int]:
        return {p: len(range(p, self.sent, PARTITIONS)) for p in range(PARTITIONS)}


@dataclass(frozen=True)
class Output:
    """A sink's output root as pyarrow sees it: a filesystem and the root's path on it."""

    fs: pafs.FileSystem
    root: str

    @staticmethod
    def of(root: Path | Output) -> Output:
        """A local directory on pyarrow's local filesystem; an Output as it is."""
        return root if isinstance(root, Output) else Output(pafs.LocalFileSystem(), str(root))

    def files(self, directory: str, suffix: str) -> list[str]:
        """Paths relative to the root of the files under `directory` (recursively) whose names end in `suffix`."""
        selector = pafs.FileSelector(f"{self.root}/{directory}", recursive=True, allow_not_found=True)
        prefix = self.root.rstrip("/") + "/"
        return sorted(
            info.path.removeprefix(prefix)
            for info in self.fs.get_file_info(selector)
            if info.type == pafs.FileType.File and info.path.endswith(suffix)
        )

    def is_file(self, path: str) -> bool:
        return bool(self.fs.get_file_info(f"{self.root}/{path}").type == pafs.FileType.File)

    def read_bytes(self, path: str) -> bytes:
        with self.fs.open_input_file(f"{self.root}/{path}") as file:
            return bytes(file.read())

    def parquet(self, path: str) -> pq.ParquetFile:
        return pq.ParquetFile(f"{self.root}/{path}", filesystem=self.fs)


def newest_manifests(root: Path | Output, topic: str) -> dict[int, dict[str, object]]:
    """Per partition, the newest complete commit manifest (what is committed).

    On HDFS a manifest being written is visible, empty or partial, until its writer closes it: that one
    does not count yet."""
    output = Output.of(root)
    newest: dict[int, dict[str, object]] = {}
    for partition in range(PARTITIONS):
        for name in reversed(output.files(f"_commits/{topic}/{partition}", ".json")):
            with contextlib.suppress(ValueError):
                newest[partition] = json.loads(output.read_bytes(name))
                break
    return newest


def all_committed(root: Path | Output, topic: str, expected: Mapping[int, int]) -> bool:
    """Every partition's newest manifest ends at its last record, and that commit's files are in place.

    The manifest is the commit point; its files are moved to their final names right after it, so a reader
    of <root>/topics sees them a moment later (the moves of older commits finish before the next manifest).
    """
    output = Output.of(root)
    newest = newest_manifests(output, topic)
    return all(
        p in newest
        and newest[p]["end_offset"] == count - 1
        and all(output.is_file(str(f["path"])) for f in newest[p]["files"])  # type: ignore[attr-defined]
        for p, count in expected.items()
    )


def committed_rows(root: Path | Output) -> pa.Table:
    """Every row of every published file (what a reader of <root>/topics sees), read with pyarrow."""
    output = Output.of(root)
    columns = ["_topic", "_partition", "_offset", "seq"]
    tables = [output.parquet(path).read(columns=columns) for path in output.files("topics", ".parquet")]
    return pa.concat_tables(tables) if tables else pa.table({c: pa.array([], pa.int64()) for c in columns})


def positions(rows: pa.Table) -> list[tuple[str, int, int]]:
    """(topic, partition, offset) of every row."""
    columns = (rows["_topic"].to_pylist(), rows["_partition"].to_pylist(), rows["_offset"].to_pylist())
    return list(zip(*columns, strict=True))


def assert_no_duplicates_and_a_prefix(root: Path | Output, topic: str) -> dict[int, int]:
    """Published offsets so far: each once, and per partition 0..k-1 without holes. Returns k per partition."""
    offsets: dict[int, list[int]] = collections.defaultdict(list)
    for t, p, o in positions(committed_rows(root)):
        assert t == topic
        offsets[p].append(o)
    for partition, found in offsets.items():
        assert sorted(found) == list(range(len(found))), f"partition {partition}: duplicates or a hole"
    return {p: len(found) for p, found in offsets.items()}


def assert_exactly_once(root: Path | Output, topic: str, producer: SequenceProducer) -> None:
    rows = committed_rows(root)
    keys = positions(rows)
    repeated = [key for key, n in collections.Counter(keys).items() if n > 1]
    assert not repeated, f"{len(repeated)} (topic, partition, offset) committed more than once, e.g. {repeated[:5]}"
    expected = {(topic, p, o) for p, count in producer.per_partition().items() for o in range(count)}
    missing = expected - set(keys)
    assert not missing, f"{len(missing)} offsets missing, e.g. {sorted(missing)[:5]}"
    assert set(keys) == expected, "nothing beyond what was produced"
    assert sorted(rows["seq"].to_pylist()) == list(range(producer.sent)), "every sequence number exactly once"


def logged(worker: SinkWorker, text: str) -> bool:
    return text in worker.log()


def owns_every_partition(worker: SinkWorker) -> bool:
    assignments = re.findall(r"assigned \[(.*)\]", worker.log())
    return bool(assignments) and assignments[-1].count("TopicPartition(") == PARTITIONS


def wait_for(condition: Callable[[], object], timeout: float, what: str, worker: SinkWorker) -> None:
    def check() -> object:
        if worker.process.poll() is not None:
            raise AssertionError(f"the worker exited with {worker.process.returncode}:\n{worker.log_tail()}")
        return condition()

    wait_until(check, timeout, what, interval=0.2)


def new_bucket(local_s3: S3Endpoint) -> str:
    name = f"kconnect-{uuid.uuid4().hex[:12]}"
    local_s3.server.create_bucket(name)
    return name
