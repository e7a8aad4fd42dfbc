"""Status reporting: the `StatusListener` the Worker tells about every lifecycle change, and the transitions
every status store shares (`StatusTransitions`; the stores are `connect.runtime.stores`' status stores).

The Worker calls the listener from whichever thread made the change (task threads, connector threads,
the herder's thread), so implementations must be thread-safe. The transitions and the states they
lead to are Kafka Connect's (`AbstractStatus.State`):

| call                  | state       |
|-----------------------|-------------|
| `*_startup`, `*_resume` | RUNNING   |
| `*_pause`             | PAUSED      |
| `*_failure(trace)`    | FAILED      |
| `on_task_problem(trace)` | RUNNING, with the trace (a task that runs on but wants a problem seen) |
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
from dataclasses import dataclass, field
from typing import Protocol

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State


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
    def on_task_problem(self, task: ConnectorTaskId, trace: str) -> None: ...
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

    def on_task_problem(self, task: ConnectorTaskId, trace: str) -> None:
        self._put_task(task, State.RUNNING, trace)

    def on_task_shutdown(self, task: ConnectorTaskId) -> None:
        self._put_task(task, State.UNASSIGNED, safe=True)

    def on_task_restart(self, task: ConnectorTaskId) -> None:
        self._put_task(task, State.RESTARTING)
