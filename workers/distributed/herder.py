"""`DistributedHerder`: the Herder of a worker in a cluster; any worker answers any request for the cluster.

Writes (create, update, delete, pause, resume, stop, restarts) are records in the config log, which
any worker may append; each call returns once Kafka acknowledged the record and this worker read it
back, so the next read on this worker sees it. The workers that own the affected connector instance
and tasks act on the record (`coordinator.py`), so no request is ever forwarded and none answers 409.
Concurrent writers are ordered by the log: the last one wins, as with Kafka Connect's leader.

Reads come from this worker's copies of the config log (read to its end first, so a write made
through another worker is seen) and of the status topic (statuses are eventually consistent, as in
Kafka Connect: a status is visible once its owner's write has been read back).

Threads: REST handler threads call the public methods, concurrently; they share no mutable state
beyond the logs and stores, which are thread-safe.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from connect.api.errors import AlreadyExistsError, ConfigError, NotFoundError, RetriableError
from connect.runtime.connector_config.keys import CONNECTOR_CLASS_CONFIG
from connect.runtime.errors import BadRequestError, ForbiddenError
from connect.runtime.info import (
    ConfigInfos,
    ConfigKeyInfo,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    ConnectorType,
    InstanceStatus,
    PluginInfo,
    PluginType,
    RestartRequest,
    ServerInfo,
    TaskInfo,
    TaskStateInfo,
    WorkerHealth,
)
from connect.runtime.kafka_clients import KafkaAdmin, KafkaClients
from connect.runtime.plugins import PluginRegistry
from connect.runtime.states import ConnectorTaskId, State, TargetState
from connect.runtime.stores import ClusterConfigState, ConfigLog, KafkaOffsetStore, KafkaStatusStore
from connect.runtime.validation import connector_plugin_config, invalid_config_message, validate_connector_config
from connect.runtime.worker_config import WorkerConfig
from workers.standalone.offset_admin import OffsetAdmin
from workers.standalone.server_info import build_info

log = logging.getLogger(__name__)

READ_BARRIER_S = 2.0
WRITE_TIMEOUT_S = 30.0

_HEALTHY = "Worker has completed startup and is ready to handle requests."
_STARTING = "Worker is still starting up."


class DistributedHerder:
    """Implements `connect.runtime.herder.Herder` for one worker of a cluster."""

    def __init__(
        self,
        *,
        worker_id: str,
        config: WorkerConfig,
        group_id: str,
        exactly_once_enabled: bool,
        registry: PluginRegistry,
        config_log: ConfigLog,
        status: KafkaStatusStore,
        offset_store: KafkaOffsetStore,
        clients: KafkaClients,
        ready: Callable[[], bool],
    ) -> None:
        self.worker_id = worker_id
        self._config = config
        self._group_id = group_id
        self._exactly_once = exactly_once_enabled
        self._registry = registry
        self._log = config_log
        self._status = status
        self._clients = clients
        self._ready = ready
        self._offsets = OffsetAdmin(registry, offset_store, self._admin_for)
        self._cluster_id: str | None = None

    # -- reads ---------------------------------------------------------------------------------

    def server_info(self) -> ServerInfo:
        if self._cluster_id is None:
            self._cluster_id = self._clients.admin("kconnect-herder-admin").cluster_id()
        return build_info(self._cluster_id)

    def health(self) -> WorkerHealth:
        if not self._ready():
            return WorkerHealth("starting", _STARTING)
        return WorkerHealth("healthy", _HEALTHY)

    def connectors(self) -> list[str]:
        return self._snapshot().connectors()

    def connector_info(self, name: str) -> ConnectorInfo:
        return self._info(self._snapshot(), name)

    def connector_config(self, name: str) -> dict[str, str]:
        return dict(self.connector_info(name).config)

    def task_configs(self, name: str) -> list[TaskInfo]:
        snapshot = self._snapshot()
        _require(snapshot, name)
        return [TaskInfo(task, dict(snapshot.task_config(task) or {})) for task in snapshot.tasks(name)]

    def connector_status(self, name: str) -> ConnectorStateInfo:
        snapshot = self._log.snapshot()
        statuses = self._status.connector_snapshot(name)
        if not snapshot.contains(name) or statuses.connector is None:
            raise NotFoundError(f"No status found for connector {name}")
        count = snapshot.task_count(name)
        tasks = [TaskStateInfo(n, status) for n, status in sorted(statuses.tasks.items()) if n < count]
        return ConnectorStateInfo(name, statuses.connector, tasks, self._type_of(snapshot, name))

    def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        status = self._status.task_status(task)
        if status is None or self._log.snapshot().task_config(task) is None:
            raise NotFoundError(f"No status found for task {task}")
        return TaskStateInfo(task.task, status)

    # -- create, update, delete ----------------------------------------------------------------

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        included = config.get("name")
        if included is not None and included != name:
            raise BadRequestError(
                f"Connector name configuration ({included}) doesn't match connector name in the URL ({name})"
            )
        config = {**config, "name": name}
        self._raise_if_invalid(config)
        exists = self._snapshot().contains(name)
        if exists and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        # No target state record unless one was asked for: absent means STARTED, and a replaced
        # connector keeps the state it has.
        self._log.put_connector_config(name, config, initial_state)
        log.info("%s connector %s", "Updated" if exists else "Created", name)
        return not exists, self._info(self._log.snapshot(), name)

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        current = self.connector_config(name)
        for key, value in patch.items():
            if value is None:
                current.pop(key, None)
            else:
                current[key] = value
        _, info = self.put_connector_config(name, current, allow_replace=True)
        return info

    def delete_connector(self, name: str) -> None:
        _require(self._snapshot(), name)
        self._log.remove_connector(name)
        log.info("Deleted connector %s", name)

    # -- lifecycle requests (executed by the workers that run the instances) ---------------------

    def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo | None:
        snapshot = self._snapshot()
        name = request.connector
        if request.legacy:
            _require(snapshot, name)
            self._log.put_restart_request(request)
            return None
        if not snapshot.contains(name):
            raise NotFoundError(f"Unknown connector: {name}")
        statuses = self._status.connector_snapshot(name)
        if statuses.connector is None:
            raise NotFoundError(f"Status for connector {name} not found")

        def chosen(status: InstanceStatus) -> bool:
            return not request.only_failed or status.state is State.FAILED

        def restarting(status: InstanceStatus) -> InstanceStatus:
            return InstanceStatus(State.RESTARTING, status.worker_id)

        count = snapshot.task_count(name)
        connector = restarting(statuses.connector) if chosen(statuses.connector) else statuses.connector
        tasks = [
            TaskStateInfo(n, restarting(status) if request.include_tasks and chosen(status) else status)
            for n, status in sorted(statuses.tasks.items())
            if n < count
        ]
        self._log.put_restart_request(request)
        return ConnectorStateInfo(name, connector, tasks, self._type_of(snapshot, name))

    def restart_task(self, task: ConnectorTaskId) -> None:
        snapshot = self._snapshot()
        _require(snapshot, task.connector)
        if snapshot.task_config(task) is None:
            raise NotFoundError(f"Task {task} not found")
        self._log.put_task_restart_request(task)

    def pause_connector(self, name: str) -> None:
        _require(self._snapshot(), name)
        self._log.put_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        _require(self._snapshot(), name)
        self._log.put_target_state(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        snapshot = self._snapshot()
        _require(snapshot, name)
        # Target first, so that the connector's owner does not regenerate the tasks in between; then zero
        # task configs (KIP-875), at the connector's current epoch so the owner's later writes still count.
        self._log.put_target_state(name, TargetState.STOPPED)
        self._log.put_task_configs(name, [], snapshot.task_config_epochs.get(name, 0))

    # -- topics and offsets --------------------------------------------------------------------

    def connector_active_topics(self, name: str) -> list[str]:
        if not self._config.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled.")
        return sorted(self._status.active_topics(name))

    def reset_connector_active_topics(self, name: str) -> None:
        if not self._config.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled.")
        if not self._config.topic_tracking_allow_reset:
            raise ForbiddenError("Topic tracking reset is disabled.")
        self._status.reset_active_topics(name)

    def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        snapshot = self._snapshot()
        _require(snapshot, name)
        return self._offsets.offsets(name, dict(snapshot.connector_config(name) or {}))

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        snapshot = self._require_stopped(name)
        return self._offsets.alter(name, dict(snapshot.connector_config(name) or {}), offsets)

    def reset_connector_offsets(self, name: str) -> str:
        snapshot = self._require_stopped(name)
        return self._offsets.reset(name, dict(snapshot.connector_config(name) or {}))

    # -- plug-ins and validation ---------------------------------------------------------------

    def connector_plugins(self, connectors_only: bool) -> list[PluginInfo]:
        types = (PluginType.SOURCE, PluginType.SINK) if connectors_only else ()
        return [PluginInfo(d.class_name, d.type, d.version) for d in self._registry.plugins(*types)]

    def connector_plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        return connector_plugin_config(plugin, self._registry)

    def validate_connector_config(self, config: Mapping[str, str]) -> ConfigInfos:
        return validate_connector_config(
            config,
            self._registry,
            exactly_once_source_enabled=self._exactly_once,
            worker_group_id=self._group_id,
        )

    # -- internals -----------------------------------------------------------------------------

    def _snapshot(self) -> ClusterConfigState:
        """The config log as of now: what any worker wrote before this call is included."""
        try:
            self._log.read_to_end(READ_BARRIER_S)
        except RetriableError as exc:
            log.warning("Answering from the config log as read so far: %s", exc)
        return self._log.snapshot()

    def _info(self, snapshot: ClusterConfigState, name: str) -> ConnectorInfo:
        _require(snapshot, name)
        config = dict(snapshot.connector_config(name) or {})
        return ConnectorInfo(name, config, snapshot.tasks(name), self._type_of(snapshot, name))

    def _type_of(self, snapshot: ClusterConfigState, name: str) -> ConnectorType:
        config = snapshot.connector_config(name) or {}
        return self._registry.connector_type(config.get(CONNECTOR_CLASS_CONFIG, ""))

    def _raise_if_invalid(self, config: Mapping[str, str]) -> None:
        message = invalid_config_message(self.validate_connector_config(config))
        if message is not None:
            raise ConfigError(message)

    def _require_stopped(self, name: str) -> ClusterConfigState:
        snapshot = self._snapshot()
        _require(snapshot, name)
        if snapshot.target_state(name) is not TargetState.STOPPED or snapshot.task_count(name) != 0:
            raise BadRequestError(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
                f"the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
            )
        return snapshot

    def _admin_for(self, connector_config: Mapping[str, str]) -> KafkaAdmin:
        return self._clients.admin("kconnect-offsets-admin", connector_config)


def _require(snapshot: ClusterConfigState, name: str) -> None:
    if not snapshot.contains(name):
        raise NotFoundError(f"Connector {name} not found")
