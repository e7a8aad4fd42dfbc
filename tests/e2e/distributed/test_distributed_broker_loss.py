"""A cluster on three brokers rides out the crash of one of them, and of its return.

Where replication matters: the internal topics and the data topic are replicated to all three brokers
(the data topic with `min.insync.replicas=2`, so an acknowledged record is on two of them). The broker
killed with SIGKILL is the workers' group coordinator. Until the controller fences the dead broker
(Kafka's `broker.session.timeout.ms`, 9 s) the group has no coordinator, so workers whose session
timeout is shorter lose their slots and rejoin: their tasks stop and start again elsewhere. The
pipeline must deliver every record (at-least-once), never hand a sink batch to two instances of a
task at once, and run every task again once the remaining brokers have taken over; the broker then
comes back and the cluster keeps working through it. The brokers are the session's 3-node cluster,
whose fixture starts any node still down after the test.

A worker whose slots are lost (rather than revoked) stops their work at once, but the group may
already have given them to another worker, so a task's stop and its start elsewhere may overlap by
milliseconds; Kafka fences the old instance (its consumer left the group). The test checks that
such an overlap had no effect: no batch was handed to either instance while both existed.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from local_kafka import LocalKafka
from tests.fixtures.kafka import new_topic
from tests.support.distributed_workers import (
    cluster_factory,
    datagen_config,
    expected_keys,
    sink_config,
    sink_keys,
    topic_keys,
)
from tests.support.recording_plugins import Run, read_runs
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

TASKS = 4
RECORDS = TASKS * 1500
NAMES = ["src", "sink"]


def batches_during_overlaps(runs: list[Run]) -> list[str]:
    """Overlapping instances of one task, across processes, that were handed a batch during the overlap;
    and any overlap of a task that records no batches (a source task), which this cannot judge."""
    found = []
    for index, run in enumerate(runs):
        for other in runs[index + 1 :]:
            if run.task != other.task or run.pid == other.pid:
                continue
            start = max(run.start, other.start)
            stop = min(run.stop or float("inf"), other.stop or float("inf"))
            if start >= stop:
                continue
            puts = [t for t in (*run.puts, *other.puts) if start <= t <= stop]
            if puts or not run.task.startswith("sink-"):
                found.append(f"{run.task}: pids {run.pid} and {other.pid} both ran {start:.3f}-{stop:.3f}, puts {puts}")
    return found


def group_coordinator(bootstrap: str, group: str) -> int:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    description = admin.describe_consumer_groups([group])[group].result(timeout=30)
    return int(description.coordinator.id)


@pytest.mark.slow
def test_the_cluster_rides_out_the_crash_of_one_of_three_brokers(tmp_path: Path, local_kafka3: LocalKafka) -> None:
    kafka = local_kafka3
    with cluster_factory(kafka.bootstrap_servers, tmp_path) as make:
        cluster = make(3)
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        topic = new_topic(admin, TASKS, 3, config={"min.insync.replicas": "2"}, prefix="kc-e2e")
        cluster.create("src", datagen_config(cluster, topic, tasks=TASKS, rate=400, records=RECORDS))
        cluster.create("sink", sink_config(cluster, topic, tasks=TASKS), via=cluster.workers[1])
        wait_until(lambda: cluster.running_on(NAMES, 2 * TASKS, cluster.workers), 60, "the pipeline to run")
        wait_until(lambda: len(sink_keys(cluster.runs, "sink")) > RECORDS // 5, 60, "a fifth of the records")

        coordinator = group_coordinator(cluster.bootstrap, cluster.group)
        kafka.kill_node(coordinator)

        expected = expected_keys(TASKS, RECORDS)
        wait_until(
            lambda: not expected - sink_keys(cluster.runs, "sink"), 120, "every record in the sink", interval=0.5
        )
        assert set(topic_keys(cluster.bootstrap, topic)) >= expected
        cluster.wait_running_on(NAMES, 2 * TASKS, cluster.workers, 60, "every task RUNNING")
        assert group_coordinator(cluster.bootstrap, cluster.group) != coordinator

        kafka.start_node(coordinator)
        cluster.create("after", sink_config(cluster, topic, tasks=TASKS), via=cluster.workers[2])
        names = [*NAMES, "after"]
        wait_until(lambda: cluster.running_on(names, 3 * TASKS, cluster.workers), 60, "a new connector to run")
        wait_until(lambda: not expected - sink_keys(cluster.runs, "after"), 60, "the new sink to read every record")

        assert all(w.alive() for w in cluster.workers), cluster.logs()
        assert batches_during_overlaps(read_runs(cluster.runs)) == []
        for worker in cluster.workers:
            worker.signal(signal.SIGTERM)
            assert worker.wait_exit(30) == 0, worker.log_tail()
