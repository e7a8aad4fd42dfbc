"""A cluster rides out a restart of its Kafka broker: the workers lose their slots while Kafka is away,
rejoin when it is back, and the pipeline delivers every record (at-least-once). Meanwhile each worker's
`/health` says it lost Kafka (500 unhealthy, what a container engine's health check acts on), and says
healthy again once Kafka is back.

The broker is the session's restartable one (the session broker is shared with other tests and must not
go away).
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from local_kafka import LocalKafka
from tests.support.distributed_workers import (
    cluster_factory,
    datagen_config,
    expected_keys,
    make_topic,
    sink_config,
    sink_keys,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

TASKS = 4
RECORDS = TASKS * 1500


@pytest.mark.slow
def test_the_cluster_rides_out_a_broker_restart_and_its_health_says_so_meanwhile(
    tmp_path: Path, restartable_kafka: LocalKafka
) -> None:
    kafka = restartable_kafka
    with cluster_factory(kafka.bootstrap_servers, tmp_path) as make:
        cluster = make(2)
        topic = make_topic(cluster.bootstrap, TASKS)
        cluster.create("src", datagen_config(cluster, topic, tasks=TASKS, rate=300, records=RECORDS))
        cluster.create("sink", sink_config(cluster, topic, tasks=TASKS))
        names = ["src", "sink"]
        wait_until(lambda: cluster.running_on(names, 2 * TASKS, cluster.workers), 60, "the pipeline to run")
        wait_until(lambda: len(sink_keys(cluster.runs, "sink")) > RECORDS // 5, 60, "a fifth of the records")

        kafka.stop()
        # Away long enough for every worker's session to expire: each drops its slots.
        wait_until(
            lambda: all("Slots lost" in w.log_text() for w in cluster.workers),
            60,
            "the workers to lose their slots",
        )
        for worker in cluster.workers:
            status, state, message = worker.health()
            assert (status, state) == (500, "unhealthy"), message
            assert "config topic" in message
        kafka.start()
        wait_until(lambda: all(w.health()[:2] == (200, "healthy") for w in cluster.workers), 60, "healthy again")

        wait_until(lambda: cluster.running_on(names, 2 * TASKS, cluster.workers), 90, "the pipeline to run again")
        expected = expected_keys(TASKS, RECORDS)
        wait_until(
            lambda: not expected - sink_keys(cluster.runs, "sink"), 120, "every record in the sink", interval=0.5
        )
        for worker in cluster.workers:
            worker.signal(signal.SIGTERM)
            assert worker.wait_exit(30) == 0, worker.log_tail()
