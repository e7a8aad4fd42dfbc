"""`ClusterConfigState`: one consistent, immutable view of the config log (Kafka's ClusterConfigState).

Built by `ConfigLogState` after applying the log up to `offset`; handed to any thread. `ConfigChange`
says what one record changed, for the listeners of `ConfigLog`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connect.runtime.domain.info import RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, TargetState


class ChangeKind(enum.Enum):
    CONNECTOR_CONFIG = "connector-config"
    CONNECTOR_REMOVED = "connector-removed"
    TARGET_STATE = "target-state"
    TASK_CONFIGS = "task-configs"  # a commit was read: applied, or marked the connector inconsistent
    TASK_COUNT = "task-count"
    RESTART_REQUEST = "restart-request"
    TASK_RESTART_REQUEST = "task-restart-request"
    LOGGER_LEVEL = "logger-level"
    EXTENSION = "extension"


@dataclass(frozen=True)
class ConfigChange:
    """What the record at `offset` changed. `name` is the connector (logger namespace, extension key)."""

    kind: ChangeKind
    name: str
    offset: int
    task: int | None = None


@dataclass(frozen=True)
class RestartRecord:
    """A pending restart request and the config-log offset it was written at (later ones supersede it)."""

    request: RestartRequest
    offset: int


@dataclass(frozen=True)
class ClusterConfigState:
    """Connectors, their configs, target states and committed task configs as of config-log `offset`.

    `offset` is the offset of the next record: every record before it is reflected here (-1 before any
    read). Task configs count only once their commit record was read; a connector whose last commit
    found an incomplete set of task records (compaction, a writer that died half-way) is `inconsistent`
    and has no tasks until its owner writes a complete set again.
    """

    offset: int = -1
    connector_configs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    target_states: Mapping[str, TargetState] = field(default_factory=dict)
    task_configs: Mapping[str, tuple[Mapping[str, str], ...]] = field(default_factory=dict)
    # Incremented by every applied commit of a connector's task configs (kept across deletion).
    task_config_generations: Mapping[str, int] = field(default_factory=dict)
    # The epoch of the last applied commit: commits and task records of a lower epoch are ignored.
    task_config_epochs: Mapping[str, int] = field(default_factory=dict)
    # The connector config in effect when the current task configs were committed.
    applied_connector_configs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    inconsistent: frozenset[str] = frozenset()
    task_count_records: Mapping[str, int] = field(default_factory=dict)
    restart_requests: Mapping[str, RestartRecord] = field(default_factory=dict)
    task_restart_requests: Mapping[ConnectorTaskId, int] = field(default_factory=dict)
    # KIP-976 cluster-wide logger levels, in the order of their latest records (apply them in this order).
    logger_levels: Mapping[str, str] = field(default_factory=dict)
    # Where each connector was last deleted, and each task last dropped by a commit (fewer tasks, none, or an
    # incomplete set): a status written before that offset is an earlier incarnation's.
    connector_removals: Mapping[str, int] = field(default_factory=dict)
    task_removals: Mapping[ConnectorTaskId, int] = field(default_factory=dict)
    extensions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def connectors(self) -> list[str]:
        return sorted(self.connector_configs)

    def contains(self, name: str) -> bool:
        return name in self.connector_configs

    def connector_config(self, name: str) -> Mapping[str, str] | None:
        return self.connector_configs.get(name)

    def target_state(self, name: str) -> TargetState:
        """The connector's target state; STARTED when none was written (as Kafka)."""
        return self.target_states.get(name, TargetState.STARTED)

    def tasks(self, name: str) -> list[ConnectorTaskId]:
        return [ConnectorTaskId(name, index) for index in range(self.task_count(name))]

    def task_count(self, name: str) -> int:
        return len(self.task_configs.get(name, ()))

    def task_config(self, task: ConnectorTaskId) -> Mapping[str, str] | None:
        configs = self.task_configs.get(task.connector, ())
        return configs[task.task] if 0 <= task.task < len(configs) else None

    def task_config_generation(self, name: str) -> int:
        """-1 if no task configs were ever applied for this connector name."""
        return self.task_config_generations.get(name, -1)

    def is_inconsistent(self, name: str) -> bool:
        return name in self.inconsistent

    def removal_offset(self, connector: str, task: int | None = None) -> int:
        """The config-log offset where the connector instance (`task` None) or task was last removed; -1 if never."""
        removed = self.connector_removals.get(connector, -1)
        if task is None:
            return removed
        return max(removed, self.task_removals.get(ConnectorTaskId(connector, task), -1))
