"""`ConfigLogState`: the config topic's records applied in log order (Kafka's KafkaConfigBackingStore reader).

No I/O: `apply(key, value, offset)` takes one record and returns what it changed; `snapshot()` gives
the immutable `ClusterConfigState`. Rules:
- `connector-<c>` sets or (tombstone) removes a connector with its task configs and pending restarts;
- `task-<c>-<n>` is staged; `commit-<c>` `{"tasks": N}` applies the staged configs of tasks 0..N-1 at
  once, replacing the previous set, or marks the connector inconsistent if one is missing. Staged
  records are dropped at every commit. A commit for a connector without config is ignored;
- with kconnect's `epoch`, a commit or task record older than the connector's last applied epoch is
  a zombie's and ignored, and a commit applies only task records of its own epoch;
- `target-state-<c>` uses `state.v2` when present; absent means STARTED;
- the offsets where connectors were deleted and tasks dropped are remembered (`removal_offset`): statuses
  and placements older than a unit's removal belong to an earlier incarnation of it;
- `logger-cluster-<namespace>` levels are kept in the order of their latest records, the order in which
  applying them gives what applying the whole log would.
Records that cannot be parsed are logged and skipped, as Kafka does. Not thread-safe: `ConfigLog`
applies records on its reader thread under its lock.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.stores import config_records as records
from connect.runtime.stores.cluster_config import ChangeKind, ClusterConfigState, ConfigChange, RestartRecord

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _StagedTask:
    config: dict[str, str]
    epoch: int | None


class ConfigLogState:
    def __init__(self) -> None:
        self._offset = -1
        self._configs: dict[str, dict[str, str]] = {}
        self._target_states: dict[str, TargetState] = {}
        self._task_configs: dict[str, tuple[dict[str, str], ...]] = {}
        self._generations: dict[str, int] = {}
        self._epochs: dict[str, int] = {}
        self._applied: dict[str, dict[str, str]] = {}
        self._inconsistent: set[str] = set()
        self._staged: dict[str, dict[int, _StagedTask]] = {}
        self._task_counts: dict[str, int] = {}
        self._restarts: dict[str, RestartRecord] = {}
        self._task_restarts: dict[ConnectorTaskId, int] = {}
        self._logger_levels: dict[str, str] = {}
        self._connector_removals: dict[str, int] = {}
        self._task_removals: dict[ConnectorTaskId, int] = {}
        self._extensions: dict[str, dict[str, Any]] = {}
        self._snapshot: ClusterConfigState | None = ClusterConfigState()

    @property
    def offset(self) -> int:
        return self._offset

    def snapshot(self) -> ClusterConfigState:
        if self._snapshot is None:
            self._snapshot = ClusterConfigState(
                offset=self._offset,
                connector_configs={k: dict(v) for k, v in self._configs.items()},
                target_states=dict(self._target_states),
                task_configs=dict(self._task_configs),
                task_config_generations=dict(self._generations),
                task_config_epochs=dict(self._epochs),
                applied_connector_configs=dict(self._applied),
                inconsistent=frozenset(self._inconsistent),
                task_count_records=dict(self._task_counts),
                restart_requests=dict(self._restarts),
                task_restart_requests=dict(self._task_restarts),
                logger_levels=dict(self._logger_levels),
                connector_removals=dict(self._connector_removals),
                task_removals=dict(self._task_removals),
                extensions={k: dict(v) for k, v in self._extensions.items()},
            )
        return self._snapshot

    def apply(self, key: bytes | None, value: bytes | None, offset: int) -> list[ConfigChange]:
        """Apply the record at `offset`; returns the changes it made (empty if ignored)."""
        self._offset = max(self._offset, offset + 1)
        self._snapshot = None
        if key is None:
            log.error("Config topic record at offset %d has no key; skipped", offset)
            return []
        text = key.decode("utf-8", errors="replace")
        parsed: dict[str, Any] | None = None
        if value is not None:
            parsed = records.parse_object(value)
            if parsed is None:
                log.error("Config topic record %s at offset %d is not a JSON object; skipped", text, offset)
                return []
        change = self._dispatch(text, parsed, offset)
        return [change] if change is not None else []

    def _dispatch(self, key: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        # Longer prefixes first: "task-" is also the start of "tasks-fencing-".
        if key.startswith(records.TASK_RESTART_PREFIX):
            return self._task_restart(key.removeprefix(records.TASK_RESTART_PREFIX), value, offset)
        if key.startswith(records.EXTENSION_PREFIX):
            return self._extension(key, value, offset)
        if key.startswith(records.CONNECTOR_PREFIX):
            return self._connector(key.removeprefix(records.CONNECTOR_PREFIX), value, offset)
        if key.startswith(records.TASK_COUNT_PREFIX):
            return self._task_count(key.removeprefix(records.TASK_COUNT_PREFIX), value, offset)
        if key.startswith(records.TASK_PREFIX):
            self._task(key.removeprefix(records.TASK_PREFIX), value, offset)
            return None
        if key.startswith(records.COMMIT_PREFIX):
            return self._commit(key.removeprefix(records.COMMIT_PREFIX), value, offset)
        if key.startswith(records.TARGET_STATE_PREFIX):
            return self._target_state(key.removeprefix(records.TARGET_STATE_PREFIX), value, offset)
        if key.startswith(records.RESTART_PREFIX):
            return self._restart(key.removeprefix(records.RESTART_PREFIX), value, offset)
        if key.startswith(records.LOGGER_PREFIX):
            return self._logger(key.removeprefix(records.LOGGER_PREFIX), value, offset)
        if key == records.SESSION_KEY:
            return None  # KIP-507 request signing: kconnect's workers do not sign internal requests
        log.warning("Config topic record with unknown key %s at offset %d; skipped", key, offset)
        return None

    def _connector(self, name: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        if value is None:
            self._configs.pop(name, None)
            self._task_configs.pop(name, None)
            self._applied.pop(name, None)
            self._inconsistent.discard(name)
            self._staged.pop(name, None)
            # A re-created connector starts a new line of owners; its generations keep counting up.
            self._epochs.pop(name, None)
            self._restarts.pop(name, None)
            for task in [t for t in self._task_restarts if t.connector == name]:
                del self._task_restarts[task]
            # The connector's removal covers its tasks' (it is later than any of theirs).
            self._connector_removals[name] = offset
            for task in [t for t in self._task_removals if t.connector == name]:
                del self._task_removals[task]
            return ConfigChange(ChangeKind.CONNECTOR_REMOVED, name, offset)
        properties = records.parse_properties(value)
        if properties is None:
            log.error("Config of connector %s at offset %d has no properties map; skipped", name, offset)
            return None
        self._configs[name] = properties
        return ConfigChange(ChangeKind.CONNECTOR_CONFIG, name, offset)

    def _task(self, suffix: str, value: dict[str, Any] | None, offset: int) -> None:
        task = records.parse_task_id(suffix)
        if task is None:
            log.error("Config topic key task-%s at offset %d is not a task id; skipped", suffix, offset)
            return
        if value is None:
            log.error("Task config of %s at offset %d is unexpectedly a tombstone; skipped", task, offset)
            return
        properties = records.parse_properties(value)
        if properties is None:
            log.error("Task config of %s at offset %d has no properties map; skipped", task, offset)
            return
        epoch = records.parse_int(value.get("epoch"))
        current = self._epochs.get(task.connector)
        if epoch is not None and current is not None and epoch < current:
            log.warning("Ignoring task config of %s from stale epoch %d (current %d)", task, epoch, current)
            return
        staged = self._staged.setdefault(task.connector, {})
        previous = staged.get(task.task)
        if previous is not None and previous.epoch is not None and epoch is not None and epoch < previous.epoch:
            log.warning("Ignoring task config of %s from epoch %s, staged one is from %s", task, epoch, previous.epoch)
            return
        staged[task.task] = _StagedTask(properties, epoch)

    def _commit(self, name: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        staged = self._staged.pop(name, {})
        if value is None:
            log.error("Task commit of connector %s at offset %d is unexpectedly a tombstone; skipped", name, offset)
            return None
        count = records.parse_int(value.get("tasks"))
        if count is None or count < 0:
            log.error("Task commit of connector %s at offset %d has no task count; skipped", name, offset)
            return None
        if name not in self._configs:
            log.debug("Ignoring the task commit of connector %s at offset %d: it has no config", name, offset)
            return None
        epoch = records.parse_int(value.get("epoch"))
        current = self._epochs.get(name)
        if epoch is not None and current is not None and epoch < current:
            log.warning("Ignoring task commit of %s from stale epoch %d (current %d)", name, epoch, current)
            return None
        if epoch is not None:
            self._epochs[name] = epoch
        complete = all(index in staged and (epoch is None or staged[index].epoch == epoch) for index in range(count))
        previous_count = len(self._task_configs.get(name, ()))
        for index in range(count if complete else 0, previous_count):
            self._task_removals[ConnectorTaskId(name, index)] = offset
        if complete:
            self._task_configs[name] = tuple(staged[index].config for index in range(count))
            self._applied[name] = self._configs[name]
            self._generations[name] = self._generations.get(name, -1) + 1
            self._inconsistent.discard(name)
        else:
            log.warning(
                "Connector %s: the task commit at offset %d names %d tasks but not all of their configs were "
                "read; its tasks stay stopped until its owner writes them again",
                name,
                offset,
                count,
            )
            self._task_configs.pop(name, None)
            self._inconsistent.add(name)
        return ConfigChange(ChangeKind.TASK_CONFIGS, name, offset)

    def _target_state(self, name: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        if value is None:
            self._target_states.pop(name, None)
        else:
            state = records.parse_target_state(value)
            if state is None:
                log.error("Target state of connector %s at offset %d is not valid; skipped", name, offset)
                return None
            self._target_states[name] = state
        return ConfigChange(ChangeKind.TARGET_STATE, name, offset)

    def _restart(self, name: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        if value is None:
            self._restarts.pop(name, None)
            return None
        self._restarts[name] = RestartRecord(records.parse_restart(name, value), offset)
        return ConfigChange(ChangeKind.RESTART_REQUEST, name, offset)

    def _task_restart(self, suffix: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        task = records.parse_task_id(suffix)
        if task is None:
            log.error("Config topic key %s%s is not a task id; skipped", records.TASK_RESTART_PREFIX, suffix)
            return None
        if value is None:
            self._task_restarts.pop(task, None)
            return None
        self._task_restarts[task] = offset
        return ConfigChange(ChangeKind.TASK_RESTART_REQUEST, task.connector, offset, task.task)

    def _task_count(self, name: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        if value is None:
            self._task_counts.pop(name, None)
        else:
            count = records.parse_int(value.get("task-count"))
            if count is None:
                log.error("Task count record of connector %s at offset %d is not valid; skipped", name, offset)
                return None
            self._task_counts[name] = count
        return ConfigChange(ChangeKind.TASK_COUNT, name, offset)

    def _logger(self, namespace: str, value: dict[str, Any] | None, offset: int) -> ConfigChange | None:
        if value is None:
            self._logger_levels.pop(namespace, None)
        else:
            level = value.get("level")
            if not isinstance(level, str):
                log.error("Logger level record of %s at offset %d is not valid; skipped", namespace, offset)
                return None
            # Re-inserted, so that the dict's order is the order of the latest records.
            self._logger_levels.pop(namespace, None)
            self._logger_levels[namespace] = level
        return ConfigChange(ChangeKind.LOGGER_LEVEL, namespace, offset)

    def _extension(self, key: str, value: dict[str, Any] | None, offset: int) -> ConfigChange:
        if value is None:
            self._extensions.pop(key, None)
        else:
            self._extensions[key] = value
        return ConfigChange(ChangeKind.EXTENSION, key, offset)
