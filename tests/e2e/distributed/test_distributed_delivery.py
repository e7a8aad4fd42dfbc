"""Data keeps flowing through a cluster of three workers while workers die and restart.

Datagen numbers every record (`<task>-<seq>`); the recording sink keeps the key of every record it is
given. At-least-once: every generated key reaches the topic and the sink, repeats allowed. Exactly-once
source: every key is in the topic exactly once for a read_committed reader.
"""

from __future__ import annotations

import signal
from collections import Counter
from collections.abc import Callable

import pytest

from tests.support.distributed_workers import (
    Cluster,
    datagen_config,
    expected_keys,
    make_topic,
    sink_config,
    sink_keys,
    topic_keys,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

TASKS = 6
RECORDS = TASKS * 1500


def start_pipeline(cluster: Cluster, *, rate: float, source_extra: dict[str, str] | None = None) -> str:
    topic = make_topic(cluster.bootstrap, TASKS)
    source = {**datagen_config(cluster, topic, tasks=TASKS, rate=rate, records=RECORDS), **(source_extra or {})}
    cluster.create("src", source)
    cluster.create("sink", sink_config(cluster, topic, tasks=TASKS), via=cluster.workers[2])
    wait_until(lambda: cluster.running_on(["src", "sink"], 2 * TASKS, cluster.workers), 60, "the pipeline to run")
    return topic


def wait_for_sink(cluster: Cluster, expected: set[str], timeout: float = 90) -> None:
    def missing() -> int:
        return len(expected - sink_keys(cluster.runs, "sink"))

    wait_until(lambda: missing() == 0, timeout, "every record in the sink", interval=0.5)


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_at_least_once_loses_nothing_when_a_worker_is_killed(clusters: Callable[..., Cluster], isolation: str) -> None:
    cluster = clusters(3, task_isolation=isolation)
    topic = start_pipeline(cluster, rate=900)
    wait_until(lambda: len(sink_keys(cluster.runs, "sink")) > RECORDS // 4, 60, "a quarter of the records")

    cluster.workers[0].signal(signal.SIGKILL)

    expected = expected_keys(TASKS, RECORDS)
    wait_for_sink(cluster, expected)
    assert set(topic_keys(cluster.bootstrap, topic)) >= expected


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_exactly_once_source_writes_every_record_once_when_a_worker_is_killed(
    clusters: Callable[..., Cluster], isolation: str
) -> None:
    cluster = clusters(3, exactly_once_source_support="enabled", task_isolation=isolation)
    topic = start_pipeline(cluster, rate=900, source_extra={"exactly.once.support": "required"})
    wait_until(lambda: len(sink_keys(cluster.runs, "sink")) > RECORDS // 4, 60, "a quarter of the records")

    cluster.workers[0].signal(signal.SIGKILL)

    expected = expected_keys(TASKS, RECORDS)
    wait_for_sink(cluster, expected)
    committed = Counter(topic_keys(cluster.bootstrap, topic, committed_only=True))
    assert set(committed) == expected
    duplicates = {key: n for key, n in committed.items() if n > 1}
    assert duplicates == {}, f"{len(duplicates)} records written more than once, e.g. {sorted(duplicates)[:5]}"


@pytest.mark.slow
def test_a_rolling_restart_of_every_worker_loses_nothing(clusters: Callable[..., Cluster]) -> None:
    cluster = clusters(3)
    topic = start_pipeline(cluster, rate=450)

    for worker in cluster.workers:
        worker.signal(signal.SIGTERM)
        assert worker.wait_exit(30) == 0, worker.log_tail()
        cluster.start(worker)

        def rejoined(restarted: str = worker.worker_id) -> bool:
            owners = cluster.running_on(["src", "sink"], 2 * TASKS, cluster.workers)
            return owners is not None and restarted in owners.values()

        wait_until(rejoined, 30, f"{worker.name} to run tasks again")

    expected = expected_keys(TASKS, RECORDS)
    wait_for_sink(cluster, expected)
    assert set(topic_keys(cluster.bootstrap, topic)) >= expected
