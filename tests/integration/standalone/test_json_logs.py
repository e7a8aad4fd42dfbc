"""`log.format=json` on a real `kconnect standalone` process over the real broker: every line is one JSON
object, a task's lines carry its connector context (also when the task runs in a task process and its
records are relayed), and a level changed through `/admin/loggers` shows in the JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka.admin import AdminClient

from tests.fixtures.kafka import new_topic
from tests.support.standalone_workers import all_running, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


class JsonLoggingWorker:
    """`kconnect standalone` with `log.format=json`, its stderr in a file read back as JSON lines."""

    def __init__(self, props: dict[str, str], directory: Path) -> None:
        self.isolation = props["task.isolation"]
        worker_file = directory / "worker.properties"
        worker_file.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
        self.log_file = directory / "worker.log"
        self._log = self.log_file.open("ab")
        command = [sys.executable, "-m", "workers.cli", "standalone", str(worker_file)]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log)

    def lines(self) -> list[dict[str, Any]]:
        """Every line written so far, parsed (a line that is not a JSON object fails the test)."""
        text = self.log_file.read_text(errors="replace")
        complete = text[: text.rfind("\n") + 1]
        parsed = [json.loads(line) for line in complete.splitlines()]
        assert all(isinstance(entry, dict) for entry in parsed)
        return parsed

    def url(self) -> str:
        def started() -> str | None:
            assert self.process.poll() is None, self.log_file.read_text(errors="replace")
            for entry in self.lines():
                if entry["message"].startswith("Kafka Connect standalone worker started: REST API at "):
                    return str(entry["message"].rsplit(" ", 1)[1]).rstrip("/")
            return None

        return wait_until(started, 60, "the worker's REST API", interval=0.2)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(60)
        self._log.close()


@pytest.fixture(params=["thread", "process"])
def worker(request: pytest.FixtureRequest, kafka_bootstrap: str, tmp_path: Path) -> Iterator[JsonLoggingWorker]:
    props = worker_props(kafka_bootstrap, tmp_path / "connect.offsets", **{"task.isolation": request.param})
    props["log.format"] = "json"
    running = JsonLoggingWorker(props, tmp_path)
    try:
        yield running
    finally:
        running.stop()


def test_json_lines_carry_the_task_context_and_follow_admin_loggers(
    worker: JsonLoggingWorker, kafka_admin: AdminClient, tmp_path: Path
) -> None:
    url = worker.url()
    worker_id = url.removeprefix("http://")
    source = tmp_path / "in.txt"
    source.write_text("a\nb\nc\n")
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": new_topic(kafka_admin)}
    with httpx.Client(base_url=url, timeout=30) as client:
        assert client.put("/connectors/json-logs/config", json=config).status_code == 201
        wait_until(lambda: all_running(client, "json-logs", 1), 60, "the connector and its task to run")

        def task_lines(level: str) -> list[dict[str, Any]]:
            return [
                entry
                for entry in worker.lines()
                if entry.get("connector.context") == "json-logs|task-0" and entry["level"] == level
            ]

        info = wait_until(lambda: task_lines("INFO"), 30, "an INFO line of the task")[0]
        assert (info["connector"], info["task"], info["worker_id"]) == ("json-logs", 0, worker_id)
        assert info["time"].endswith("Z") and info["logger"] and info["thread"]
        assert not task_lines("DEBUG")

        changed = client.put("/admin/loggers/connectors.file.source", json={"level": "DEBUG"})
        assert changed.status_code == 200, changed.text

        # The task logs at DEBUG when it opens its file: restart it until a line shows the new level (in a
        # task process the level arrives with the next heartbeat, or with the process if a new one starts).
        def debug_after_restart() -> list[dict[str, Any]]:
            client.post("/connectors/json-logs/tasks/0/restart")
            return task_lines("DEBUG")

        debug = wait_until(debug_after_restart, 30, "a DEBUG line of the task", interval=1.0)[0]
        assert debug["logger"] == "connectors.file.source" and debug["message"].startswith("Opened ")
        assert debug["worker_id"] == worker_id
    own_process = {entry["process"] for entry in worker.lines() if entry["logger"] == "workers.standalone.process"}
    assert own_process == {worker.process.pid}
    # A task process's records are relayed to the worker, which writes them with the task's own process id.
    assert (debug["process"] != worker.process.pid) == (worker.isolation == "process")
