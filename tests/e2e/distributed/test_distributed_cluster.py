"""What users of a cluster rely on besides failover: any worker answers any request for the whole cluster,
settings come from the environment alone, and a worker refuses internal topics it cannot use."""

from __future__ import annotations

import signal
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from tests.support.distributed_workers import (
    Cluster,
    WorkerProcess,
    datagen_config,
    make_topic,
    per_worker,
    sink_config,
    worker_props,
)
from tests.support.recording_plugins import read_runs
from tests.support.waiting import wait_until
from workers.common.env import env_name

pytestmark = pytest.mark.e2e


def states(cluster: Cluster, name: str, via: WorkerProcess) -> list[str] | None:
    status = cluster.status(name, via)
    if status is None:
        return None
    return [status["connector"]["state"], *(t["state"] for t in status["tasks"])]


def test_every_worker_serves_every_request_for_the_whole_cluster(clusters: Callable[..., Cluster]) -> None:
    cluster = clusters(3)
    w1, w2, w3 = cluster.workers
    topic = make_topic(cluster.bootstrap, 6)
    cluster.create("src", datagen_config(cluster, topic, rate=60), via=w1)
    cluster.create("sink", sink_config(cluster, topic), via=w2)

    owners = wait_until(lambda: cluster.balanced_on(["src", "sink"], 12, cluster.workers, via=w3), 60, "4 per worker")
    assert sorted(per_worker(owners).values()) == [4, 4, 4]
    for worker in cluster.workers:
        assert sorted(cluster.request("GET", "/connectors", via=worker).json()) == ["sink", "src"]

    # Pause through one worker, watch through another, resume through the third.
    assert cluster.request("PUT", "/connectors/src/pause", via=w3).status_code == 202
    wait_until(lambda: states(cluster, "src", w1) == ["PAUSED"] * 7, 30, "src PAUSED everywhere")
    assert cluster.request("PUT", "/connectors/src/resume", via=w2).status_code == 202
    wait_until(lambda: states(cluster, "src", w3) == ["RUNNING"] * 7, 30, "src RUNNING again")

    # Restart one task through a worker that may not run it: a new instance of that task starts.
    before = {run.start for run in read_runs(cluster.runs) if run.task == "src-2"}
    assert cluster.request("POST", "/connectors/src/tasks/2/restart", via=w1).status_code == 204
    wait_until(
        lambda: {run.start for run in read_runs(cluster.runs) if run.task == "src-2"} - before, 30, "src-2 restarted"
    )

    # Reconfigure through one worker: the cluster runs the new task count.
    config = {**cluster.request("GET", "/connectors/sink/config", via=w3).json(), "tasks.max": "3"}
    assert cluster.request("PUT", "/connectors/sink/config", via=w3, json=config).status_code == 200
    wait_until(lambda: states(cluster, "sink", w2) == ["RUNNING"] * 4, 30, "the sink with 3 tasks")

    # The expanded list, from any worker, shows what the single-connector endpoints show.
    expanded = cluster.request("GET", "/connectors?expand=status&expand=info", via=w2).json()
    assert sorted(expanded) == ["sink", "src"]
    for name, entry in expanded.items():
        assert entry["info"] == cluster.request("GET", f"/connectors/{name}", via=w1).json()
        assert entry["status"]["connector"]["state"] == cluster.status(name, w3)["connector"]["state"]
        assert len(entry["status"]["tasks"]) == len(cluster.status(name, w3)["tasks"])

    # Stop and delete through different workers: every task instance stops, and nobody knows the connector.
    assert cluster.request("PUT", "/connectors/sink/stop", via=w1).status_code == 204
    wait_until(lambda: states(cluster, "sink", w3) == ["STOPPED"], 30, "the sink STOPPED with no tasks")
    assert cluster.request("DELETE", "/connectors/src", via=w2).status_code == 204
    for worker in cluster.workers:
        assert cluster.request("GET", "/connectors/src", via=worker).status_code == 404
    wait_until(
        lambda: all(run.stop is not None for run in read_runs(cluster.runs) if run.task.startswith("src-")),
        30,
        "every src task instance to stop",
    )


def test_a_worker_configured_only_through_the_environment_joins_the_cluster(
    clusters: Callable[..., Cluster], tmp_path: Path
) -> None:
    cluster = clusters(1)
    props = worker_props(cluster.bootstrap, cluster.group)
    from_env = WorkerProcess("env-only", props, tmp_path)
    from_env.start(env={env_name(key): value for key, value in props.items()}, with_file=False)
    cluster.workers.append(from_env)
    wait_until(from_env.healthy, 60, "the environment-configured worker to be healthy", interval=0.2)

    topic = make_topic(cluster.bootstrap, 4)
    cluster.create("src", datagen_config(cluster, topic, tasks=4, rate=20), via=from_env)
    owners = wait_until(lambda: cluster.balanced_on(["src"], 4, cluster.workers), 60, "4 tasks over both workers")
    assert per_worker(owners) == {cluster.workers[0].worker_id: 2, from_env.worker_id: 2}
    assert "Worker settings from the environment: bootstrap.servers" in from_env.log_text()
    from_env.signal(signal.SIGTERM)
    assert from_env.wait_exit(30) == 0


@pytest.mark.parametrize(
    ("topic_setting", "partitions", "config", "message"),
    [
        ("config.storage.topic", 2, {"cleanup.policy": "compact"}, "has 2 partitions, but kconnect needs exactly 1"),
        ("status.storage.topic", 5, {"cleanup.policy": "delete"}, "cleanup.policy=delete"),
    ],
)
def test_a_worker_refuses_internal_topics_it_cannot_use(
    kafka_bootstrap: str, tmp_path: Path, topic_setting: str, partitions: int, config: dict[str, str], message: str
) -> None:
    props = worker_props(kafka_bootstrap, f"kc-e2e-bad-{uuid.uuid4().hex[:8]}")
    name = props[topic_setting]
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1, config=config)])[name].result(30)
    worker = WorkerProcess("refusing", props, tmp_path)
    worker.start()
    try:
        code = worker.wait_exit(60)
    except subprocess.TimeoutExpired:
        worker.kill()
        raise
    assert code == 2, worker.log_tail()
    log = worker.log_text()
    assert f"Topic '{name}' ({topic_setting})" in log and message in log, worker.log_tail()
