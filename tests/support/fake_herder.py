"""`FakeHerder`: an in-memory Herder for REST tests, holding configs, target states and statuses in dicts.

It answers like a standalone herder would, with Kafka Connect's error types and texts, but runs nothing:
creating a connector marks it and its `tasks.max` tasks RUNNING at once (PAUSED or STOPPED per the
initial state). Tests shape the rest through its helpers (`fail_task`, `set_active_topics`,
`set_offsets`) and make any method raise with `raise_on[method] = error`. It also implements the optional
`SupportsClusterLoggerLevels`: cluster-scope levels are recorded in `cluster_logger_levels`, and set on
`loggers` when a test gives it one (as a cluster would on this worker too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from connect.api.errors import AlreadyExistsError, ConfigError, NotFoundError
from connect.runtime.domain.errors import BadRequestError, ForbiddenError
from connect.runtime.domain.info import (
    ConfigInfo,
    ConfigInfos,
    ConfigKeyInfo,
    ConfigValueInfo,
    ConfigVersion,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    InstanceStatus,
    PluginInfo,
    PluginType,
    RestartRequest,
    ServerInfo,
    TaskInfo,
    TaskStateInfo,
    WorkerHealth,
)
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.herder import ConnectorOverview, overviews_one_by_one
from connect.runtime.logs.levels import LoggerLevels, parse_level
from connect.runtime.stores.config_history import ConfigHistory
from tests.support.fake_plugins import DEFAULT_PLUGINS, FakePlugin

STOP_FIRST = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
)


@dataclass
class _Connector:
    config: dict[str, str]
    plugin: FakePlugin
    target: TargetState
    state: State
    tasks: list[dict[str, str]] = field(default_factory=list)
    task_states: dict[int, InstanceStatus] = field(default_factory=dict)
    trace: str | None = None
    active_topics: list[str] = field(default_factory=list)
    offsets: list[ConnectorOffset] = field(default_factory=list)


class FakeHerder:
    """Implements `connect.runtime.herder.Herder` in memory."""

    def __init__(
        self,
        *,
        worker_id: str = "127.0.0.1:8083",
        plugins: Iterable[FakePlugin] = DEFAULT_PLUGINS,
        topic_tracking: bool = True,
        topic_tracking_reset: bool = True,
    ) -> None:
        self.worker_id = worker_id
        self.plugins = list(plugins)
        self.topic_tracking = topic_tracking
        self.topic_tracking_reset = topic_tracking_reset
        self.worker_health = WorkerHealth("healthy", "Worker has completed startup and is ready to handle requests.")
        self.raise_on: dict[str, BaseException] = {}
        self.restarts: list[RestartRequest | ConnectorTaskId] = []
        self.cluster_logger_levels: list[tuple[str, str]] = []
        self.loggers: LoggerLevels | None = None
        self._connectors: dict[str, _Connector] = {}
        self._history = ConfigHistory()

    # -- helpers for tests --------------------------------------------------------------------------

    def fail_task(self, name: str, task: int, trace: str) -> None:
        self._connectors[name].task_states[task] = InstanceStatus(State.FAILED, self.worker_id, trace)

    def fail_connector(self, name: str, trace: str) -> None:
        connector = self._connectors[name]
        connector.state, connector.trace = State.FAILED, trace

    def set_active_topics(self, name: str, topics: list[str]) -> None:
        self._connectors[name].active_topics = list(topics)

    def set_offsets(self, name: str, offsets: list[ConnectorOffset]) -> None:
        self._connectors[name].offsets = list(offsets)

    # -- Herder -----------------------------------------------------------------------------------

    def server_info(self) -> ServerInfo:
        self._check("server_info")
        return ServerInfo(version="0.1.0", commit="fake", kafka_cluster_id="fake-cluster")

    def health(self) -> WorkerHealth:
        self._check("health")
        return self.worker_health

    def connectors(self) -> list[str]:
        self._check("connectors")
        return sorted(self._connectors)

    def connector_info(self, name: str) -> ConnectorInfo:
        self._check("connector_info")
        return self._info(name, self._get(name))

    def connector_config(self, name: str) -> dict[str, str]:
        self._check("connector_config")
        return dict(self._get(name).config)

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        self._check("put_connector_config")
        if config.get("name", name) != name:
            raise BadRequestError(
                f"Connector name configuration ({config['name']}) doesn't match connector name in the URL ({name})"
            )
        config = {**config, "name": name}  # as the herders do (Kafka's checkAndPutConnectorConfigName)
        existing = self._connectors.get(name)
        if existing is not None and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        plugin = self._validated(config)
        if existing is None:
            target = initial_state or TargetState.STARTED
            connector = _Connector(dict(config), plugin, target, _state_for(target))
            self._connectors[name] = connector
            self._generate_tasks(name, connector)
            self._history.record(name, config)
            # Kafka answers a create before any task exists.
            return True, ConnectorInfo(name, dict(config), [], plugin.connector_type)
        existing.config, existing.plugin = dict(config), plugin
        self._generate_tasks(name, existing)
        self._history.record(name, config)
        return False, self._info(name, existing)

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        self._check("patch_connector_config")
        connector = self._get(name)
        merged = dict(connector.config)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        connector.plugin = self._validated(merged)
        connector.config = merged
        self._generate_tasks(name, connector)
        self._history.record(name, merged)
        return self._info(name, connector)

    def delete_connector(self, name: str) -> None:
        self._check("delete_connector")
        self._get(name)
        del self._connectors[name]
        self._history.record(name, None)

    def connector_history(self, name: str) -> list[ConfigVersion]:
        self._check("connector_history")
        versions = self._history.of(name)
        if not versions:
            raise NotFoundError(f"Connector {name} not found")
        return versions

    def connector_status(self, name: str) -> ConnectorStateInfo:
        self._check("connector_status")
        connector = self._connectors.get(name)
        if connector is None:
            raise NotFoundError(f"No status found for connector {name}")
        return self._status(name, connector)

    def connector_overviews(self, status: bool, info: bool) -> dict[str, ConnectorOverview]:
        self._check("connector_overviews")
        return overviews_one_by_one(self, status, info)

    def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        self._check("task_status")
        connector = self._connectors.get(task.connector)
        if connector is None or task.task not in connector.task_states:
            raise NotFoundError(f"No status found for task {task}")
        return TaskStateInfo(task.task, connector.task_states[task.task])

    def task_configs(self, name: str) -> list[TaskInfo]:
        self._check("task_configs")
        connector = self._get(name)
        return [TaskInfo(ConnectorTaskId(name, number), dict(config)) for number, config in enumerate(connector.tasks)]

    def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo | None:
        self._check("restart_connector")
        connector = self._get(request.connector, "Unknown connector: {name}")
        self.restarts.append(request)
        if request.legacy:
            connector.state, connector.trace = _state_for(connector.target), None
            return None
        restarting = InstanceStatus(State.RESTARTING, self.worker_id)
        connector_restarts = not request.only_failed or connector.state is State.FAILED
        planned_tasks = [
            TaskStateInfo(number, restarting if _task_restarts(request, status) else status)
            for number, status in sorted(connector.task_states.items())
        ]
        plan = ConnectorStateInfo(
            request.connector,
            restarting if connector_restarts else self._status(request.connector, connector).connector,
            planned_tasks,
            connector.plugin.connector_type,
        )
        if connector_restarts:
            connector.state, connector.trace = _state_for(connector.target), None
        for number, status in list(connector.task_states.items()):
            if _task_restarts(request, status):
                connector.task_states[number] = InstanceStatus(_state_for(connector.target), self.worker_id)
        return plan

    def restart_task(self, task: ConnectorTaskId) -> None:
        self._check("restart_task")
        connector = self._get(task.connector, "Unknown connector: {name}")
        if task.task not in connector.task_states:
            raise NotFoundError(f"Unknown task: {task}")
        self.restarts.append(task)
        connector.task_states[task.task] = InstanceStatus(_state_for(connector.target), self.worker_id)

    def pause_connector(self, name: str) -> None:
        self._check("pause_connector")
        self._retarget(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._check("resume_connector")
        self._retarget(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        self._check("stop_connector")
        self._retarget(name, TargetState.STOPPED)

    def connector_active_topics(self, name: str) -> list[str]:
        self._check("connector_active_topics")
        if not self.topic_tracking:
            raise ForbiddenError("Topic tracking is disabled.")
        connector = self._connectors.get(name)
        return [] if connector is None else list(connector.active_topics)

    def reset_connector_active_topics(self, name: str) -> None:
        self._check("reset_connector_active_topics")
        if not self.topic_tracking:
            raise ForbiddenError("Topic tracking is disabled.")
        if not self.topic_tracking_reset:
            raise ForbiddenError("Topic tracking reset is disabled.")
        if name in self._connectors:
            self._connectors[name].active_topics = []

    def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        self._check("connector_offsets")
        return list(self._get(name).offsets)

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        self._check("alter_connector_offsets")
        connector = self._stopped(name)
        if connector.plugin.connector_type.value == "sink":
            offsets = [_parse_sink_offset(offset) for offset in offsets]
        current = {_key(offset.partition): offset for offset in connector.offsets}
        for offset in offsets:
            if offset.offset is None:
                current.pop(_key(offset.partition), None)
            else:
                current[_key(offset.partition)] = offset
        connector.offsets = list(current.values())
        return "The offsets for this connector have been altered successfully"

    def reset_connector_offsets(self, name: str) -> str:
        self._check("reset_connector_offsets")
        self._stopped(name).offsets = []
        return "The offsets for this connector have been reset successfully"

    def connector_plugins(self, connectors_only: bool) -> list[PluginInfo]:
        self._check("connector_plugins")
        kinds = (PluginType.SOURCE, PluginType.SINK)
        return [plugin.info() for plugin in self.plugins if not connectors_only or plugin.type in kinds]

    def connector_plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        self._check("connector_plugin_config")
        found = self._plugin(plugin)
        if found is None:
            raise NotFoundError(f"Unknown plugin {plugin}.")
        return list(found.config_keys)

    def validate_connector_config(self, config: Mapping[str, str]) -> ConfigInfos:
        self._check("validate_connector_config")
        connector_class = config.get("connector.class")
        if connector_class is None:
            raise BadRequestError(f"Connector config {dict(config)} contains no connector type")
        plugin = self._plugin(connector_class)
        if plugin is None or plugin.type not in (PluginType.SOURCE, PluginType.SINK):
            raise BadRequestError(
                f"Failed to find any class that implements Connector and which name matches {connector_class}"
            )
        configs = [_validated_key(key, config.get(key.name)) for key in plugin.config_keys]
        tasks_max = config.get("tasks.max", "1")
        if not tasks_max.isdigit():
            errors = [f"Invalid value {tasks_max} for configuration tasks.max: Not a number of type INT"]
            configs.append(ConfigInfo(None, ConfigValueInfo("tasks.max", tasks_max, [], errors, True)))
        error_count = sum(len(info.value.errors) for info in configs if info.value is not None)
        groups = ["Common", *dict.fromkeys(key.group for key in plugin.config_keys if key.group)]
        return ConfigInfos(connector_class, error_count, groups, configs)

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        self._check("set_cluster_logger_level")
        parse_level(level)
        self.cluster_logger_levels.append((namespace, level))
        if self.loggers is not None:
            self.loggers.set_level(namespace, level)

    # -- internals --------------------------------------------------------------------------------

    def _check(self, method: str) -> None:
        error = self.raise_on.get(method)
        if error is not None:
            raise error

    def _get(self, name: str, missing: str = "Connector {name} not found") -> _Connector:
        connector = self._connectors.get(name)
        if connector is None:
            raise NotFoundError(missing.format(name=name))
        return connector

    def _plugin(self, name: str) -> FakePlugin | None:
        return next((plugin for plugin in self.plugins if plugin.matches(name)), None)

    def _validated(self, config: Mapping[str, str]) -> FakePlugin:
        result = self.validate_connector_config(config)
        if result.error_count:
            errors = [
                f"{info.value.name}: {error}" for info in result.configs if info.value for error in info.value.errors
            ]
            raise ConfigError(
                f"Connector configuration is invalid and contains the following {len(errors)} error(s):\n"
                + "\n".join(errors)
                + "\nYou can also find the above list of errors at the endpoint "
                "`/connector-plugins/{connectorType}/config/validate`"
            )
        plugin = self._plugin(config["connector.class"])
        assert plugin is not None
        return plugin

    def _generate_tasks(self, name: str, connector: _Connector) -> None:
        if connector.target is TargetState.STOPPED:
            connector.tasks, connector.task_states = [], {}
            return
        count = int(connector.config.get("tasks.max", "1"))
        connector.tasks = [{**connector.config, "task.id": str(number)} for number in range(count)]
        state = _state_for(connector.target)
        connector.task_states = {number: InstanceStatus(state, self.worker_id) for number in range(count)}

    def _retarget(self, name: str, target: TargetState) -> None:
        connector = self._get(name, "Unknown connector {name}")
        was_stopped = connector.target is TargetState.STOPPED
        connector.target, connector.state, connector.trace = target, _state_for(target), None
        if target is TargetState.STOPPED or was_stopped:
            self._generate_tasks(name, connector)
        else:
            state = _state_for(target)
            connector.task_states = {number: InstanceStatus(state, self.worker_id) for number in connector.task_states}

    def _stopped(self, name: str) -> _Connector:
        connector = self._get(name)
        if connector.target is not TargetState.STOPPED or connector.tasks:
            raise BadRequestError(STOP_FIRST.format(name=name))
        return connector

    def _info(self, name: str, connector: _Connector) -> ConnectorInfo:
        tasks = [ConnectorTaskId(name, number) for number in range(len(connector.tasks))]
        return ConnectorInfo(name, dict(connector.config), tasks, connector.plugin.connector_type)

    def _status(self, name: str, connector: _Connector) -> ConnectorStateInfo:
        return ConnectorStateInfo(
            name,
            InstanceStatus(connector.state, self.worker_id, connector.trace),
            [TaskStateInfo(number, status) for number, status in sorted(connector.task_states.items())],
            connector.plugin.connector_type,
        )


def _state_for(target: TargetState) -> State:
    return {TargetState.STARTED: State.RUNNING, TargetState.PAUSED: State.PAUSED}.get(target, State.STOPPED)


def _task_restarts(request: RestartRequest, status: InstanceStatus) -> bool:
    return request.include_tasks and (not request.only_failed or status.state is State.FAILED)


def _validated_key(key: ConfigKeyInfo, value: str | None) -> ConfigInfo:
    errors = (
        [f'Missing required configuration "{key.name}" which has no default value.']
        if key.required and value is None
        else []
    )
    return ConfigInfo(key, ConfigValueInfo(key.name, value, [], errors, True))


def _key(partition: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((name, repr(value)) for name, value in partition.items()))


def _parse_sink_offset(offset: ConnectorOffset) -> ConnectorOffset:
    """Kafka's SinkUtils rules: fixed keys, and numbers given as numbers or numeric strings."""
    partition = offset.partition
    if "kafka_topic" not in partition or "kafka_partition" not in partition:
        raise BadRequestError(
            "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'"
        )
    try:
        number = int(str(partition["kafka_partition"]))
    except ValueError:
        raise BadRequestError(
            f"Failed to parse the following Kafka partition value in the provided offsets: "
            f"'{partition['kafka_partition']}'. Partition values for sink connectors need to be integers."
        ) from None
    parsed_partition = {"kafka_topic": str(partition["kafka_topic"]), "kafka_partition": number}
    if offset.offset is None:
        return ConnectorOffset(parsed_partition, None)
    if "kafka_offset" not in offset.offset:
        raise BadRequestError("The offset for a sink connector should either be null or contain the key 'kafka_offset'")
    try:
        position = int(str(offset.offset["kafka_offset"]))
    except ValueError:
        raise BadRequestError(
            f"Failed to parse the following Kafka offset value in the provided offsets: "
            f"'{offset.offset['kafka_offset']}'. Offset values for sink connectors need to be integers."
        ) from None
    return ConnectorOffset(parsed_partition, {"kafka_offset": position})
