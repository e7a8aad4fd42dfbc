"""`DistributedHerder`: the Herder of a worker in a cluster; any worker answers any request for the cluster.

Writes (create, update, delete, pause, resume, stop, restarts) are records in the config log, which
any worker may append; each call returns once Kafka acknowledged the record and this worker read it
back, so the next read on this worker sees it. The workers that own the affected connector instance
and tasks act on the record (`coordinator.py`), so no request is ever forwarded and none answers 409.
Concurrent writers are ordered by the log: the last one wins, as with Kafka Connect's leader.

Reads come from this worker's copies of the config log (read to its end first, so a write made
through another worker is seen) and of the status topic (statuses are eventually consistent, as in
Kafka Connect: a status is visible once its owner's write has been read back; what an earlier
incarnation of a re-created connector left is not shown: `current_statuses.py`).

A cluster-scope logger level (KIP-976) is a config-log record too; every worker applies it when it
reads it (`cluster_loggers.py`), this one before the request answers.

What both modes answer the same way (name checks, PATCH, topic tracking, offsets, plug-ins, validation,
server info) is `BaseHerder`'s; this module holds how the cluster's state is read and written.

Threads: REST handler threads call the public methods, concurrently; they share no mutable state
beyond the logs and stores, which are thread-safe.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from connect.api.errors import AlreadyExistsError, NotFoundError, RetriableError
from connect.runtime.config.providers.worker_secrets import WorkerSecrets
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.info import (
    ConfigVersion,
    ConnectorInfo,
    ConnectorStateInfo,
    ConnectorType,
    RestartRequest,
    TaskInfo,
    TaskStateInfo,
    WorkerHealth,
)
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import ConnectorStatusSnapshot
from connect.runtime.herder import ConnectorOverview
from connect.runtime.kafka import KafkaClients
from connect.runtime.logs.levels import level_name, parse_level
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import ClusterConfigState, ConfigLog, KafkaOffsetStore, KafkaStatusStore
from workers.common.health import HEALTHY, STARTING
from workers.distributed.current_statuses import CurrentStatuses
from workers.herding.base_herder import BaseHerder, ConnectorRecord, ValidationOptions

log = logging.getLogger(__name__)

READ_BARRIER_S = 2.0
# A container engine's health check gives `kconnect health` a few seconds (docker/Dockerfile: 4 s): a worker
# that cannot read its config topic to the end within this has lost Kafka.
HEALTH_BARRIER_S = 3.0
# How long after Kafka refused one of this worker's clients (authentication, TLS) it still says so.
KAFKA_REFUSAL_RECENT_S = 30.0
WRITE_TIMEOUT_S = 30.0


class DistributedHerder(BaseHerder):
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
        secrets: WorkerSecrets | None = None,
    ) -> None:
        statuses = CurrentStatuses(status, config_log.snapshot)
        super().__init__(
            worker_id=worker_id,
            config=config,
            registry=registry,
            status=statuses,
            offset_store=offset_store,
            clients=clients,
            validation=ValidationOptions(exactly_once_source_enabled=exactly_once_enabled, worker_group_id=group_id),
            secrets=secrets,
        )
        self._log = config_log
        self._statuses = statuses
        self._ready = ready

    # -- reads ---------------------------------------------------------------------------------

    def health(self) -> WorkerHealth:
        """Healthy once started while Kafka answers: Kafka's `DistributedHerder` answers its health check on
        the tick thread, which stalls when the group coordinator is gone; here the same loss shows as a
        config topic that cannot be read to its end, or clients that Kafka refuses."""
        if not self._ready():
            return STARTING
        try:
            self._log.read_to_end(HEALTH_BARRIER_S)
        except RetriableError as exc:
            return WorkerHealth("unhealthy", f"Worker cannot read its config topic from Kafka: {exc}")
        refused = self._clients.problems.recent(KAFKA_REFUSAL_RECENT_S) if self._clients is not None else None
        if refused is not None:
            return WorkerHealth("unhealthy", f"Kafka refuses this worker's clients: {refused}")
        return HEALTHY

    def connectors(self) -> list[str]:
        return self._snapshot().connectors()

    def connector_info(self, name: str) -> ConnectorInfo:
        return self._info(self._snapshot(), name)

    def task_configs(self, name: str) -> list[TaskInfo]:
        snapshot = self._snapshot()
        _require(snapshot, name)
        return [TaskInfo(task, dict(snapshot.task_config(task) or {})) for task in snapshot.tasks(name)]

    def connector_status(self, name: str) -> ConnectorStateInfo:
        snapshot = self._snapshot()
        return self._status_in(snapshot, name, self._statuses.connector_snapshot(name, snapshot))

    def connector_overviews(self, status: bool, info: bool) -> dict[str, ConnectorOverview]:
        # One read barrier for all of them (each costs a round trip to the broker), and one read of the
        # status store rather than one per connector.
        snapshot = self._snapshot()
        statuses = self._statuses.connector_snapshots(snapshot) if status else {}
        overviews: dict[str, ConnectorOverview] = {}
        for name in snapshot.connectors():
            try:
                overviews[name] = (
                    self._status_in(snapshot, name, statuses[name]) if status else None,
                    self._info(snapshot, name) if info else None,
                )
            except NotFoundError:
                continue  # no status yet: Kafka leaves it out of the list too
        return overviews

    def _status_in(
        self, snapshot: ClusterConfigState, name: str, statuses: ConnectorStatusSnapshot
    ) -> ConnectorStateInfo:
        if not snapshot.contains(name) or statuses.connector is None:
            raise NotFoundError(f"No status found for connector {name}")
        count = snapshot.task_count(name)
        tasks = [TaskStateInfo(n, status) for n, status in sorted(statuses.tasks.items()) if n < count]
        return ConnectorStateInfo(name, statuses.connector, tasks, self._type_of(snapshot, name))

    def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        snapshot = self._snapshot()
        status = self._statuses.task_status(task, snapshot)
        if status is None or snapshot.task_config(task) is None:
            raise NotFoundError(f"No status found for task {task}")
        return TaskStateInfo(task.task, status)

    # -- create, update, delete ----------------------------------------------------------------

    def _store_connector_config(
        self, name: str, config: dict[str, str], allow_replace: bool, initial_state: TargetState | None
    ) -> tuple[bool, ConnectorInfo]:
        exists = self._snapshot().contains(name)
        if exists and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        # No target state record unless one was asked for: absent means STARTED, and a replaced
        # connector keeps the state it has.
        self._log.put_connector_config(name, config, initial_state)
        log.info("%s connector %s", "Updated" if exists else "Created", name)
        return not exists, self._info(self._log.snapshot(), name)

    def connector_history(self, name: str) -> list[ConfigVersion]:
        versions = self._log.connector_history(name, timeout=WRITE_TIMEOUT_S)
        if not versions:
            raise NotFoundError(f"Connector {name} not found")
        return versions

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
        plan = self._restart_plan(
            request,
            exists=snapshot.contains(name),
            connector_type=self._type_of(snapshot, name),
            task_count=snapshot.task_count(name),
        )
        self._log.put_restart_request(request)
        return plan.answer

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

    # -- logger levels -------------------------------------------------------------------------

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """KIP-976: a `logger-cluster-<namespace>` record, applied by every worker that reads it (here too)."""
        # log4j's name of the level, which Kafka Connect's Java workers read as well.
        self._log.put_logger_level(namespace, level_name(parse_level(level)), timeout=WRITE_TIMEOUT_S)
        log.info("Set the level of logger %s to %s on every worker of the cluster", namespace, level)

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
        return self._connector_type(snapshot.connector_config(name) or {})

    def _current(self, name: str) -> ConnectorRecord:
        snapshot = self._snapshot()
        _require(snapshot, name)
        config = dict(snapshot.connector_config(name) or {})
        return ConnectorRecord(config, snapshot.target_state(name), snapshot.task_count(name))


def _require(snapshot: ClusterConfigState, name: str) -> None:
    if not snapshot.contains(name):
        raise NotFoundError(f"Connector {name} not found")
