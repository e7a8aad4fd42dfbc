"""The worker image's health check follows Kafka: it fails while the worker's broker is away and passes
again once it is back, so an engine (or an orchestrator) acting on it sees a worker that lost Kafka.

The broker is the session's restartable one: the session broker is shared with other tests and must not
go away."""

from __future__ import annotations

import pytest

from local_kafka import LocalKafka
from tests.containers.support import start_worker
from tests.fixtures.containers.plugin import ContainerRunner
from tests.support.waiting import wait_until

pytestmark = pytest.mark.containers


def test_the_health_check_fails_while_the_worker_has_lost_kafka_and_passes_once_it_is_back(
    restartable_kafka: LocalKafka, worker_image: str, containers: ContainerRunner
) -> None:
    kafka = restartable_kafka
    container, _ = start_worker(containers, worker_image, kafka.bootstrap_servers)
    wait_until(container.run_health_check, 60, "the health check to pass", interval=0.5)

    kafka.stop()
    wait_until(lambda: not container.run_health_check(), 60, "the health check to fail", interval=0.5)
    assert container.state().get("Running"), "the worker waits for Kafka; it does not exit"

    kafka.start()
    wait_until(container.run_health_check, 90, "the health check to pass again", interval=0.5)
