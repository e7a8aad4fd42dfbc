"""Helpers of the distributed e2e tests (this module holds no tests): worker processes, a cluster of them
driven only through REST and signals, and readers of what the connectors left behind.

Each worker is `python -m workers.cli worker worker.properties` on its own fixed loopback port (so that a
restarted worker keeps its id), logging to its own file. Session timeouts are a few seconds (S=3 s,
H=0.5 s) so that failover tests are quick; the failover bounds are asserted against these values.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from tests.fixtures.kafka import new_topic
from tests.fixtures.tcp_ports import free_port
from tests.support.recording_plugins import Run, read_runs
from tests.support.waiting import wait_until

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[2]
SESSION_MS = 3000
HEARTBEAT_MS = 500
S, H = SESSION_MS / 1000, HEARTBEAT_MS / 1000
PLUGINS = "tests.support.recording_plugins"
DATAGEN = f"{PLUGINS}.MarkedDatagenConnector"
SINK = f"{PLUGINS}.RecordingSinkConnector"


class WorkerProcess:
    """One `kconnect worker` child process; `start` may be called again after it exited (a restart)."""

    subcommand = "worker"  # `kconnect <subcommand> <props file>`

    def __init__(self, name: str, props: Mapping[str, str], directory: Path) -> None:
        self.name = name
        self.port = int(props["listeners"].rsplit(":", 1)[1])
        self.worker_id = f"127.0.0.1:{self.port}"
        self.url = f"http://127.0.0.1:{self.port}"
        self.props_file = directory / f"{name}.properties"
        self.props_file.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        self.log_file = directory / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.extra_args: list[str] = []

    def start(self, env: Mapping[str, str] | None = None, with_file: bool = True) -> None:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("KCONNECT_")}
        clean.update({"PYTHONPATH": str(REPO), **(env or {})})
        command = [sys.executable, "-m", "workers.cli", self.subcommand]
        if with_file:
            command.append(str(self.props_file))
        command += self.extra_args
        with self.log_file.open("ab") as log:
            log.write(f"=== start {time.time()} ===\n".encode())
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=REPO, env=clean
            )

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def healthy(self) -> bool:
        if not self.alive():
            raise AssertionError(f"worker {self.name} exited with {self.exit_code()}:\n{self.log_tail()}")
        try:
            return bool(httpx.get(f"{self.url}/health", timeout=2).json().get("status") == "healthy")
        except (httpx.HTTPError, ValueError):
            return False

    def health(self) -> tuple[int, str, str]:
        """`/health` as a container engine's check sees it: HTTP status, `status` and `message`."""
        answer = httpx.get(f"{self.url}/health", timeout=10)
        body = answer.json()
        return answer.status_code, str(body.get("status")), str(body.get("message"))

    def signal(self, signum: int) -> float:
        """Send `signum`; returns the time it was sent (time.time())."""
        assert self.process is not None
        sent = time.time()
        os.kill(self.process.pid, signum)
        return sent

    def wait_exit(self, timeout: float) -> int:
        assert self.process is not None
        return self.process.wait(timeout)

    def exit_code(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def kill(self) -> None:
        if self.alive():
            assert self.process is not None
            os.kill(self.process.pid, signal.SIGCONT)
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def log_text(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])


