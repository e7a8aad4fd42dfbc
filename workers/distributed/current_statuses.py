"""`CurrentStatuses`: the status topic as REST shows it, without what an earlier incarnation left behind.

A connector deleted and re-created (or a task dropped and added back) may still have, on the keys its
earlier incarnation used, that incarnation's statuses until its new instances write theirs (the balancer
deletes only statuses nothing backs: `status_sweep.py`). Every status carries the generation its instance
was started under, and an instance of a unit removed at config-log offset r starts only with a
generation above r (`coordinator.py`); a status with a generation below the unit's last removal is
therefore an earlier incarnation's, and is not shown.

Threads: any (REST handlers); the store and the config snapshots are thread-safe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.domain.status import ConnectorStatusSnapshot
from connect.runtime.stores import ClusterConfigState, StatusEntry


class StatusEntries(Protocol):
    """What is read from `KafkaStatusStore`."""

    def connector_entries(self, connector: str) -> tuple[StatusEntry | None, dict[int, StatusEntry]]: ...

    def all_entries(self) -> tuple[dict[str, StatusEntry], dict[str, dict[int, StatusEntry]]]: ...

    def task_entry(self, task: ConnectorTaskId) -> StatusEntry | None: ...

    def active_topics(self, connector: str) -> set[str]: ...

    def reset_active_topics(self, connector: str) -> None: ...


class CurrentStatuses:
    """The `StatusReader` of the distributed herder."""

    def __init__(self, store: StatusEntries, snapshot: Callable[[], ClusterConfigState]) -> None:
        self._store = store
        self._snapshot = snapshot

    def connector_snapshot(self, connector: str, config: ClusterConfigState | None = None) -> ConnectorStatusSnapshot:
        """The statuses of the connector as configured in `config` (default: the config log as read so far)."""
        config = config if config is not None else self._snapshot()
        entry, tasks = self._store.connector_entries(connector)
        return _current_snapshot(connector, entry, tasks, config)

    def connector_snapshots(self, config: ClusterConfigState) -> dict[str, ConnectorStatusSnapshot]:
        """`connector_snapshot` of every connector `config` holds, from one read of the store."""
        connectors, tasks = self._store.all_entries()
        return {
            name: _current_snapshot(name, connectors.get(name), tasks.get(name, {}), config)
            for name in config.connectors()
        }

    def task_status(self, task: ConnectorTaskId, config: ClusterConfigState | None = None) -> InstanceStatus | None:
        config = config if config is not None else self._snapshot()
        return _current(self._store.task_entry(task), config.removal_offset(task.connector, task.task))

    def active_topics(self, connector: str) -> set[str]:
        return self._store.active_topics(connector)

    def reset_active_topics(self, connector: str) -> None:
        self._store.reset_active_topics(connector)


def _current_snapshot(
    connector: str, entry: StatusEntry | None, tasks: dict[int, StatusEntry], config: ClusterConfigState
) -> ConnectorStatusSnapshot:
    return ConnectorStatusSnapshot(
        connector,
        _current(entry, config.removal_offset(connector)),
        {
            n: status
            for n, task_entry in tasks.items()
            if (status := _current(task_entry, config.removal_offset(connector, n))) is not None
        },
    )


def _current(entry: StatusEntry | None, removed_at: int) -> InstanceStatus | None:
    if entry is None or entry.generation < removed_at:
        return None
    return entry.status
