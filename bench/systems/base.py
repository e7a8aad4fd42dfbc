"""What both workers share: the generated worker.properties, start-up until REST is ready, and RSS.

A `WorkerSystem` only knows how to turn a worker.properties file into a command line, in standalone or
distributed mode; everything measured goes through `RunningWorker` (its REST API and its process tree),
the same for both. Distributed workers get Kafka Connect's distributed keys (group, internal topics,
session timeout and heartbeat) from `distributed_properties`, verbatim on both sides.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from bench.broker import free_port
from bench.procs import ManagedProcess, ProcessSet, tree_cpu_seconds, tree_pss_bytes, tree_rss_bytes
from bench.rest import ConnectRest, RestAccess
from bench.settings import (
    HEARTBEAT_INTERVAL_MS,
    OFFSET_FLUSH_INTERVAL_MS,
    OFFSET_STORAGE_PARTITIONS,
    PRODUCER_SETTINGS,
    SESSION_TIMEOUT_MS,
    STATUS_STORAGE_PARTITIONS,
    STRING_CONVERTER,
)


class WorkerMode(StrEnum):
    STANDALONE = "standalone"
    DISTRIBUTED = "distributed"


class WorkerSystem(Protocol):
    key: str
    label: str

    def unavailable_reason(self) -> str | None:
        """Why this system cannot run here at all (None when it can); checked once per run."""

    def mode_unavailable_reason(self, mode: WorkerMode) -> str | None:
        """Why this system cannot run in `mode` (None when it can); checked once per run."""

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        """Keys only this system needs (plugin.path for Java)."""

    def command(self, worker_properties: Path, workdir: Path, mode: WorkerMode = WorkerMode.STANDALONE) -> list[str]:
        """The command line that starts a worker of `mode` from `worker_properties`."""

    def settings(self) -> Mapping[str, str]:
        """How the process is run (JVM flags, interpreter), for the report."""

    def group_leader_port(self, workdir: Path) -> int | None:
        """The REST port of its group's leader as the distributed worker in `workdir` last logged it; None when
        the system names no leader."""


class Deployment(Protocol):
    """What a scenario drives: one standalone worker or a whole cluster, through one REST API."""

    @property
    def rest(self) -> ConnectRest: ...

    def ensure_alive(self) -> None:
        """Raise if a process that should run has exited."""


def worker_properties(bootstrap_servers: str, rest_port: int, workdir: Path) -> dict[str, str]:
    """The standalone worker keys both systems get verbatim."""
    props = {
        "bootstrap.servers": bootstrap_servers,
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "offset.storage.file.filename": str(workdir / "connect.offsets"),
        "offset.flush.interval.ms": str(OFFSET_FLUSH_INTERVAL_MS),
        "listeners": f"http://127.0.0.1:{rest_port}",
    }
    props.update({f"producer.{key}": value for key, value in PRODUCER_SETTINGS.items()})
    return props


def distributed_properties(bootstrap_servers: str, rest_port: int, group: str, replication: int) -> dict[str, str]:
    """The distributed worker keys both systems get verbatim: one group, its own internal topics.

    The internal topics are named after the group, replicated to every broker, with Kafka's default
    partition counts written out; `offset.storage.file.filename` is left out (in distributed mode Java
    reads every `offset.storage.*` key as a topic config and refuses unknown ones).
    """
    props = {
        "bootstrap.servers": bootstrap_servers,
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "offset.flush.interval.ms": str(OFFSET_FLUSH_INTERVAL_MS),
        "listeners": f"http://127.0.0.1:{rest_port}",
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": str(replication),
        "offset.storage.replication.factor": str(replication),
        "status.storage.replication.factor": str(replication),
        "offset.storage.partitions": str(OFFSET_STORAGE_PARTITIONS),
        "status.storage.partitions": str(STATUS_STORAGE_PARTITIONS),
        "session.timeout.ms": str(SESSION_TIMEOUT_MS),
        "heartbeat.interval.ms": str(HEARTBEAT_INTERVAL_MS),
    }
    props.update({f"producer.{key}": value for key, value in PRODUCER_SETTINGS.items()})
    return props


def write_properties(path: Path, props: Mapping[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{key}={value}\n" for key, value in props.items()))


@dataclass
class RunningWorker:
    system: WorkerSystem
    process: ManagedProcess
    rest: ConnectRest
    workdir: Path
    ready_seconds: float
    mode: WorkerMode = WorkerMode.STANDALONE

    def rss_bytes(self) -> int:
        return tree_rss_bytes(self.process.pid)

    def pss_bytes(self) -> int:
        return tree_pss_bytes(self.process.pid)

    def cpu_seconds(self) -> float:
        return tree_cpu_seconds(self.process.pid)

    def ensure_alive(self) -> None:
        if not self.process.alive():
            raise RuntimeError(f"{self.system.label} exited with {self.process.returncode}:\n{self.process.log_tail()}")


class WorkerStartError(RuntimeError):
    pass


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker gets beyond the shared keys: keys of its own (overriding shared ones), environment
    variables, and how its REST API is reached (which also decides the listener's scheme)."""

    properties: Mapping[str, str] = field(default_factory=dict)
    environment: Mapping[str, str] = field(default_factory=dict)
    access: RestAccess = field(default_factory=RestAccess)


