"""`Worker`: runs the connector instances and tasks a herder assigns to this process (both modes).

The herder decides what runs here and calls these methods from its own thread (or REST threads);
the Worker owns the instances: each connector on its own thread (`WorkerConnector`), each task on its
own thread (`WorkerSourceTask`/`WorkerSinkTask`) with its own clients, converters and transformation
chain built from the worker config and the connector config (connector settings win). Failures of
instances become statuses (FAILED with the trace) through the `StatusListener`; the Worker raises
only for requests that cannot be served at all (an unknown connector class, an unknown instance).

What a task needs is assembled by the task builders (`task_builders`): one for sink tasks, one for
source tasks, and one for source tasks run exactly once, which a worker with
`exactly.once.source.support=enabled` (distributed mode: a `group.id` and the Kafka offset store) uses
(`WorkerEosSourceTask`, rules in `transactions`). Source tasks of a connector whose config has
`topic.creation.*` keys create their topics (KIP-158) unless the worker's `topic.creation.enable` is false.

Connector configs arrive as stored, with their config provider placeholders (`${file:...}`); they are
resolved only when an instance gets them, and task configs go back with the placeholders (`WorkerSecrets`).

The Worker starts and stops the offset store it is given. Topic tracking (KIP-558): every topic a
task produced to or consumed from is recorded, per connector, here and through the listener.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import cast

from connect.api.connector import Connector, SinkConnector, SourceConnector
from connect.api.errors import ConnectError, NotFoundError
from connect.api.task import SinkTask
from connect.runtime.config.connector.keys import CONNECTOR_CLASS_CONFIG
from connect.runtime.config.providers import ConfigProviders, ConfigTransformer, SecretRedactor
from connect.runtime.config.providers.redacting_status import RedactingStatusListener
from connect.runtime.config.providers.worker_secrets import WorkerSecrets
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.info import ConnectorType
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.kafka import KafkaClients
from connect.runtime.kafka.client_config import sink_group_id
from connect.runtime.metrics.client_stats import CLIENT_STATISTICS
from connect.runtime.metrics.groups import MetricGroup, merged
from connect.runtime.metrics.worker_groups import connector_group, connector_task_counts, worker_group
from connect.runtime.metrics.worker_metrics import StartupCounts, StateTracking, WorkerStates
from connect.runtime.offsets import OffsetStorageReader, OffsetStore
from connect.runtime.plugins import PluginRegistry
from connect.runtime.task_process import ProcessWorkerTask, TaskHosts, TaskProcessStart
from connect.runtime.tasks.builders import TASK_CLASS_CONFIG, TaskBuilders, TaskSpec, WorkerResources
from connect.runtime.tasks.contexts import WorkerConnectorContext
from connect.runtime.tasks.transactions import TransactionalOffsetStore, worker_exactly_once_enabled
from connect.runtime.tasks.worker_connector import ConnectorState, WorkerConnector
from connect.runtime.tasks.worker_task import TaskRunner, WorkerTask

log = logging.getLogger(__name__)


class TooManyTasksError(ConnectError):
    """A connector generated more task configs than `tasks.max` (and `tasks.max.enforce` is true)."""


class Worker:
    def __init__(
        self,
        *,
        worker_id: str,
        config: WorkerConfig,
        plugins: PluginRegistry,
        offset_store: OffsetStore,
        status: StatusListener,
        clients: KafkaClients | None = None,
        task_process_silence_s: float | None = None,
        config_transformer: ConfigTransformer | None = None,
    ) -> None:
        """`task_process_silence_s` (`task.isolation=process`): how long a task process runs its task on
        while this worker does not answer (frozen, swapped out). A distributed worker sets it to its stall
        threshold: a frozen worker's task processes stop before other workers may take their tasks over (as
        tasks on its threads would be frozen with it), and the worker, once it runs again, drops all its
        work and rejoins its group anyway.

        `config_transformer`: resolves config provider placeholders in connector configs (default: one
        with the providers of the worker's `config.providers`); the Worker closes it when it stops."""
        self.worker_id = worker_id
        self.config = config
        self.plugins = plugins
        self.offset_store = offset_store
        transformer = config_transformer or ConfigTransformer(ConfigProviders.from_props(config.originals))
        self.secrets = WorkerSecrets(transformer, SecretRedactor())
        self.secrets.add_passwords(None, config.originals)
        self.states = WorkerStates()
        self.status: StatusListener = StateTracking(RedactingStatusListener(status, self.secrets.redactor), self.states)
        self.connector_startups = StartupCounts()
        self.task_startups = StartupCounts()
        self.clients = clients or KafkaClients.from_worker_config(config)
        self._lock = threading.RLock()
        self._connectors: dict[str, WorkerConnector] = {}
        self._tasks: dict[ConnectorTaskId, TaskRunner] = {}
        self._topics: dict[str, set[str]] = {}
        self._graceful_s = config.task_shutdown_graceful_timeout_ms / 1000
        self._task_hosts = TaskHosts(
            config.task_processes_max, offset_store, task_process_silence_s, self.clients.problems
        )
        self.exactly_once_source = worker_exactly_once_enabled(config, offset_store)
        resources = WorkerResources(config, plugins, self.clients, offset_store, self.status, self._topic_used)
        self._builders = TaskBuilders(resources, self.exactly_once_source)

    # -- worker lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        log.info("Worker %s starting", self.worker_id)
        self.offset_store.start()

    def stop(self) -> None:
        """Stop every task (each gets `task.shutdown.graceful.timeout.ms`) and connector, then the store."""
        log.info("Worker %s stopping", self.worker_id)
        self.stop_tasks(self.task_ids())
        for name in sorted(self.connector_names()):
            self.stop_connector(name)
        self.offset_store.stop()
        self.secrets.close()
        log.info("Worker %s stopped", self.worker_id)

    # -- connectors -----------------------------------------------------------------------------

    def connector_type(self, config: Mapping[str, str]) -> ConnectorType:
        """SOURCE/SINK from `connector.class` (UNKNOWN if missing); ConfigError if the class is unknown."""
        name = config.get(CONNECTOR_CLASS_CONFIG)
        if not name:
            return ConnectorType.UNKNOWN
        return self.plugins.connector_type(name)

    def start_connector(
        self,
        name: str,
        config: Mapping[str, str],
        target_state: TargetState,
        on_reconfigure: Callable[[str], None],
    ) -> None:
        """Instantiate, initialize and (unless PAUSED/STOPPED) start a connector; returns when that is done.

        ConfigError if `connector.class` names no connector; every other failure is status FAILED.
        """
        with self._lock:
            if name in self._connectors:
                raise ConnectError(f"Connector {name} is already running on this worker")
        connector_class = self.plugins.connector_class(config.get(CONNECTOR_CLASS_CONFIG, ""))
        self.connector_startups.attempts += 1
        try:
            config = self.secrets.connector_config(name, config)
        except Exception:
            log.exception("Connector %s: could not resolve the config provider placeholders of its config", name)
            self.connector_startups.failures += 1
            self.status.on_connector_failure(name, traceback.format_exc())
            return
        try:
            connector = connector_class()
        except Exception:
            log.exception("Connector %s: could not instantiate %s", name, connector_class)
            self.connector_startups.failures += 1
            self.status.on_connector_failure(name, traceback.format_exc())
            return
        self._hide_passwords(name, connector, config)
        holder: list[WorkerConnector] = []
        reader = OffsetStorageReader(name, self.offset_store) if isinstance(connector, SourceConnector) else None
        context = WorkerConnectorContext(name, on_reconfigure, lambda error: holder[0].fail(error), reader)
        worker_connector = WorkerConnector(name, connector, config, context, self.status)
        holder.append(worker_connector)
        with self._lock:
            self._connectors[name] = worker_connector
        self.states.connector_started(name)
        log.info("Connector %s: starting %s in target state %s", name, connector_class.__name__, target_state.value)
        worker_connector.start(target_state)
        if worker_connector.state is ConnectorState.FAILED:
            self.connector_startups.failures += 1
        else:
            self.connector_startups.successes += 1

    def _hide_passwords(self, name: str, connector: Connector, config: Mapping[str, str]) -> None:
        """Values of the connector's PASSWORD keys join the secrets hidden in traces and logs."""
        try:
            definition = connector.config()
        except Exception:  # plug-in code; WorkerConnector reports a broken config() when it starts
            log.debug("Connector %s: config() failed; only client secrets are hidden", name, exc_info=True)
            definition = None
        self.secrets.add_passwords(definition, config)

    def connector_task_configs(self, name: str, max_tasks: int) -> list[dict[str, str]]:
        """The connector's task configs plus `task.class` (and sink `topics`/`topics.regex`).

        TooManyTasksError (and the connector FAILED) if it made more than `max_tasks` while
        `tasks.max.enforce` is true; ConnectError if the connector is not running here.
        """
        worker_connector = self._connector(name)
        configs = self.secrets.task_configs_to_store(name, worker_connector.task_configs(max_tasks))
        connector_config = worker_connector.config
        if len(configs) > max_tasks:
            enforce = connector_config.get("tasks.max.enforce", "true").strip().lower() != "false"
            message = (
                f"The connector {name} has generated {len(configs)} tasks, which is greater than {max_tasks}, "
                "the maximum number of tasks it is configured to create. This behaviour should be considered a bug "
                "and is disallowed. If necessary, it can be permitted by reconfiguring the connector with "
                "'tasks.max.enforce' set to false; however, this option will be removed in a future release of "
                "Kafka Connect."
            )
            if enforce:
                error = TooManyTasksError(message)
                worker_connector.fail(error)
                raise error
            log.warning(message)
        task_class = worker_connector.connector.task_class()
        task_class_name = f"{task_class.__module__}.{task_class.__qualname__}"
        for task_config in configs:
            task_config[TASK_CLASS_CONFIG] = task_class_name
            if isinstance(worker_connector.connector, SinkConnector):
                for key in (SinkTask.TOPICS_CONFIG, SinkTask.TOPICS_REGEX_CONFIG):
                    if connector_config.get(key):
                        task_config[key] = connector_config[key]
        return configs

    def set_target_state(self, name: str, state: TargetState) -> None:
        """Pause, resume or stop the connector instance (if here) and its tasks (those here)."""
        with self._lock:
            worker_connector = self._connectors.get(name)
            tasks = [t for task_id, t in self._tasks.items() if task_id.connector == name]
        if worker_connector is not None:
            worker_connector.transition_to(state)
        for task in tasks:
            task.transition_to(state)

    def stop_connector(self, name: str) -> None:
        """Stop the connector instance (not its tasks: see `stop_tasks`); reports UNASSIGNED."""
        with self._lock:
            worker_connector = self._connectors.pop(name, None)
        self.secrets.forget(name)
        self.states.forget_connector(name)
        if worker_connector is None:
            log.debug("Connector %s is not running on this worker; nothing to stop", name)
            return
        worker_connector.shutdown(self._graceful_s)

    def connector_names(self) -> set[str]:
        with self._lock:
            return set(self._connectors)

    def _connector(self, name: str) -> WorkerConnector:
        with self._lock:
            worker_connector = self._connectors.get(name)
        if worker_connector is None:
            raise NotFoundError(f"Connector {name} not found in this worker.")
        return worker_connector

    # -- tasks ----------------------------------------------------------------------------------

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_config: Mapping[str, str],
        task_config: Mapping[str, str],
        target_state: TargetState,
        *,
        ownership_check: Callable[[], None] | None = None,
    ) -> None:
        """Build the task runner and start its thread or process; a failure to do either is status FAILED.

        `ownership_check()` (the distributed herder's, as Kafka's pre- and post-producer checks): run on an
        exactly-once source task's thread before and after it fences its predecessor; raise to refuse the
        start (e.g. task configs changed meanwhile). Other tasks never call it."""
        with self._lock:
            if task_id in self._tasks:
                raise ConnectError(f"Task {task_id} is already running on this worker")
        log.info("Task %s: starting in target state %s", task_id, target_state.value)
        self.task_startups.attempts += 1
        self.states.task_started(task_id)
        try:
            connector_config = self.secrets.resolve(connector_config).config
            task_config = self.secrets.resolve(task_config).config
            spec = self._builders.spec(task_id, connector_config, task_config, target_state, ownership_check)
            worker_task = self._runner(spec)
        except Exception:
            log.exception("Task %s: failed to start", task_id)
            self.task_startups.failures += 1
            self.status.on_task_failure(task_id, traceback.format_exc())
            return
        with self._lock:
            self._tasks[task_id] = worker_task
        try:
            worker_task.start_thread()
        except Exception:
            # No thread or task process could be started (out of threads, processes or memory).
            log.exception("Task %s: failed to start", task_id)
            with self._lock:
                self._tasks.pop(task_id, None)
            self.task_startups.failures += 1
            self.status.on_task_failure(task_id, traceback.format_exc())
            return
        self.task_startups.successes += 1

    def _runner(self, spec: TaskSpec) -> TaskRunner:
        """The task's runner: on a thread of this process, or in a task process (`task.isolation=process`)."""
        if self.config.task_isolation != "process":
            return self._builders.build(spec)
        exactly_once = self._builders.runs_exactly_once(spec)
        start = TaskProcessStart(
            spec.task_id,
            self.config,
            f"{spec.connector_class.__module__}:{spec.connector_class.__qualname__}",
            dict(spec.connector_config),
            dict(spec.task_config),
            spec.target_state,
            cast(TransactionalOffsetStore, self.offset_store).topic if exactly_once else None,
        )
        on_topic_used = functools.partial(self._topic_used, spec.task_id)
        return ProcessWorkerTask(start, self._task_hosts, self.status, on_topic_used, spec.ownership_check)

    def stop_tasks(self, task_ids: Iterable[ConnectorTaskId], await_stop: bool = True) -> None:
        """Signal all, then wait up to `task.shutdown.graceful.timeout.ms` each; late ones are abandoned."""
        with self._lock:
            stopping = [(task_id, self._tasks.pop(task_id)) for task_id in list(task_ids) if task_id in self._tasks]
        for task_id, task in stopping:
            task.stop()
            self.states.forget_task(task_id)
        if not await_stop:
            return
        deadline = time.monotonic() + self._graceful_s
        for task_id, task in stopping:
            if not task.await_stop(max(0.0, deadline - time.monotonic())):
                log.error(
                    "Graceful stop of task %s failed: it did not stop within task.shutdown.graceful.timeout.ms", task_id
                )
                task.cancel()

    def task_ids(self) -> set[ConnectorTaskId]:
        with self._lock:
            return set(self._tasks)

    def is_running(self, name_or_task: str | ConnectorTaskId) -> bool:
        """A connector instance here in state STARTED, or a task here whose thread runs and has not failed."""
        with self._lock:
            if isinstance(name_or_task, ConnectorTaskId):
                task = self._tasks.get(name_or_task)
                return task is not None and task.is_running
            worker_connector = self._connectors.get(name_or_task)
            return worker_connector is not None and worker_connector.is_running

    def task(self, task_id: ConnectorTaskId) -> TaskRunner | None:
        """The runner of a task here (for metrics and tests)."""
        with self._lock:
            return self._tasks.get(task_id)

    # -- metrics --------------------------------------------------------------------------------

    def metric_groups(self) -> list[MetricGroup]:
        """This worker's metrics (`connect.runtime.metrics`): its own, its connectors', its tasks' wherever
        they run, and its Kafka clients'."""
        with self._lock:
            connectors = dict(self._connectors)
            runners = dict(self._tasks)
        groups = [worker_group(connectors, runners, self.connector_startups, self.task_startups)]
        groups += connector_task_counts(runners, self.states)
        groups += [connector_group(name, c, self.states) for name, c in sorted(connectors.items())]
        groups += [self.states.task_group(task_id) for task_id in sorted(runners)]
        for task_id, runner in runners.items():
            if isinstance(runner, WorkerTask):
                groups += _read_safely(runner.metric_groups, f"task {task_id}")
        groups += _read_safely(self._task_hosts.metric_groups, "task processes")
        groups += CLIENT_STATISTICS.groups()
        return merged(groups)

    # -- topic tracking -------------------------------------------------------------------------

    def active_topics(self, name: str) -> set[str]:
        with self._lock:
            return set(self._topics.get(name, ()))

    def reset_active_topics(self, name: str) -> None:
        with self._lock:
            self._topics.pop(name, None)

    def _topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        if not self.config.topic_tracking_enable:
            return
        with self._lock:
            self._topics.setdefault(task.connector, set()).add(topic)
        self.status.on_topic_used(task, topic)

    def sink_group_id(self, name: str, connector_config: Mapping[str, str]) -> str:
        """The consumer group whose offsets are a sink connector's offsets."""
        return sink_group_id(name, connector_config)


def _read_safely(read: Callable[[], list[MetricGroup]], what: str) -> list[MetricGroup]:
    """One part's metrics; none if reading them fails (a scrape serves the rest)."""
    try:
        return read()
    except Exception:
        log.warning("Metrics of %s could not be read", what, exc_info=True)
        return []
