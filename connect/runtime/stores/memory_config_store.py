"""What a standalone worker was asked to run: connector configs, target states and generated task configs.

Kafka Connect's MemoryConfigBackingStore plus the ClusterConfigState snapshot, in one small class. It
lives only in memory, as in Kafka: a standalone worker re-creates its connectors from the files on its
command line at every start (and so does each connector's config history). Only the herder touches it,
always under the herder's lock, so it has no lock of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from connect.runtime.domain.info import ConfigVersion
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.stores.config_history import ConfigHistory


@dataclass
class _ConnectorEntry:
    config: dict[str, str]
    target_state: TargetState
    task_configs: list[dict[str, str]] = field(default_factory=list)
    # The connector config the current task configs were generated from: a changed connector config
    # restarts the tasks even when the connector produces the same task configs (Kafka's
    # "applied connector config").
    applied_config: dict[str, str] | None = None


class MemoryConfigStore:
    def __init__(self) -> None:
        self._connectors: dict[str, _ConnectorEntry] = {}
        self._history = ConfigHistory()
        # Counts the changes: whoever read this state can tell from it alone, without the herder lock,
        # whether what it read may have changed since (REST keeps `?expand` answers while it has not).
        self.generation = 0

    def connectors(self) -> list[str]:
        return sorted(self._connectors)

    def contains(self, name: str) -> bool:
        return name in self._connectors

    def connector_config(self, name: str) -> dict[str, str]:
        return dict(self._connectors[name].config)

    def connector_class(self, name: str) -> str | None:
        """`connector.class` of a connector, None if it does not exist (safe without the herder lock)."""
        entry = self._connectors.get(name)
        return None if entry is None else entry.config.get("connector.class", "")

    def target_state(self, name: str) -> TargetState:
        return self._connectors[name].target_state

    def put_connector_config(self, name: str, config: Mapping[str, str], target_state: TargetState | None) -> None:
        """Store a config; a new connector starts in `target_state` (STARTED if None), an existing one keeps its
        state unless `target_state` is given."""
        entry = self._connectors.get(name)
        if entry is None:
            self._connectors[name] = _ConnectorEntry(dict(config), target_state or TargetState.STARTED)
        else:
            entry.config = dict(config)
            if target_state is not None:
                entry.target_state = target_state
        self._history.record(name, config)
        self.generation += 1

    def remove_connector(self, name: str) -> None:
        if self._connectors.pop(name, None) is not None:
            self._history.record(name, None)
        self.generation += 1

    def history(self, name: str) -> list[ConfigVersion]:
        """The connector's config versions since this store started, oldest first."""
        return self._history.of(name)

    def put_target_state(self, name: str, state: TargetState) -> None:
        self._connectors[name].target_state = state
        self.generation += 1

    def tasks(self, name: str) -> list[ConnectorTaskId]:
        return [ConnectorTaskId(name, index) for index in range(len(self._connectors[name].task_configs))]

    def task_count(self, name: str) -> int:
        return len(self._connectors[name].task_configs)

    def task_config(self, task: ConnectorTaskId) -> dict[str, str] | None:
        entry = self._connectors.get(task.connector)
        if entry is None or not 0 <= task.task < len(entry.task_configs):
            return None
        return dict(entry.task_configs[task.task])

    def task_configs(self, name: str) -> list[dict[str, str]]:
        return [dict(c) for c in self._connectors[name].task_configs]

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        entry = self._connectors[name]
        entry.task_configs = [dict(c) for c in configs]
        entry.applied_config = dict(entry.config)
        self.generation += 1

    def remove_task_configs(self, name: str) -> None:
        entry = self._connectors[name]
        entry.task_configs = []
        entry.applied_config = None
        self.generation += 1

    def task_configs_changed(self, name: str, new_configs: list[dict[str, str]]) -> bool:
        """Kafka's `taskConfigsChanged`: a different count, any different task config, or a connector config
        changed since the tasks were generated."""
        entry = self._connectors[name]
        if new_configs != entry.task_configs:
            return True
        return entry.applied_config != entry.config