def spawn_worker(
    system: WorkerSystem,
    processes: ProcessSet,
    props: Mapping[str, str],
    workdir: Path,
    mode: WorkerMode,
    name: str | None = None,
    environment: Mapping[str, str] | None = None,
) -> ManagedProcess:
    """Write `props` (plus the system's own keys) to `workdir/worker.properties` and start the worker,
    with `environment` added to the harness's own."""
    workdir.mkdir(parents=True, exist_ok=True)
    properties_file = workdir / "worker.properties"
    write_properties(properties_file, {**props, **system.extra_worker_properties(workdir)})
    command = system.command(properties_file, workdir, mode)
    env = {**os.environ, **environment} if environment else None
    return processes.spawn(name or system.key, command, workdir / "worker.log", cwd=workdir, env=env)


def wait_ready(
    system: WorkerSystem,
    processes: ProcessSet,
    process: ManagedProcess,
    rest: ConnectRest,
    mode: WorkerMode,
    timeout: float,
) -> float:
    """Seconds from spawning `process` until it serves; stops it and raises WorkerStartError otherwise.

    Standalone: `GET /connectors` answers 200. Distributed: `GET /health` answers 200 (both systems
    have it, Java since 4.0), which both give only once the worker has joined its group.
    """
    ready = rest.ready if mode is WorkerMode.STANDALONE else rest.healthy
    deadline = process.started_at + timeout
    while not ready():
        if not process.alive():
            processes.stop(process)
            tail = process.log_tail()
            last = next((line.strip() for line in reversed(tail.splitlines()) if line.strip()), "no output")
            raise WorkerStartError(
                f"{system.label} exited with code {process.returncode} during start-up: {last}\n{tail}"
            )
        if time.monotonic() > deadline:
            processes.stop(process)
            raise WorkerStartError(f"{system.label} REST not ready after {timeout:.0f}s:\n{process.log_tail()}")
        time.sleep(0.02)
    return time.monotonic() - process.started_at


def start_worker(
    system: WorkerSystem,
    processes: ProcessSet,
    bootstrap_servers: str,
    workdir: Path,
    timeout: float = 120.0,
    setup: WorkerSetup | None = None,
) -> RunningWorker:
    """Start a fresh standalone worker in `workdir` and wait for its REST API to serve `GET /connectors`."""
    setup = setup or WorkerSetup()
    port = free_port()
    mode = WorkerMode.STANDALONE
    address = f"{setup.access.scheme}://127.0.0.1:{port}"
    props = {**worker_properties(bootstrap_servers, port, workdir), "listeners": address, **setup.properties}
    process = spawn_worker(system, processes, props, workdir, mode, environment=setup.environment)
    rest = ConnectRest(address, access=setup.access)
    try:
        ready_seconds = wait_ready(system, processes, process, rest, mode, timeout)
    except BaseException:
        rest.close()
        processes.stop(process)
        raise
    return RunningWorker(system, process, rest, workdir, ready_seconds, mode)


def stop_worker(processes: ProcessSet, worker: RunningWorker) -> None:
    worker.rest.close()
    processes.stop(worker.process)
