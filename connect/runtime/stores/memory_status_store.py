"""`MemoryStatusStore`: one worker's connector and task statuses in memory (standalone mode and tests).

The transitions are `StatusTransitions`' (Kafka Connect's `AbstractStatus.State`); distributed mode's
statuses live in the status topic instead (`kafka_status_store`).
"""

from __future__ import annotations

import threading

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State, tasks_by_connector, tasks_of
from connect.runtime.domain.status import ConnectorStatusSnapshot, StatusTransitions


class MemoryStatusStore(StatusTransitions):
    """Statuses of one worker's connectors and tasks, in memory (standalone mode and tests)."""

    def __init__(self, worker_id: str) -> None:
        self.worker_id = worker_id
        self._lock = threading.Lock()
        self._connectors: dict[str, InstanceStatus] = {}
        self._tasks: dict[ConnectorTaskId, InstanceStatus] = {}
        self._topics: dict[str, set[str]] = {}
        # Counts the status changes (not the topic records): a reader of `versioned_snapshots` can tell from
        # it alone whether what it read may have changed since (REST keeps `?expand` answers while it has not).
        self.generation = 0

    # -- StatusListener ------------------------------------------------------------------------

    def on_connector_deletion(self, connector: str) -> None:
        with self._lock:
            self._connectors.pop(connector, None)
            self._topics.pop(connector, None)
            for task in [t for t in self._tasks if t.connector == connector]:
                del self._tasks[task]
            self.generation += 1

    def on_task_deletion(self, task: ConnectorTaskId) -> None:
        with self._lock:
            self._tasks.pop(task, None)
            self.generation += 1

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        with self._lock:
            self._topics.setdefault(task.connector, set()).add(topic)

    # -- reads ---------------------------------------------------------------------------------

    def connector_status(self, connector: str) -> InstanceStatus | None:
        with self._lock:
            return self._connectors.get(connector)

    def task_status(self, task: ConnectorTaskId) -> InstanceStatus | None:
        with self._lock:
            return self._tasks.get(task)

    def task_statuses(self, connector: str) -> dict[int, InstanceStatus]:
        with self._lock:
            return tasks_of(self._tasks, connector)

    def connector_snapshot(self, connector: str) -> ConnectorStatusSnapshot:
        with self._lock:
            tasks = tasks_of(self._tasks, connector)
            return ConnectorStatusSnapshot(connector, self._connectors.get(connector), tasks)

    def all(self) -> list[ConnectorStatusSnapshot]:
        """Every connector with a status or task statuses, sorted by name."""
        snapshots = self.snapshots()
        return [snapshots[name] for name in sorted(snapshots)]

    def snapshots(self) -> dict[str, ConnectorStatusSnapshot]:
        """Every connector with a status or task statuses, by name, as one consistent read."""
        return self.versioned_snapshots()[1]

    def versioned_snapshots(self) -> tuple[int, dict[str, ConnectorStatusSnapshot]]:
        """`snapshots` and the `generation` they are the statuses of."""
        with self._lock:
            generation = self.generation
            connectors = dict(self._connectors)
            tasks = tasks_by_connector(self._tasks)
        return generation, {
            name: ConnectorStatusSnapshot(name, connectors.get(name), tasks.get(name, {}))
            for name in connectors.keys() | tasks.keys()
        }

    def active_topics(self, connector: str) -> set[str]:
        with self._lock:
            return set(self._topics.get(connector, ()))

    def reset_active_topics(self, connector: str) -> None:
        with self._lock:
            self._topics.pop(connector, None)

    def _put_connector(self, connector: str, state: State, trace: str | None = None, *, safe: bool = False) -> None:
        with self._lock:
            self._connectors[connector] = InstanceStatus(state, self.worker_id, trace)
            self.generation += 1

    def _put_task(self, task: ConnectorTaskId, state: State, trace: str | None = None, *, safe: bool = False) -> None:
        # One worker's own statuses: no other owner to lose to, so `safe` changes nothing.
        with self._lock:
            self._tasks[task] = InstanceStatus(state, self.worker_id, trace)
            self.generation += 1