@dataclass
class Cluster:
    """Workers of one group, plus a REST client that may talk to any of them."""

    bootstrap: str
    group: str
    directory: Path
    runs: Path
    workers: list[WorkerProcess] = field(default_factory=list)
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30))

    def start(self, *workers: WorkerProcess, timeout: float = 60) -> None:
        for worker in workers:
            worker.start()
        for worker in workers:
            wait_until(worker.healthy, timeout, f"worker {worker.name} to be healthy", interval=0.2)

    def alive(self) -> list[WorkerProcess]:
        return [w for w in self.workers if w.alive()]

    def request(self, method: str, path: str, *, via: WorkerProcess | None = None, **kwargs: Any) -> httpx.Response:
        worker = via or self.alive()[0]
        return self.http.request(method, worker.url + path, **kwargs)

    def create(self, name: str, config: Mapping[str, str], via: WorkerProcess | None = None) -> None:
        response = self.request("POST", "/connectors", via=via, json={"name": name, "config": dict(config)})
        assert response.status_code == 201, response.text

    def status(self, name: str, via: WorkerProcess | None = None) -> dict[str, Any] | None:
        try:
            response = self.request("GET", f"/connectors/{name}/status", via=via)
        except httpx.HTTPError:
            return None
        return response.json() if response.status_code == 200 else None

    def task_owners(self, names: list[str], via: WorkerProcess | None = None) -> dict[str, str] | None:
        """`<connector>-<task>` → worker id, if every task of `names` is RUNNING; else None."""
        owners: dict[str, str] = {}
        for name in names:
            status = self.status(name, via)
            if status is None or not status["tasks"] or status["connector"]["state"] != "RUNNING":
                return None
            for task in status["tasks"]:
                if task["state"] != "RUNNING":
                    return None
                owners[f"{name}-{task['id']}"] = task["worker_id"]
        return owners

    def running_on(
        self, names: list[str], tasks: int, workers: list[WorkerProcess], via: WorkerProcess | None = None
    ) -> dict[str, str] | None:
        """The task owners once all `tasks` tasks of `names` are RUNNING, and only on `workers`."""
        owners = self.task_owners(names, via)
        allowed = {w.worker_id for w in workers}
        if owners is None or len(owners) != tasks or not set(owners.values()) <= allowed:
            return None
        return owners

    def wait_running_on(
        self, names: list[str], tasks: int, workers: list[WorkerProcess], timeout: float, what: str
    ) -> dict[str, str]:
        """`running_on` once it holds; on timeout the AssertionError carries each connector's status and the
        workers' log tails, so a failure says which task was not running and why."""
        try:
            return wait_until(lambda: self.running_on(names, tasks, workers), timeout, what)
        except AssertionError as exc:
            statuses = {name: self.status(name) for name in names}
            raise AssertionError(f"{exc}\nstatuses: {statuses}\n{self.logs()}") from None

    def balanced_on(
        self, names: list[str], tasks: int, workers: list[WorkerProcess], via: WorkerProcess | None = None
    ) -> dict[str, str] | None:
        """The task owners once all `tasks` tasks of `names` are RUNNING on `workers`, ±1 task per worker."""
        owners = self.running_on(names, tasks, workers, via)
        return owners if owners is not None and balanced(owners, workers) else None

    def logs(self) -> str:
        return "\n\n".join(f"--- {w.name} ---\n{w.log_tail(60)}" for w in self.workers)

    def stop(self) -> None:
        for worker in self.workers:
            worker.kill()
        self.http.close()


