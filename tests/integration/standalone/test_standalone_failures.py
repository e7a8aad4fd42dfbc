"""A task that raises is FAILED with its trace; the worker, the connector's other tasks and other connectors
keep running, and only a user's restart brings the failed task back."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance
from connect.api.connector import SourceConnector
from connect.api.records import SourceRecord
from connect.api.task import SourceTask
from connect.runtime.plugins import PluginRegistry
from tests.support.standalone_workers import (
    all_running,
    line_count,
    running_worker,
    status_of,
    worker_props,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

FAILURE_TEXT = "sensor 7 returned garbage"


class TickingTask(SourceTask):
    """Produces one record per poll; the task configured with `fail=true` raises in its third poll instead."""

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.number = int(props["number"])
        self.fail = props["fail"] == "true"
        self.polls = 0
        self.stopped = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        self.polls += 1
        if self.fail and self.polls >= 3:
            raise ValueError(FAILURE_TEXT)
        if self.stopped.wait(0.05):
            return None
        partition = {"task": self.number}
        return [SourceRecord(partition, {"n": self.polls}, self.topic, value=f"{self.number}:{self.polls}")]

    def stop(self) -> None:
        self.stopped.set()


class PartlyFailingSourceConnector(SourceConnector):
    """`tasks.max` tasks; the last one fails."""

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]

    def task_class(self) -> type[SourceTask]:
        return TickingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [
            {"topic": self.topic, "number": str(n), "fail": "true" if n == max_tasks - 1 else "false"}
            for n in range(max_tasks)
        ]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define("topic", ConfigType.STRING, NO_DEFAULT, importance=Importance.HIGH)


def test_failed_task_is_reported_with_its_trace_while_everything_else_keeps_running(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    # The test plug-in next to everything installed (the file connectors, the converters).
    installed = dict.fromkeys(desc.cls for desc in PluginRegistry.discover().plugins())
    registry = PluginRegistry.of(PartlyFailingSourceConnector, *installed)
    failing_topic, file_topic = topic_factory(), topic_factory()
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("".join(f"{i}\n" for i in range(100)))

    with running_worker(worker_props(kafka_bootstrap, tmp_path / "offsets"), registry=registry) as (_, client):
        flaky = {"connector.class": "PartlyFailingSource", "topic": failing_topic, "tasks.max": "3"}
        assert client.put("/connectors/flaky/config", json=flaky).status_code == 201
        client.post(
            "/connectors",
            json={
                "name": "src",
                "config": {"connector.class": "FileStreamSource", "file": str(source_file), "topic": file_topic},
            },
        )
        client.post(
            "/connectors",
            json={
                "name": "snk",
                "config": {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": file_topic},
            },
        )

        def task_failed() -> dict[str, Any] | None:
            status = status_of(client, "flaky")
            if status is None or len(status["tasks"]) != 3 or status["tasks"][2]["state"] != "FAILED":
                return None
            return status

        status = wait_until(task_failed, 60, "task flaky-2 to fail")
        assert status is not None
        assert status["connector"]["state"] == "RUNNING"
        assert [t["state"] for t in status["tasks"][:2]] == ["RUNNING", "RUNNING"]
        failed = client.get("/connectors/flaky/tasks/2/status").json()
        assert failed["state"] == "FAILED" and failed["id"] == 2
        assert "ValueError" in failed["trace"] and FAILURE_TEXT in failed["trace"]
        assert "trace" not in client.get("/connectors/flaky/tasks/0/status").json()

        # The other pipeline on the same worker is unaffected.
        wait_until(lambda: line_count(sink_file) >= 100, 60, "the file pipeline to deliver")
        assert all_running(client, "src", 1) and all_running(client, "snk", 1)
        # Still failed after more data went through: the framework never restarts a failed task by itself.
        with source_file.open("a") as more:
            more.write("".join(f"{i}\n" for i in range(100, 200)))
        wait_until(lambda: line_count(sink_file) >= 200, 60, "the appended lines to be delivered")
        assert client.get("/connectors/flaky/tasks/2/status").json()["state"] == "FAILED"

        # Restarting only the failed instances restarts task 2 and nothing else.
        restart = client.post("/connectors/flaky/restart", params={"onlyFailed": "true", "includeTasks": "true"})
        assert restart.status_code == 202
        planned = restart.json()
        assert planned["connector"]["state"] == "RUNNING"
        assert [t["state"] for t in planned["tasks"]] == ["RUNNING", "RUNNING", "RESTARTING"]
        wait_until(lambda: task_failed() is not None, 60, "the restarted task to run and fail again")
        assert all_running(client, "src", 1)
