"""Strimzi's Grafana dashboard for Kafka Connect works on a kconnect cluster: a real Prometheus scrapes two
distributed workers running real pipelines, and every query of the dashboard's panels that is not about
the JVM or the pod returns data, as written there (only its variables filled in). The cluster has a
paused and a failed connector, so the "task state with issues" panel has something to show."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.prometheus.server import CLUSTER, NAMESPACE, PrometheusServer
from tests.support.distributed_workers import Cluster, cluster_factory, datagen_config, make_topic, sink_config
from tests.support.recording_plugins import FAIL_ON_START_CONFIG
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

_SELECT = 'strimzi_io_kind=~"KafkaConnect.*",strimzi_io_cluster="$strimzi_connect_cluster_name"'
_IN_NAMESPACE = 'namespace="$kubernetes_namespace",' + _SELECT

# The panels' queries of Strimzi's `strimzi-kafka-connect.json`, but for JVM memory, GC, threads and pod CPU.
DASHBOARD_QUERIES = {
    "Number of Connectors": f"sum(kafka_connect_worker_connector_count{{{_SELECT}}})",
    "Number of Tasks": f"sum(kafka_connect_worker_task_count{{{_SELECT}}})",
    "Incoming bytes per second": (
        f"sum(rate(kafka_consumer_incoming_byte_total{{{_SELECT}}}[1m])) by (kubernetes_pod_name)"
    ),
    "Outgoing bytes per second": (
        f"sum(rate(kafka_producer_outgoing_byte_total{{{_SELECT}}}[1m])) by (kubernetes_pod_name)"
    ),
    "Task state with issues: paused": (
        f"sum(kafka_connect_worker_connector_paused_task_count{{{_IN_NAMESPACE}}}) by (connector) != 0"
    ),
    "Task state with issues: failed": (
        f"sum(kafka_connect_worker_connector_failed_task_count{{{_IN_NAMESPACE}}}) by (connector) != 0"
    ),
    "Task state with issues: unassigned": (
        f"sum(kafka_connect_worker_connector_unassigned_task_count{{{_IN_NAMESPACE}}}) by (connector)"
    ),
    "Task state with issues: destroyed": (
        f"sum(kafka_connect_worker_connector_destroyed_task_count{{{_IN_NAMESPACE}}}) by (connector)"
    ),
    "Task state: running": f"sum(kafka_connect_worker_connector_running_task_count{{{_SELECT}}})",
    "Task state: paused": f"sum(kafka_connect_worker_connector_paused_task_count{{{_SELECT}}})",
    "Task state: failed": f"sum(kafka_connect_worker_connector_failed_task_count{{{_SELECT}}})",
    "Task state: unassigned": f"sum(kafka_connect_worker_connector_unassigned_task_count{{{_SELECT}}})",
    "Task state: destroyed": f"sum(kafka_connect_worker_connector_destroyed_task_count{{{_SELECT}}})",
    "Connection count: consumers": f"sum(kafka_consumer_connection_count{{{_SELECT}}})",
    "Connection count: producers": f"sum(kafka_producer_connection_count{{{_SELECT}}})",
    "Connector Status": f"count by (status, connector) (kafka_connect_connector_status{{{_SELECT}}})",
    "Connector Task Status": f"count by (connector, task, status) (kafka_connect_connector_task_status{{{_SELECT}}})",
    # Panels of other versions of the dashboard (and Strimzi's operator dashboard).
    "Assigned connectors": f"sum(kafka_connect_coordinator_assigned_connectors{{{_SELECT}}})",
    "Assigned tasks": f"sum(kafka_connect_coordinator_assigned_tasks{{{_SELECT}}})",
    "Rebalancing": f"max(kafka_connect_worker_rebalance_rebalancing{{{_SELECT}}})",
    "Task errors": f"sum(kafka_connect_task_error_total_record_failures{{{_SELECT}}}) by (connector, task)",
}
VARIABLES = {"strimzi_connect_cluster_name": CLUSTER, "kubernetes_namespace": NAMESPACE}


@pytest.fixture
def cluster(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Cluster]:
    with cluster_factory(kafka_bootstrap, tmp_path) as make:
        yield make(
            workers=2,
            producer_statistics_interval_ms="500",
            consumer_statistics_interval_ms="500",
        )


@pytest.fixture
def prometheus(cluster: Cluster, tmp_path: Path) -> Iterator[PrometheusServer]:
    directory = tmp_path / "prometheus"
    directory.mkdir()
    server = PrometheusServer(directory, [w.url.removeprefix("http://") for w in cluster.workers])
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_every_dashboard_query_returns_data(
    cluster: Cluster, prometheus: PrometheusServer, kafka_bootstrap: str
) -> None:
    topic = make_topic(kafka_bootstrap, partitions=4)
    cluster.create("flow-source", datagen_config(cluster, topic, tasks=2, rate=200))
    cluster.create("flow-sink", sink_config(cluster, topic, tasks=2))
    cluster.create("idle-sink", sink_config(cluster, topic, tasks=1))
    broken = {**sink_config(cluster, topic, tasks=1), FAIL_ON_START_CONFIG: "true"}
    cluster.create("broken-sink", broken)
    wait_until(lambda: _tasks_in(cluster, "flow-sink", "RUNNING", 2), 60, "the flowing sink's tasks running")
    wait_until(lambda: _tasks_in(cluster, "idle-sink", "RUNNING", 1), 60, "the idle sink running")
    assert cluster.request("PUT", "/connectors/idle-sink/pause").status_code == 202
    wait_until(lambda: _tasks_in(cluster, "idle-sink", "PAUSED", 1), 60, "the idle sink paused")
    wait_until(lambda: _tasks_in(cluster, "broken-sink", "FAILED", 1), 60, "the broken sink failed")
    wait_until(prometheus.targets_up, 30, "Prometheus scraping both workers")

    queries = {panel: _filled(expr) for panel, expr in DASHBOARD_QUERIES.items()}
    # Every check is evaluated at one instant and retried as a whole: a scrape that misses its deadline on a
    # busy machine marks that worker's series stale until the next one, so no single query is final.
    misses: list[str] = []

    def dashboard_complete() -> bool:
        misses[:] = _dashboard_misses(prometheus, queries)
        return not misses

    try:
        wait_until(dashboard_complete, 90, "the dashboard's data", interval=1.0)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; still missing: {misses}") from None


# Each worker is scraped on its own schedule: the sums hold once both scrapes follow the assignments.
EXPECTED_SUMS = {
    "Number of Connectors": 4,
    "Number of Tasks": 6,
    "Assigned tasks": 6,
    "Task state: paused": 1,
    "Task state: failed": 1,
    "Task state: running": 4,
}


def _dashboard_misses(prometheus: PrometheusServer, queries: dict[str, str]) -> list[str]:
    """What the dashboard does not show yet, all panels read at one instant."""
    at = time.time()
    results = {panel: prometheus.query(expr, at) for panel, expr in queries.items()}
    misses = [f"{panel}: no data" for panel, result in results.items() if not result]
    for panel, expected in EXPECTED_SUMS.items():
        values = [float(r["value"][1]) for r in results[panel]]
        if values != [expected]:
            misses.append(f"{panel}: {values}, not [{expected}]")
    failed = [r["metric"]["connector"] for r in results["Task state with issues: failed"]]
    if failed != ["broken-sink"]:
        misses.append(f"connectors with failed tasks: {failed}")
    statuses = {(r["metric"]["connector"], r["metric"]["status"]) for r in results["Connector Status"]}
    if not {("flow-source", "running"), ("idle-sink", "paused")} <= statuses:
        misses.append(f"connector statuses: {sorted(statuses)}")
    if not sum(float(r["value"][1]) for r in results["Outgoing bytes per second"]) > 0:
        misses.append("no outgoing bytes")
    return misses


def _filled(expr: str) -> str:
    for name, value in VARIABLES.items():
        expr = expr.replace(f"${name}", value)
    return expr


def _tasks_in(cluster: Cluster, name: str, state: str, count: int) -> bool:
    status = cluster.status(name)
    tasks = [] if status is None else status["tasks"]
    return len(tasks) == count and all(t["state"] == state for t in tasks)
