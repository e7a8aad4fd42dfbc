"""Data keeps flowing through a cluster of three workers while workers die and restart.

Datagen numbers every record (`<task>-<seq>`); the recording sink keeps the key of every record it is
given. At-least-once: every generated key reaches the topic and the sink, repeats allowed. Exactly-once
source: every key is in the topic exactly once for a read_committed reader.
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Callable

import pytest

from tests.support.distributed_workers import (
    Cluster,
    WorkerProcess,
    datagen_config,
    expected_keys,
    make_topic,
    overlaps,
    sink_config,
    sink_keys,
    topic_keys,
)
from tests.support.recording_plugins import read_runs
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


KAFKA_CONNECT_TIMEOUTS = {"session_timeout_ms": "10000", "heartbeat_interval_ms": "3000"}


@pytest.mark.slow
@pytest.mark.timed
@pytest.mark.parametrize("timeouts", ["test", "kafka-connect"])
def test_a_rolling_restart_of_every_worker_hands_each_one_s_work_over_and_loses_nothing(
    clusters: Callable[..., Cluster], timeouts: str
) -> None:
    """Each worker in turn stops (SIGTERM) and starts again, with the tests' short timeouts and with Kafka
    Connect's defaults: its tasks run on the others within 5 s of the signal (a graceful leave waits for no
    timeout), no task instance runs in two processes at once, and every record reaches the sink."""
    cluster = clusters(3, **(KAFKA_CONNECT_TIMEOUTS if timeouts == "kafka-connect" else {}))
    topic = start_pipeline(cluster, rate=450)

    for worker in cluster.workers:
        others = [other for other in cluster.workers if other is not worker]
        signalled = time.monotonic()
        worker.signal(signal.SIGTERM)
        wait_until(
            lambda others=others: cluster.running_on(["src", "sink"], 2 * TASKS, others, via=others[0]),
            30,
            f"{worker.name}'s tasks on the others",
            interval=0.05,
        )
        handover = time.monotonic() - signalled
        print(f"measured rolling_handover_s[{timeouts}]:", round(handover, 3))
        assert handover <= 5.0, f"{worker.name}'s handover took {handover:.2f} s"
        assert worker.wait_exit(30) == 0, worker.log_tail()
        cluster.start(worker)

        def rejoined(restarted: str = worker.worker_id) -> bool:
            owners = cluster.running_on(["src", "sink"], 2 * TASKS, cluster.workers)
            return owners is not None and restarted in owners.values()

        wait_until(rejoined, 30, f"{worker.name} to run tasks again")

    expected = expected_keys(TASKS, RECORDS)
    wait_for_sink(cluster, expected)
    assert set(topic_keys(cluster.bootstrap, topic)) >= expected
    assert overlaps(read_runs(cluster.runs), {}) == []


SOAK_KILLS = 6


def kill_and_restart(cluster: Cluster, victim: WorkerProcess) -> None:
    """kill -9 of `victim`, its work RUNNING on the others, then `victim` started again and running tasks."""
    others = [worker for worker in cluster.workers if worker is not victim]
    victim.signal(signal.SIGKILL)
    victim.wait_exit(10)
    wait_until(lambda: cluster.running_on(["src", "sink"], 2 * TASKS, others, via=others[0]), 30, "failover")
    cluster.start(victim)

    def runs_tasks_again() -> bool:
        owners = cluster.running_on(["src", "sink"], 2 * TASKS, cluster.workers, via=others[0])
        return owners is not None and victim.worker_id in owners.values()

    wait_until(runs_tasks_again, 30, f"{victim.name} to run tasks again")


@pytest.mark.slow
def test_exactly_once_source_writes_every_record_once_through_a_kill_of_each_worker_twice(
    clusters: Callable[..., Cluster],
) -> None:
    """Kafka Connect's default timeouts, so every kill is found by the peers' liveness links. Each worker in
    turn is killed while the source runs, then started again and waited for until it runs tasks again: six
    handovers of transactional producers mid-stream. The source has no record limit, so it is mid-stream at every
    kill however slow the machine; once it is stopped, a read_committed reader sees each task's records with no
    gap and none twice, and the sink has them all."""
    cluster = clusters(3, exactly_once_source_support="enabled", **KAFKA_CONNECT_TIMEOUTS)
    topic = make_topic(cluster.bootstrap, TASKS)
    source = {
        **datagen_config(cluster, topic, tasks=TASKS, rate=400),
        "exactly.once.support": "required",
    }
    cluster.create("src", source)
    cluster.create("sink", sink_config(cluster, topic, tasks=TASKS), via=cluster.workers[2])
    wait_until(lambda: cluster.running_on(["src", "sink"], 2 * TASKS, cluster.workers), 60, "the pipeline to run")

    for kill in range(SOAK_KILLS):
        kill_and_restart(cluster, cluster.workers[kill % len(cluster.workers)])
    after_last_kill = len(sink_keys(cluster.runs, "sink"))
    wait_until(lambda: len(sink_keys(cluster.runs, "sink")) > after_last_kill + 100, 60, "records after the last kill")
    stop_connector(cluster, "src")

    committed = Counter(topic_keys(cluster.bootstrap, topic, committed_only=True))
    assert gaps_per_task(committed) == {}, "records lost: a task's sequence has gaps"
    wait_for_sink(cluster, set(committed), timeout=120)
    duplicates = {key: n for key, n in committed.items() if n > 1}
    assert duplicates == {}, f"{len(duplicates)} records written more than once, e.g. {sorted(duplicates)[:5]}"


def stop_connector(cluster: Cluster, name: str) -> None:
    """KIP-875's stop: the tasks end (an exactly-once task's open transaction ends with them), so what the
    topic holds afterwards is final."""
    response = cluster.request("PUT", f"/connectors/{name}/stop")
    assert response.status_code == 204, response.text

    def stopped() -> bool:
        status = cluster.status(name)
        return status is not None and status["connector"]["state"] == "STOPPED" and not status["tasks"]

    wait_until(stopped, 60, f"{name} to stop")


def gaps_per_task(keys: Counter[str]) -> dict[str, list[int]]:
    """Datagen task → the sequence numbers missing below its highest one (a task writes 0, 1, 2, ... in order)."""
    sequences: dict[str, set[int]] = {}
    for key in keys:
        task, sequence = key.split("-")
        sequences.setdefault(task, set()).add(int(sequence))
    assert len(sequences) == TASKS, f"records of {len(sequences)} tasks, not {TASKS}"
    missing = {task: sorted(set(range(max(seqs) + 1)) - seqs)[:5] for task, seqs in sequences.items()}
    return {task: gap for task, gap in missing.items() if gap}
