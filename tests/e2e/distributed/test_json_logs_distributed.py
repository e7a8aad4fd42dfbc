"""A distributed worker started with `KCONNECT_LOG_FORMAT=json` in its environment writes JSON lines with
its worker id, and a connector's lines with the connector context."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.distributed_workers import Cluster, WorkerProcess, datagen_config, make_topic, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e


def json_lines(worker: WorkerProcess) -> list[dict[str, Any]]:
    # The test's own start marker ("=== start ... ===") is the only line that is not the worker's.
    lines = [line for line in worker.log_text().splitlines() if line and not line.startswith("=== start")]
    return [json.loads(line) for line in lines]


def test_a_distributed_worker_logs_json_lines_from_its_environment(clusters: Callable[..., Cluster]) -> None:
    cluster = clusters(0)
    worker = WorkerProcess(f"{cluster.group}-json", worker_props(cluster.bootstrap, cluster.group), cluster.directory)
    cluster.workers.append(worker)
    worker.start(env={"KCONNECT_LOG_FORMAT": "json"})
    wait_until(worker.healthy, 60, "the worker to be healthy", interval=0.2)
    cluster.create("json-datagen", datagen_config(cluster, make_topic(cluster.bootstrap, 1), tasks=1, rate=20))

    def task_line() -> dict[str, Any] | None:
        return next((e for e in json_lines(worker) if e.get("connector.context") == "json-datagen|task-0"), None)

    line = wait_until(task_line, 60, "a line of the connector's task")
    assert (line["connector"], line["task"], line["worker_id"]) == ("json-datagen", 0, worker.worker_id)
    assert all(entry["time"].endswith("Z") and entry["level"] for entry in json_lines(worker))
