"""The dashboard of a distributed cluster: whichever worker serves the page gathers the task figures of every
worker (each worker's metrics hold only its own tasks), lists the workers with the slots each owns, and the
page shows them. Two real worker processes over the real broker, one real headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.distributed_workers import Cluster, cluster_factory, datagen_config, make_topic
from tests.support.waiting import wait_until

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.e2e

TASKS = 4


@pytest.fixture
def cluster(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Cluster]:
    with cluster_factory(kafka_bootstrap, tmp_path) as make:
        yield make(workers=2)


def _figures(cluster: Cluster, via: int) -> dict[str, Any]:
    response = cluster.request("GET", "/ui/api/task-metrics", via=cluster.workers[via])
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_any_worker_shows_the_whole_cluster(cluster: Cluster, kafka_bootstrap: str, chromium: Browser) -> None:
    topic = make_topic(kafka_bootstrap, partitions=TASKS)
    cluster.create("spread", datagen_config(cluster, topic, tasks=TASKS, rate=100))
    owners = wait_until(
        lambda: cluster.balanced_on(["spread"], TASKS, cluster.workers), 60, "the tasks running on both workers"
    )
    worker_ids = {w.worker_id for w in cluster.workers}
    assert set(owners.values()) == worker_ids

    for via in (0, 1):

        def counted(via: int = via) -> dict[str, Any] | None:
            figures = _figures(cluster, via)
            tasks = {(t["connector"], t["task"]): t for t in figures["tasks"] if t["connector"] == "spread"}
            return figures if len(tasks) == TASKS and all(t["records"] > 0 for t in tasks.values()) else None

        figures = wait_until(counted, 60, f"worker {via + 1} listing every task with records")
        assert {w["id"] for w in figures["workers"]} == worker_ids
        assert all(w["error"] is None for w in figures["workers"]), figures["workers"]
        assert sum(len(w["slots"]) for w in figures["workers"]) > 0
        # Each task is reported by the worker its status names.
        assert {f"spread-{t['task']}": t["worker"] for t in figures["tasks"] if t["connector"] == "spread"} == owners

    page = chromium.new_context().new_page()
    page.set_default_timeout(60_000)
    page.goto(cluster.workers[0].url + "/ui")
    for worker_id in worker_ids:
        page.locator(f'#workers li[data-worker="{worker_id}"]', has_text="slots").wait_for()
    page.locator('#rows tr[data-name="spread"] .chip.RUNNING').nth(TASKS - 1).wait_for()
    page.context.close()
