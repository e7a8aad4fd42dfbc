"""Cluster-wide logger levels (KIP-976) on real worker processes: a `?scope=cluster` PUT on one worker sets
the level on every worker, also on one started afterwards; a worker-scope PUT stays on its worker."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.distributed_workers import Cluster, WorkerProcess, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

LOGGER = "kconnect.e2e.probe"


def level_on(cluster: Cluster, worker: WorkerProcess, name: str = LOGGER) -> str | None:
    response = cluster.request("GET", f"/admin/loggers/{name}", via=worker)
    return str(response.json()["level"]) if response.status_code == 200 else None


def test_a_cluster_scope_level_reaches_every_worker_and_those_started_later(clusters: Callable[..., Cluster]) -> None:
    cluster = clusters(2)
    a, b = cluster.workers
    assert level_on(cluster, b) is None  # no such logger yet

    response = cluster.request("PUT", f"/admin/loggers/{LOGGER}?scope=cluster", via=a, json={"level": "debug"})

    assert response.status_code == 204, response.text
    # The writer has applied it before it answered; the others apply it as they read the config topic.
    on_a = cluster.request("GET", f"/admin/loggers/{LOGGER}", via=a).json()
    assert on_a["level"] == "DEBUG" and isinstance(on_a["last_modified"], int)
    wait_until(lambda: level_on(cluster, b) == "DEBUG", 10, "the level on the other worker")
    assert cluster.request("GET", "/admin/loggers", via=b).json()[LOGGER]["level"] == "DEBUG"

    # A worker-scope change stays on its worker.
    response = cluster.request("PUT", f"/admin/loggers/{LOGGER}", via=b, json={"level": "ERROR"})
    assert (response.status_code, response.json()) == (200, [LOGGER])
    assert (level_on(cluster, a), level_on(cluster, b)) == ("DEBUG", "ERROR")

    late = WorkerProcess(f"{cluster.group}-late", worker_props(cluster.bootstrap, cluster.group), cluster.directory)
    cluster.workers.append(late)
    cluster.start(late)
    assert level_on(cluster, late) == "DEBUG"

    invalid = cluster.request("PUT", f"/admin/loggers/{LOGGER}?scope=cluster", via=late, json={"level": "LOUD"})
    assert (invalid.status_code, invalid.json()["message"]) == (404, "invalid log level 'LOUD'.")
