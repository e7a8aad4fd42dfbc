"""The worker-level groups, from what a `Worker` runs: `connect-worker-metrics` (with and without a
connector tag) and `connector-metrics`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Protocol

from connect.api.connector import Connector, SinkConnector
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.metrics.groups import MetricGroup, Value
from connect.runtime.metrics.worker_metrics import TASK_STATES, StartupCounts, WorkerStates


class HasConnector(Protocol):
    @property
    def connector(self) -> Connector: ...
    @property
    def config(self) -> Mapping[str, str]: ...


def worker_group(
    connectors: Mapping[str, object],
    tasks: Mapping[ConnectorTaskId, object],
    connector_startups: StartupCounts,
    task_startups: StartupCounts,
) -> MetricGroup:
    values: dict[str, Value] = {
        "connector-count": len(connectors),
        "task-count": len(tasks),
        **connector_startups.values("connector"),
        **task_startups.values("task"),
    }
    return MetricGroup("connect-worker-metrics", (), values)


def connector_task_counts(tasks: Mapping[ConnectorTaskId, object], states: WorkerStates) -> list[MetricGroup]:
    """Per connector with tasks here: how many, and how many in each state."""
    by_connector: dict[str, Counter[str]] = {}
    for task_id in tasks:
        by_connector.setdefault(task_id.connector, Counter())[states.task_state(task_id)] += 1
    groups = []
    for name, counts in sorted(by_connector.items()):
        values: dict[str, Value] = {"connector-total-task-count": sum(counts.values())}
        values.update({f"connector-{state}-task-count": counts[state] for state in TASK_STATES})
        groups.append(MetricGroup("connect-worker-metrics", (("connector", name),), values))
    return groups


def connector_group(name: str, instance: HasConnector, states: WorkerStates) -> MetricGroup:
    connector = instance.connector
    connector_class = type(connector)
    # As configured (Kafka reports the class name given): a Java name that resolves to ours stays as given.
    class_name = (
        instance.config.get("connector.class") or f"{connector_class.__module__}.{connector_class.__qualname__}"
    )
    try:
        version = connector.version()
    except Exception:  # plug-in code: a broken version() must not break the scrape
        version = "unknown"
    values: dict[str, Value] = {
        "status": states.connector_state(name),
        "connector-type": "sink" if isinstance(connector, SinkConnector) else "source",
        "connector-class": class_name,
        "connector-version": str(version),
    }
    return MetricGroup("connector-metrics", (("connector", name),), values)