def per_worker(owners: Mapping[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for worker in owners.values():
        counts[worker] = counts.get(worker, 0) + 1
    return counts


def balanced(owners: Mapping[str, str], workers: list[WorkerProcess]) -> bool:
    counts = [per_worker(owners).get(w.worker_id, 0) for w in workers]
    return max(counts) - min(counts) <= 1


@contextmanager
def cluster_factory(bootstrap: str, directory: Path) -> Iterator[Callable[..., Cluster]]:
    """`make(workers=3, **extra_props) -> Cluster`: a new group on its own internal topics, started and
    healthy; every worker is killed on exit. `extra_props` use `_` for `.` (`exactly_once_source_support`)."""
    made: list[Cluster] = []

    def make(workers: int = 3, **extra: str) -> Cluster:
        group = f"kc-e2e-{uuid.uuid4().hex[:8]}"
        runs = directory / f"runs-{group}"
        runs.mkdir()
        cluster = Cluster(bootstrap, group, directory, runs)
        made.append(cluster)
        for index in range(workers):
            props = worker_props(bootstrap, group, **extra)
            cluster.workers.append(WorkerProcess(f"{group}-w{index + 1}", props, directory))
        cluster.start(*cluster.workers)
        return cluster

    try:
        yield make
    finally:
        for cluster in made:
            cluster.stop()


def worker_props(bootstrap: str, group: str, **extra: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "-1",
        "offset.storage.replication.factor": "-1",
        "status.storage.replication.factor": "-1",
        "offset.storage.partitions": "5",
        "session.timeout.ms": str(SESSION_MS),
        "heartbeat.interval.ms": str(HEARTBEAT_MS),
        "offset.flush.interval.ms": "1000",
        "task.balance.delay.ms": "1000",
        "listeners": f"http://127.0.0.1:{free_port()}",
        **{k.replace("_", "."): v for k, v in extra.items()},
    }


def datagen_config(
    cluster: Cluster, topic: str, *, tasks: int = 6, rate: float = 300, records: int = -1
) -> dict[str, str]:
    return {
        "connector.class": DATAGEN,
        "tasks.max": str(tasks),
        "kafka.topic": topic,
        "quickstart": "sequence",
        "payload.size": "16",
        "batch.size": "50",
        "records.per.second": str(rate),
        "max.records": str(records),
        "run.dir": str(cluster.runs),
    }


def sink_config(cluster: Cluster, topic: str, *, tasks: int = 6) -> dict[str, str]:
    return {"connector.class": SINK, "tasks.max": str(tasks), "topics": topic, "run.dir": str(cluster.runs)}


def make_topic(bootstrap: str, partitions: int) -> str:
    return new_topic(AdminClient({"bootstrap.servers": bootstrap}), partitions, 1, prefix="kc-e2e")


def topic_keys(bootstrap: str, topic: str, *, committed_only: bool = False) -> list[str]:
    """Every record key of `topic`, in log order per partition (partitions one after the other)."""
    return [key.decode() if key is not None else "" for key, _ in topic_records(bootstrap, topic, committed_only)]


def topic_records(bootstrap: str, topic: str, committed_only: bool = False) -> list[tuple[bytes | None, bytes | None]]:
    """Every record of `topic` as (key, value), in log order per partition (partitions one after the other)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"kc-e2e-reader-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed" if committed_only else "read_uncommitted",
            "enable.partition.eof": True,
        }
    )
    try:
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        partitions = sorted(metadata.partitions)
        records: dict[int, list[tuple[bytes | None, bytes | None]]] = {p: [] for p in partitions}
        ends: dict[int, int] = {}
        for p in partitions:
            _, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            ends[p] = high
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        done = {p for p in partitions if ends[p] == 0}
        deadline = time.monotonic() + 60
        while len(done) < len(partitions) and time.monotonic() < deadline:
            for message in consumer.consume(1000, 0.5):
                error = message.error()
                if error is not None:
                    if error.code() == error._PARTITION_EOF:
                        done.add(message.partition())
                    continue
                partition = message.partition()
                if partition is not None:
                    records[partition].append((_raw(message.key()), _raw(message.value())))
        assert len(done) == len(partitions), f"could not read {topic} to its end"
        return [record for p in partitions for record in records[p]]
    finally:
        consumer.close()


def _raw(value: str | bytes | None) -> bytes | None:
    return value.encode() if isinstance(value, str) else value


def expected_keys(tasks: int, records: int) -> set[str]:
    """Datagen's keys `<task>-<seq>` for `records` split over `tasks` tasks as it splits them."""
    share, extra = divmod(records, tasks)
    return {f"{t}-{s}" for t in range(tasks) for s in range(share + (1 if t < extra else 0))}


def sink_keys(runs: Path, connector: str) -> set[str]:
    return {key for run in read_runs(runs) if run.task.startswith(connector + "-") for key in run.keys}


def overlaps(runs: list[Run], ended: Mapping[int, float]) -> list[str]:
    """Pairs of instances of one task whose runs overlap in time, across processes.

    A run without a stop line ended when its process died (`ended[pid]`), else it is still running.
    """
    now = time.time()
    by_task: dict[str, list[tuple[float, float, int]]] = {}
    for run in runs:
        stop = run.stop if run.stop is not None else ended.get(run.pid, now)
        by_task.setdefault(run.task, []).append((run.start, stop, run.pid))
    found = []
    for task, intervals in by_task.items():
        for i, (start, stop, pid) in enumerate(intervals):
            for other_start, other_stop, other_pid in intervals[i + 1 :]:
                if pid != other_pid and start < other_stop and other_start < stop:
                    found.append(
                        f"{task}: pid {pid} {start:.3f}-{stop:.3f}, {other_pid} {other_start:.3f}-{other_stop:.3f}"
                    )
    return found
