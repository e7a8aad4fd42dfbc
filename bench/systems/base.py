"""What both workers share: the generated worker.properties, start-up until REST is ready, and RSS.

A `WorkerSystem` only knows how to turn a worker.properties file into a command line; everything
measured goes through `RunningWorker` (its REST API and its process tree), the same for both.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bench.broker import free_port
from bench.procs import ManagedProcess, ProcessSet, tree_rss_bytes
from bench.rest import ConnectRest
from bench.settings import OFFSET_FLUSH_INTERVAL_MS, PRODUCER_SETTINGS, STRING_CONVERTER


class WorkerSystem(Protocol):
    key: str
    label: str

    def unavailable_reason(self) -> str | None:
        """Why this system cannot run here (None when it can); checked once per run."""

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        """Keys only this system needs (plugin.path for Java)."""

    def command(self, worker_properties: Path, workdir: Path) -> list[str]:
        """The command line that starts a standalone worker from `worker_properties`."""

    def settings(self) -> Mapping[str, str]:
        """How the process is run (JVM flags, interpreter), for the report."""


def worker_properties(bootstrap_servers: str, rest_port: int, workdir: Path) -> dict[str, str]:
    """The worker keys both systems get verbatim."""
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

    def rss_bytes(self) -> int:
        return tree_rss_bytes(self.process.pid)

    def ensure_alive(self) -> None:
        if not self.process.alive():
            raise RuntimeError(f"{self.system.label} exited with {self.process.returncode}:\n{self.process.log_tail()}")


class WorkerStartError(RuntimeError):
    pass


def start_worker(
    system: WorkerSystem, processes: ProcessSet, bootstrap_servers: str, workdir: Path, timeout: float = 120.0
) -> RunningWorker:
    """Start a fresh standalone worker in `workdir` and wait for its REST API to serve `GET /connectors`."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    props = worker_properties(bootstrap_servers, port, workdir)
    props.update(system.extra_worker_properties(workdir))
    properties_file = workdir / "worker.properties"
    write_properties(properties_file, props)
    process = processes.spawn(system.key, system.command(properties_file, workdir), workdir / "worker.log", cwd=workdir)
    rest = ConnectRest(f"http://127.0.0.1:{port}")
    deadline = process.started_at + timeout
    while not rest.ready():
        if not process.alive():
            rest.close()
            processes.stop(process)
            tail = process.log_tail()
            last = next((line.strip() for line in reversed(tail.splitlines()) if line.strip()), "no output")
            raise WorkerStartError(
                f"{system.label} exited with code {process.returncode} during start-up: {last}\n{tail}"
            )
        if time.monotonic() > deadline:
            rest.close()
            processes.stop(process)
            raise WorkerStartError(f"{system.label} REST not ready after {timeout:.0f}s:\n{process.log_tail()}")
        time.sleep(0.02)
    return RunningWorker(system, process, rest, workdir, time.monotonic() - process.started_at)


def stop_worker(processes: ProcessSet, worker: RunningWorker) -> None:
    worker.rest.close()
    processes.stop(worker.process)
