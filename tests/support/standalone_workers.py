"""Helpers shared by the standalone integration tests (this module holds no tests).

`running_worker` starts an in-process `StandaloneWorker` with REST on an ephemeral port; `KconnectProcess`
runs `kconnect standalone` as a child process and finds its REST URL in its log; `wait_until` polls a
condition with a deadline.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from connect.runtime.plugins import PluginRegistry
from tests.support.waiting import wait_until
from workers.common.properties import ConnectorFile
from workers.standalone.process import StandaloneWorker


def worker_props(bootstrap: str, offsets_file: Path, **extra: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(offsets_file),
        "offset.flush.interval.ms": "1000",
        "listeners": "http://127.0.0.1:0",
        **extra,
    }


@contextmanager
def running_worker(
    props: Mapping[str, str],
    *,
    registry: PluginRegistry | None = None,
    connectors: list[ConnectorFile] | None = None,
) -> Iterator[tuple[StandaloneWorker, httpx.Client]]:
    """A started in-process standalone worker and an HTTP client on its REST API; stopped on exit."""
    worker = StandaloneWorker.from_props(props, registry=registry)
    worker.start(connectors or [])
    try:
        with httpx.Client(base_url=worker.local_url, timeout=60.0) as client:
            yield worker, client
    finally:
        worker.stop()


def line_count(path: Path) -> int:
    try:
        with path.open("rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except FileNotFoundError:
        return 0


def status_of(client: httpx.Client, connector: str) -> dict[str, Any] | None:
    response = client.get(f"/connectors/{connector}/status")
    return response.json() if response.status_code == 200 else None


def create_connector(client: httpx.Client, name: str, config: dict[str, str]) -> None:
    """POST /connectors; the worker must answer 201."""
    response = client.post("/connectors", json={"name": name, "config": config})
    assert response.status_code == 201, response.text


def failed_trace(client: httpx.Client, connector: str) -> str | None:
    """The trace of the connector's first FAILED task, or None while no task has failed."""
    status = status_of(client, connector)
    tasks: list[dict[str, Any]] = status["tasks"] if status else []
    return next((t.get("trace", "") for t in tasks if t["state"] == "FAILED"), None)


def all_running(client: httpx.Client, connector: str, tasks: int) -> bool:
    status = status_of(client, connector)
    return (
        status is not None
        and status["connector"]["state"] == "RUNNING"
        and len(status["tasks"]) == tasks
        and all(task["state"] == "RUNNING" for task in status["tasks"])
    )


_STARTED = re.compile(r"REST API at (http://\S+)")


class KconnectProcess:
    """`kconnect standalone worker.properties connector files...` as a child process, logging to a file
    (one file per process: the REST URL is looked up in it)."""

    def __init__(
        self,
        worker_file: Path,
        connector_files: list[Path],
        log_file: Path,
        env: Mapping[str, str] | None = None,
        command: Sequence[str] = (sys.executable, "-m", "workers.cli", "standalone"),
    ) -> None:
        """`env`: variables added to this process's environment for the worker; `command`: how to start
        `kconnect standalone` (this checkout's by default)."""
        self.log_file = log_file
        self._log = log_file.open("ab")
        command = [*command, str(worker_file), *map(str, connector_files)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, env={**os.environ, **(env or {})}
        )

    def url(self, timeout: float = 60.0) -> str:
        def found() -> str | None:
            if self.process.poll() is not None:
                raise AssertionError(f"kconnect exited with {self.process.returncode}:\n{self.log_tail()}")
            match = _STARTED.search(self.log_file.read_text(errors="replace"))
            return match.group(1) if match else None

        started = wait_until(found, timeout, "the worker's REST API")
        assert started is not None
        return started.rstrip("/")

    def terminate(self, timeout: float = 60.0) -> int:
        """SIGTERM and wait for the exit code."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        finally:
            self._log.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        self._log.close()

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
