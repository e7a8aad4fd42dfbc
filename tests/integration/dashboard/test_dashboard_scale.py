"""The dashboard in a real Chromium with 500 running connectors of 4 tasks each: 2,000 task chips and
sparklines whose counters move with every poll, without blocking the browser's main thread for long.

The cluster behind the page is in memory (`FakeHerder`, and metric groups whose counters grow as they are
read): what is measured is the page, which a real worker of this size would feed with the same answers;
a real 2,000-task worker does not fit the test machine beside its browser."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.metrics.groups import MetricGroup, task_tags
from rest.app import create_app
from rest.listeners.server import RestServer
from tests.support.dashboard_page import open_page, row
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import file_source_config, isolated_root_logger

pytestmark = pytest.mark.integration

CONNECTORS = 500
TASKS = 4
# A frozen page is seconds of blocked main thread; two shared cores make a few hundred ms normal.
LONGEST_BLOCK_MS = 5_000
LONG_TASKS = """window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration)))
      .observe({ type: 'longtask' });"""


class GrowingCounters:
    """Every task's source-record-poll-total, 100 more at each read."""

    def __init__(self) -> None:
        self._reads = itertools.count(1)

    def __call__(self) -> list[MetricGroup]:
        total = next(self._reads) * 100
        return [
            MetricGroup("source-task-metrics", task_tags(f"c-{n:03d}", task), {"source-record-poll-total": total})
            for n in range(CONNECTORS)
            for task in range(TASKS)
        ]


@pytest.fixture
def big_cluster() -> Iterator[str]:
    herder = FakeHerder()
    for n in range(CONNECTORS):
        herder.put_connector_config(f"c-{n:03d}", file_source_config(**{"tasks.max": str(TASKS)}), allow_replace=False)
    app = create_app(herder, loggers=LoggerLevels(isolated_root_logger()), metrics=GrowingCounters())
    with RestServer(app, "http://127.0.0.1:0") as server:
        yield f"http://127.0.0.1:{server.port}"


def test_five_hundred_running_connectors_of_four_tasks(chromium: Browser, big_cluster: str, tmp_path: Path) -> None:
    page = open_page(chromium, big_cluster, init_script=LONG_TASKS)
    page.locator("#count", has_text=f"{CONNECTORS} connectors").wait_for()
    assert page.locator("#rows tr").count() == CONNECTORS
    assert page.locator("#rows .chip.RUNNING").count() == CONNECTORS * TASKS
    # Throughput appears once two polls saw the counters grow (every task 100 more per poll), and keeps
    # moving with each later poll: several polls of 2,000 tasks' figures, each redrawing every sparkline.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#rows .rate-text')].filter((e) => /[1-9]/.test(e.textContent)).length"
        " === 500"
    )
    first = row(page, "c-499").locator(".spark").inner_html()
    page.wait_for_function(
        "(before) => document.querySelector('#rows tr[data-name=\"c-499\"] .spark').innerHTML !== before", arg=first
    )
    page.screenshot(path=tmp_path / "dashboard-500-running.png")
    longest = max(page.evaluate("() => window.longTasks"), default=0.0)
    print(f"500 connectors of 4 tasks: the longest main-thread task took {longest:.0f} ms")
    assert longest < LONGEST_BLOCK_MS, f"the main thread was blocked for {longest:.0f} ms"
    page.context.close()
