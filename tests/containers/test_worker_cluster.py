"""Three worker containers form one cluster through Kafka alone: killing one moves its tasks to the others."""

from __future__ import annotations

import time

import pytest
from confluent_kafka.admin import AdminClient

from tests.containers.support import new_group, post_connector, start_worker, task_workers
from tests.fixtures.containers.plugin import ContainerRunner
from tests.fixtures.kafka import new_topic
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.containers, pytest.mark.timed]

SESSION_MS = 6000
HEARTBEAT_MS = 1000
# The failover target (docs/distributed.md): a killed worker's tasks RUNNING elsewhere within S + H + 2 s.
FAILOVER_TARGET_S = (SESSION_MS + HEARTBEAT_MS) / 1000 + 2


def test_killing_a_worker_container_moves_its_tasks_to_the_others_within_the_failover_target(
    kafka_bootstrap: str, kafka_admin: AdminClient, worker_image: str, containers: ContainerRunner
) -> None:
    group = new_group()
    membership = {
        "KCONNECT_SESSION_TIMEOUT_MS": str(SESSION_MS),
        "KCONNECT_HEARTBEAT_INTERVAL_MS": str(HEARTBEAT_MS),
        "KCONNECT_TASK_BALANCE_DELAY_MS": "500",
    }
    workers = [
        start_worker(containers, worker_image, kafka_bootstrap, group=group, extra_env=membership) for _ in range(3)
    ]
    topic = new_topic(kafka_admin, partitions=3, prefix="kc-container")
    post_connector(
        workers[0][1],
        "datagen",
        {"connector.class": "DatagenConnector", "tasks.max": "3", "kafka.topic": topic, "records.per.second": "60"},
    )
    ids = {url.removeprefix("http://"): container for container, url in workers}

    def one_task_each() -> list[str] | None:
        owners = task_workers(workers[0][1], "datagen")
        return owners if owners is not None and sorted(owners) == sorted(ids) else None

    owners = wait_until(one_task_each, 90, "one task on each worker container", interval=0.25)
    victim_id = owners[0]
    victim = ids[victim_id]
    survivor_url = next(url for container, url in workers if container is not victim)

    victim.kill()
    killed = time.monotonic()

    def moved() -> list[str] | None:
        now = task_workers(survivor_url, "datagen")
        return now if now is not None and victim_id not in now else None

    wait_until(moved, 60, "the killed worker's task RUNNING on another", interval=0.1)
    elapsed = time.monotonic() - killed
    assert elapsed <= FAILOVER_TARGET_S, f"{elapsed:.1f} s (target {FAILOVER_TARGET_S:g} s)"


def test_stopping_a_worker_container_hands_its_tasks_over_without_waiting_for_the_session_timeout(
    kafka_bootstrap: str, kafka_admin: AdminClient, worker_image: str, containers: ContainerRunner
) -> None:
    group = new_group()
    # A session timeout far above the handover: a task that moved only after it would fail the test.
    membership = {"KCONNECT_SESSION_TIMEOUT_MS": "30000", "KCONNECT_TASK_BALANCE_DELAY_MS": "500"}
    workers = [
        start_worker(containers, worker_image, kafka_bootstrap, group=group, extra_env=membership) for _ in range(2)
    ]
    topic = new_topic(kafka_admin, partitions=2, prefix="kc-container")
    post_connector(
        workers[0][1],
        "datagen",
        {"connector.class": "DatagenConnector", "tasks.max": "2", "kafka.topic": topic, "records.per.second": "60"},
    )
    (leaving, leaving_url), (_, staying_url) = workers
    leaving_id = leaving_url.removeprefix("http://")
    wait_until(
        lambda: (owners := task_workers(staying_url, "datagen")) is not None and leaving_id in owners,
        90,
        "a task on each worker container",
        interval=0.25,
    )

    started = time.monotonic()
    leaving.stop(10)
    wait_until(
        lambda: (owners := task_workers(staying_url, "datagen")) is not None and leaving_id not in owners,
        30,
        "the stopped worker's task RUNNING on the other",
        interval=0.1,
    )
    elapsed = time.monotonic() - started
    assert leaving.state()["ExitCode"] == 0, leaving.logs()
    assert elapsed < 15, f"{elapsed:.1f} s: the handover waited for the session timeout"
