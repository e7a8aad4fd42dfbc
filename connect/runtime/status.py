"""Status reporting: the `StatusListener` the Worker tells about every lifecycle change, and a memory store.

The Worker calls the listener from whichever thread made the change (task threads, connector threads,
the herder's thread), so implementations must be thread-safe. The transitions and the states they
lead to are Kafka Connect's (`AbstractStatus.State`):

| call                  | state       |
|-----------------------|-------------|
| `*_startup`, `*_resume` | RUNNING   |
| `*_pause`             | PAUSED      |
| `*_failure(trace)`    | FAILED      |
| `*_shutdown`          | UNASSIGNED  |
| `on_connector_stopped`| STOPPED     |
| `*_restart`           | RESTARTING  |
| `*_deletion`          | removed (Kafka writes a DESTROYED tombstone) |

`on_topic_used(task, topic)` records a topic a task produced to or consumed from (KIP-558 topic
tracking; Kafka's status topic keeps the task that first used it); the Worker calls it once per topic
and task instance.
"""

from __future__ import annotations

import abc
import threading
from dataclasses import dataclass, field
from typing import Protocol

from connect.runtime.info import InstanceStatus
from connect.runtime.states import ConnectorTaskId, State, tasks_by_connector, tasks_of


class StatusListener(Protocol):
    def on_connector_startup(self, connector: str) -> None: ...
    def on_connector_pause(self, connector: str) -> None: ...
    def on_connector_resume(self, connector: str) -> None: ...
    def on_connector_failure(self, connector: str, trace: str) -> None: ...
    def on_connector_shutdown(self, connector: str) -> None: ...
    def on_connector_stopped(self, connector: str) -> None: ...
    def on_connector_restart(self, connector: str) -> None: ...
    def on_connector_deletion(self, connector: str) -> None: ...

    def on_task_startup(self, task: ConnectorTaskId) -> None: ...
    def on_task_pause(self, task: ConnectorTaskId) -> None: ...
    def on_task_resume(self, task: ConnectorTaskId) -> None: ...
    def on_task_failure(self, task: ConnectorTaskId, trace: str) -> None: ...
    def on_task_shutdown(self, task: ConnectorTaskId) -> None: ...
    def on_task_restart(self, task: ConnectorTaskId) -> None: ...
    def on_task_deletion(self, task: ConnectorTaskId) -> None: ...

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None: ...


@dataclass(frozen=True)
class ConnectorStatusSnapshot:
    """A connector's status and its tasks' (by task number), as one consistent read."""

    name: str
    connector: InstanceStatus | None
    tasks: dict[int, InstanceStatus] = field(default_factory=dict)


class StatusTransitions(abc.ABC):
    """The lifecycle calls of `StatusListener` mapped to states once (the table above), for every store.

    A store writes through `_put_connector`/`_put_task`. `safe=True` marks the writes Kafka makes with a
    "safe put" (FAILED and UNASSIGNED): a store shared between workers may skip them when a newer owner
    wrote the current status; a store of one worker's own statuses may ignore the flag.
    """

    @abc.abstractmethod
    def _put_connector(self, connector: str, state: State, trace: str | None = None, *, safe: bool = False) -> None: ...

    @abc.abstractmethod
    def _put_task(
        self, task: ConnectorTaskId, state: State, trace: str | None = None, *, safe: bool = False
    ) -> None: ...

    def on_connector_startup(self, connector: str) -> None:
        self._put_connector(connector, State.RUNNING)

    def on_connector_pause(self, connector: str) -> None:
        self._put_connector(connector, State.PAUSED)

    def on_connector_resume(self, connector: str) -> None:
        self._put_connector(connector, State.RUNNING)

    def on_connector_failure(self, connector: str, trace: str) -> None:
        self._put_connector(connector, State.FAILED, trace, safe=True)

    def on_connector_shutdown(self, connector: str) -> None:
        self._put_connector(connector, State.UNASSIGNED, safe=True)

    def on_connector_stopped(self, connector: str) -> None:
        self._put_connector(connector, State.STOPPED)

    def on_connector_restart(self, connector: str) -> None:
        self._put_connector(connector, State.RESTARTING)

    def on_task_startup(self, task: ConnectorTaskId) -> None:
        self._put_task(task, State.RUNNING)

    def on_task_pause(self, task: ConnectorTaskId) -> None:
        self._put_task(task, State.PAUSED)

    def on_task_resume(self, task: ConnectorTaskId) -> None:
        self._put_task(task, State.RUNNING)

    def on_task_failure(self, task: ConnectorTaskId, trace: str) -> None:
        self._put_task(task, State.FAILED, trace, safe=True)

    def on_task_shutdown(self, task: ConnectorTaskId) -> None:
        self._put_task(task, State.UNASSIGNED, safe=True)

    def on_task_restart(self, task: ConnectorTaskId) -> None:
        self._put_task(task, State.RESTARTING)


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
