"""`kconnect ctl` as a process against a 3-worker distributed cluster: any worker answers for the whole
cluster (a change sent to a follower is forwarded), describe shows which worker runs each task, and
restarts go through."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.ctl_process import ctl_json, run_ctl
from tests.support.distributed_workers import Cluster, datagen_config, make_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e


def all_running(url: str, name: str, tasks: int) -> dict[str, Any] | None:
    described: dict[str, Any] = ctl_json(url, "describe", "connector", name)
    states = [task["state"] for task in described["tasks"]]
    return described if described["state"] == "RUNNING" and states == ["RUNNING"] * tasks else None


def test_get_describe_and_restart_through_any_worker(clusters: Callable[..., Cluster], tmp_path: Path) -> None:
    cluster = clusters(3)
    first, second, third = cluster.workers
    config = {"name": "ctl-datagen", **datagen_config(cluster, make_topic(cluster.bootstrap, 3), tasks=3, rate=50)}
    file = tmp_path / "datagen.json"
    file.write_text(json.dumps(config))

    created = run_ctl(second.url, "apply", "-f", str(file))
    assert (created.returncode, created.stdout.strip()) == (0, "Created connector ctl-datagen"), created.stderr

    described = wait_until(lambda: all_running(third.url, "ctl-datagen", 3), 90, "three running tasks")
    assert {task["worker_id"] for task in described["tasks"]} <= {w.worker_id for w in cluster.workers}
    for worker in cluster.workers:
        table = [line.split() for line in run_ctl(worker.url, "get", "connectors").stdout.splitlines()]
        assert table[1] == ["ctl-datagen", "source", "RUNNING", "0:", "RUNNING,", "1:", "RUNNING,", "2:", "RUNNING"]
    text = run_ctl(first.url, "describe", "connector", "ctl-datagen").stdout
    assert "  2:\n    State:      RUNNING" in text

    restarted = run_ctl(third.url, "restart", "ctl-datagen", "--tasks", "all")
    assert restarted.returncode == 0 and "Restarted connector ctl-datagen and all its tasks" in restarted.stdout
    wait_until(lambda: all_running(first.url, "ctl-datagen", 3), 90, "the tasks to run again")
    task = run_ctl(first.url, "restart", "task", "ctl-datagen/1")
    assert (task.returncode, task.stdout.strip()) == (0, "Restarted task ctl-datagen/1"), task.stderr
    wait_until(lambda: all_running(second.url, "ctl-datagen", 3), 90, "task 1 to run again")

    assert run_ctl(first.url, "delete", "ctl-datagen").returncode == 0
    wait_until(lambda: run_ctl(third.url, "describe", "ctl-datagen").returncode == 4, 30, "the connector to be gone")
