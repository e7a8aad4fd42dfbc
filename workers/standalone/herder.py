"""`StandaloneHerder`: the Herder of a single worker process, with Kafka Connect's standalone semantics.

Connector configs, target states and task configs live in memory (`MemoryConfigStore`), as in Kafka: a standalone
worker re-creates its connectors from the files on its command line at every start. Statuses live in the
`MemoryStatusStore` the Worker reports to; source offsets in the worker's `OffsetStore` (a file when
`offset.storage.file.filename` is set), so they survive restarts.

What both modes answer the same way (name checks, PATCH, topic tracking, offsets, plug-ins, validation,
server info) is `BaseHerder`'s; this module holds standalone's state and how its writes take effect.

A cluster-scope logger level (KIP-976) is set on this worker alone, as Kafka's standalone herder does:
here, the worker is the whole cluster.

Threads: REST handler threads call the public methods; each operation holds the herder lock, so they run
one at a time, like the tick thread of Kafka's herders. Work that must not run on the caller's thread —
task reconfiguration asked for by a connector, KIP-745 restarts, retries — goes to the `HerderThread`,
which takes the same lock.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import TypeVar

from connect.api.errors import AlreadyExistsError, ConnectError, NotFoundError
from connect.runtime.config.connector import ConnectorSettings
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.errors import RequestTimeoutError
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
from connect.runtime.herder import ConnectorOverview
from connect.runtime.kafka import KafkaClients
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.offsets import OffsetStore
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.memory_config_store import MemoryConfigStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from workers.common.health import HEALTHY, STARTING, UNHEALTHY
from workers.herding.base_herder import BaseHerder, ConnectorRecord
from workers.standalone.herder_thread import HerderThread

log = logging.getLogger(__name__)

T = TypeVar("T")

REQUEST_TIMEOUT_S = 90.0
HEALTH_TIMEOUT_S = 10.0
# How long /health says unhealthy after a Kafka client was refused (wrong password, untrusted certificate):
# librdkafka retries at least every 10 s (reconnect.backoff.max.ms), so a lasting refusal stays within it.
KAFKA_REFUSAL_RECENT_S = 30.0
_RECONFIGURE_BACKOFF_S = (0.25, 60.0)


class StandaloneHerder(BaseHerder):
    """Implements `connect.runtime.herder.Herder` for one worker process."""

    def __init__(
        self,
        worker: Worker,
        registry: PluginRegistry,
        status_store: MemoryStatusStore,
        offset_store: OffsetStore,
        clients: KafkaClients | None,
        worker_id: str,
        *,
        config: WorkerConfig,
        request_timeout: float = REQUEST_TIMEOUT_S,
        loggers: LoggerLevels | None = None,
    ) -> None:
        """`loggers`: the levels REST's `/admin/loggers` changes (default: this process's logging)."""
        super().__init__(
            worker_id=worker_id,
            config=config,
            registry=registry,
            status=status_store,
            offset_store=offset_store,
            clients=clients,
            secrets=worker.secrets,
        )
        self.worker = worker
        self._statuses = status_store
        self._request_timeout = request_timeout
        self._configs = MemoryConfigStore()
        self._lock = threading.RLock()
        self._thread = HerderThread(self._lock)
        self._ready = False
        self._loggers = loggers if loggers is not None else LoggerLevels()

    # -- process lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker; `/health` says "starting" until `mark_ready`."""
        log.info("Herder starting")
        self.worker.start()
        self._lookup_cluster_id()
        log.info("Herder started")

    def mark_ready(self) -> None:
        """The process finished starting up (the connectors from its command line exist)."""
        self._ready = True

    def stop(self) -> None:
        """Stop every task and connector (tasks commit their final offsets), then the worker."""
        log.info("Herder stopping")
        self._thread.shutdown()
        with self._lock:
            for name in self._configs.connectors():
                try:
                    self._remove_connector_tasks(name)
                    self.worker.stop_connector(name)
                except Exception:
                    log.exception("Error while stopping connector %s", name)
        self.worker.stop()
        log.info("Herder stopped")

    # -- reads ---------------------------------------------------------------------------------

    def health(self) -> WorkerHealth:
        if not self._ready:
            return STARTING
        if not self._lock.acquire(timeout=HEALTH_TIMEOUT_S):
            return UNHEALTHY
        self._lock.release()
        refused = self.worker.clients.problems.recent(KAFKA_REFUSAL_RECENT_S)
        if refused is not None:
            return WorkerHealth("unhealthy", f"Kafka refuses this worker's clients: {refused}")
        return HEALTHY

    def connectors(self) -> list[str]:
        return self._locked(self._configs.connectors)

    def connector_info(self, name: str) -> ConnectorInfo:
        return self._locked(lambda: self._connector_info(name))

    def task_configs(self, name: str) -> list[TaskInfo]:
        def read() -> list[TaskInfo]:
            self._require(name)
            return [TaskInfo(task, self._configs.task_config(task) or {}) for task in self._configs.tasks(name)]

        return self._locked(read)

    def connector_status(self, name: str) -> ConnectorStateInfo:
        # Served from the status store without the herder lock, as Kafka serves it from its status cache.
        snapshot = self._statuses.connector_snapshot(name)
        if snapshot.connector is None:
            raise NotFoundError(f"No status found for connector {name}")
        tasks = [TaskStateInfo(task, status) for task, status in sorted(snapshot.tasks.items())]
        return ConnectorStateInfo(name, snapshot.connector, tasks, self._type_of(name))

    def status_reads_are_instant(self) -> bool:
        # connector_status and task_status read the status store's memory and never take the herder lock.
        return True

    def connector_overviews(self, status: bool, info: bool) -> dict[str, ConnectorOverview]:
        return self.versioned_overviews(status, info)[1]

    def overviews_version(self) -> tuple[int, int, int]:
        # Three counters, read without a lock: each is raised under the lock its writers hold, once their
        # change is made (the plug-in registry's after a plug-in was added).
        return self._registry.generation, self._configs.generation, self._statuses.generation

    def versioned_overviews(
        self, status: bool, info: bool
    ) -> tuple[tuple[int, int, int], dict[str, ConnectorOverview]]:
        # One hold of the herder lock and one read of the status store for all connectors, rather than
        # one of each per connector: a herder busy with a write would make every round trip wait. Each part
        # of the version is read before (or with) what it counts the changes of.
        plugins = self._registry.generation

        def read_configs() -> tuple[int, list[ConnectorInfo]]:
            return self._configs.generation, [self._connector_info(name) for name in self._configs.connectors()]

        configs, infos = self._locked(read_configs)
        statuses_version, statuses = self._statuses.versioned_snapshots() if status else (self._statuses.generation, {})
        overviews: dict[str, ConnectorOverview] = {}
        for connector in infos:
            state = None
            if status:
                snapshot = statuses.get(connector.name)
                if snapshot is None or snapshot.connector is None:
                    continue  # no status yet: Kafka leaves it out of the list too
                tasks = [TaskStateInfo(task, task_status) for task, task_status in snapshot.tasks.items()]
                state = ConnectorStateInfo(connector.name, snapshot.connector, tasks, connector.type)
            overviews[connector.name] = (state, connector if info else None)
        return (plugins, configs, statuses_version), overviews

    def task_status(self, task: ConnectorTaskId) -> TaskStateInfo:
        status = self._statuses.task_status(task)
        if status is None:
            raise NotFoundError(f"No status found for task {task}")
        return TaskStateInfo(task.task, status)

    # -- create, update, delete ----------------------------------------------------------------

    def connector_history(self, name: str) -> list[ConfigVersion]:
        versions = self._locked(lambda: self._configs.history(name))
        if not versions:
            raise NotFoundError(f"Connector {name} not found")
        return versions

    def delete_connector(self, name: str) -> None:
        def delete() -> None:
            self._require(name)
            self._remove_connector_tasks(name)
            self.worker.stop_connector(name)
            self._configs.remove_connector(name)
            self._statuses.on_connector_deletion(name)
            log.info("Deleted connector %s", name)

        self._locked(delete)

    def _store_connector_config(
        self, name: str, config: dict[str, str], allow_replace: bool, initial_state: TargetState | None
    ) -> tuple[bool, ConnectorInfo]:
        return self._locked(lambda: self._put_connector_config(name, config, allow_replace, initial_state))

    def _put_connector_config(
        self, name: str, config: dict[str, str], allow_replace: bool, initial_state: TargetState | None
    ) -> tuple[bool, ConnectorInfo]:
        exists = self._configs.contains(name)
        if exists and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        if exists:
            self.worker.stop_connector(name)
        self._configs.put_connector_config(name, config, initial_state)
        self._start_connector(name)
        self._update_connector_tasks(name)
        log.info("%s connector %s", "Updated" if exists else "Created", name)
        return not exists, self._connector_info(name)

    # -- lifecycle requests --------------------------------------------------------------------

    def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo | None:
        if request.legacy:
            self._locked(lambda: self._restart_connector_instance(request.connector))
            return None
        return self._locked(lambda: self._plan_restart(request))

    def restart_task(self, task: ConnectorTaskId) -> None:
        def restart() -> None:
            self._require(task.connector)
            task_config = self._configs.task_config(task)
            if task_config is None:
                raise NotFoundError(f"Task {task} not found")
            self.worker.stop_tasks([task], await_stop=True)
            if not self._start_task(task, task_config):
                raise ConnectError(f"Failed to start task: {task}")

        self._locked(restart)

    def pause_connector(self, name: str) -> None:
        self._locked(lambda: self._set_target_state(name, TargetState.PAUSED))

    def resume_connector(self, name: str) -> None:
        self._locked(lambda: self._set_target_state(name, TargetState.STARTED))

    def stop_connector(self, name: str) -> None:
        def stop() -> None:
            self._require(name)
            self._remove_connector_tasks(name)
            self._set_target_state(name, TargetState.STOPPED)

        self._locked(stop)

    def request_task_reconfiguration(self, name: str) -> None:
        """A connector asked for new task configs (any thread; handled on the herder thread)."""
        self._thread.submit(lambda: self._reconfigure(name, attempt=0))

    # -- logger levels -------------------------------------------------------------------------

    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        self._loggers.set_level(namespace, level)

    # -- internals (the lock is held) ----------------------------------------------------------

    def _locked(self, operation: Callable[[], T]) -> T:
        if not self._lock.acquire(timeout=self._request_timeout):
            raise RequestTimeoutError("Request timed out")
        try:
            return operation()
        finally:
            self._lock.release()

    def _exclusive(self, operation: Callable[[], T]) -> T:
        return self._locked(operation)

    def _require(self, name: str) -> None:
        if not self._configs.contains(name):
            raise NotFoundError(f"Connector {name} not found")

    def _current(self, name: str) -> ConnectorRecord:
        self._require(name)
        return ConnectorRecord(
            self._configs.connector_config(name), self._configs.target_state(name), self._configs.task_count(name)
        )

    def _type_of(self, name: str) -> ConnectorType:
        # Lock-free on purpose (statuses are read without the herder lock); one dict read is atomic.
        connector_class = self._configs.connector_class(name)
        return ConnectorType.UNKNOWN if connector_class is None else self._registry.connector_type(connector_class)

    def _connector_info(self, name: str) -> ConnectorInfo:
        self._require(name)
        config = self._configs.connector_config(name)
        return ConnectorInfo(name, config, self._configs.tasks(name), self._connector_type(config))

    def _start_connector(self, name: str) -> None:
        config = self._configs.connector_config(name)
        target = self._configs.target_state(name)
        self.worker.start_connector(name, config, target, self.request_task_reconfiguration)

    def _update_connector_tasks(self, name: str) -> None:
        """Kafka's updateConnectorTasks: regenerate task configs and restart the tasks if anything changed."""
        if not self.worker.is_running(name):
            log.info("Skipping update of tasks for connector %s since it is not running", name)
            return
        if self._configs.target_state(name) is not TargetState.STARTED:
            log.info("Skipping update of tasks for connector %s since its target state is %s", name, "not STARTED")
            return
        new_configs = self._recompute_task_configs(name)
        if self._configs.task_configs_changed(name, new_configs):
            self._remove_connector_tasks(name)
            self._configs.put_task_configs(name, new_configs)
            for task in self._configs.tasks(name):
                self._start_task(task, self._configs.task_config(task) or {})

    def _recompute_task_configs(self, name: str) -> list[dict[str, str]]:
        config = self._configs.connector_config(name)
        settings = ConnectorSettings.parse(config, self._registry.connector_type(config.get("connector.class", "")))
        return self.worker.connector_task_configs(name, settings.tasks_max)

    def _reconfigure(self, name: str, attempt: int) -> None:
        if name not in self.worker.connector_names():
            log.error("Task that requested reconfiguration does not exist: %s", name)
            return
        try:
            self._update_connector_tasks(name)
        except Exception:
            low, high = _RECONFIGURE_BACKOFF_S
            delay = min(high, low * (2**attempt))
            log.exception("Failed to reconfigure the tasks of connector %s; retrying in %.2f s", name, delay)
            self._thread.submit(lambda: self._reconfigure(name, attempt + 1), delay=delay)

    def _start_task(self, task: ConnectorTaskId, task_config: Mapping[str, str]) -> bool:
        config = self._configs.connector_config(task.connector)
        target = self._configs.target_state(task.connector)
        try:
            self.worker.start_task(task, config, dict(task_config), target)
        except Exception:
            log.exception("Failed to start task %s", task)
            self._statuses.on_task_failure(task, traceback.format_exc())
            return False
        # A task the worker could not even build is reported FAILED and not kept.
        return self.worker.task(task) is not None

    def _remove_connector_tasks(self, name: str) -> None:
        tasks = self._configs.tasks(name)
        if not tasks:
            return
        self.worker.stop_tasks(tasks, await_stop=True)
        self._configs.remove_task_configs(name)
        for task in tasks:
            self._statuses.on_task_deletion(task)

    def _set_target_state(self, name: str, state: TargetState) -> None:
        self._require(name)
        self._configs.put_target_state(name, state)
        self.worker.set_target_state(name, state)
        if state is TargetState.STARTED:
            self._update_connector_tasks(name)

    def _restart_connector_instance(self, name: str) -> None:
        self._require(name)
        self.worker.stop_connector(name)
        self._start_connector(name)
        if self._configs.target_state(name) is TargetState.STARTED:
            self._update_connector_tasks(name)

    def _plan_restart(self, request: RestartRequest) -> ConnectorStateInfo:
        """KIP-745: mark what will restart as RESTARTING, answer with that, restart on the herder thread."""
        name = request.connector
        plan = self._restart_plan(request, exists=self._configs.contains(name), connector_type=self._type_of(name))
        if plan.restart_connector:
            self._statuses.on_connector_restart(name)
        for task in plan.tasks:
            self._statuses.on_task_restart(task)
        self._thread.submit(lambda: self._execute_restart(name, plan.restart_connector, plan.tasks))
        return plan.answer

    def _execute_restart(self, name: str, restart_connector: bool, tasks: list[ConnectorTaskId]) -> None:
        if not self._configs.contains(name):
            return
        if restart_connector:
            self.worker.stop_connector(name)
            self._statuses.on_connector_restart(name)
        if tasks:
            self.worker.stop_tasks(tasks, await_stop=True)
            for task in tasks:
                self._statuses.on_task_restart(task)
        if restart_connector:
            try:
                self._start_connector(name)
                log.info("Connector '%s' restart successful", name)
            except Exception:
                log.exception("Connector '%s' restart failed", name)
        for task in tasks:
            task_config = self._configs.task_config(task)
            if task_config is not None:
                self._start_task(task, task_config)
