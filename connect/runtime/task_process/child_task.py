"""`HostedTask`: one task in a task process, from its `TaskProcessStart` to its `done`.

Each runs on a supervising thread of its own (`run`): it builds the task exactly as a worker does
(`TaskBuilders`, its own Kafka clients) with a status listener and an offset store that relay to the
worker (`relays`), starts the task's thread, and waits for it to end, stopping it if the worker is gone
or silent for too long. Control notes from the worker (target state, stop) may come before the task is
built; they are kept and applied once it is.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import threading
import time
import traceback
from collections.abc import Callable

from connect.api.connector import Connector
from connect.runtime.domain.states import TargetState
from connect.runtime.kafka import KafkaClients
from connect.runtime.logs.context import CURRENT_CONTEXT
from connect.runtime.metrics.groups import MetricGroup
from connect.runtime.plugins import PluginRegistry
from connect.runtime.task_process.channel import Channel, ChannelClosedError
from connect.runtime.task_process.relays import RelayedOffsetStore, RelayedStatus, RelayedTransactionalOffsetStore
from connect.runtime.task_process.start import TaskProcessStart
from connect.runtime.tasks.builders import TaskBuilders, WorkerResources
from connect.runtime.tasks.worker_task import WorkerTask

log = logging.getLogger(__name__)

_WAIT_SLICE_S = 0.2

SilentFor = Callable[[], float | None]
"""How long the worker has said nothing, if longer than the process lets tasks run on; else None."""


class HostedTask:
    def __init__(self, key: int, start: TaskProcessStart, channel: Channel) -> None:
        self.key = key
        self.start = start
        self._channel = channel
        self._lock = threading.Lock()
        self._target = start.target_state
        self._stop_requested = threading.Event()
        self._runner: WorkerTask | None = None
        self.status = RelayedStatus(channel, key)

    # -- control from the worker (the channel's reader thread) ----------------------------------

    def set_target(self, value: str) -> None:
        with self._lock:
            self._target = TargetState(value)
            runner = self._runner
        if runner is not None:
            runner.transition_to(self._target)

    def stop(self) -> None:
        self._stop_requested.set()
        with self._lock:
            runner = self._runner
        if runner is not None:
            runner.stop()

    def metric_groups(self) -> list[MetricGroup]:
        with self._lock:
            runner = self._runner
        return [] if runner is None else runner.metric_groups()

    # -- the supervising thread -----------------------------------------------------------------

    def run(self, silent_for: SilentFor) -> None:
        """Build, run and await the task; then say `done` (and `silenced` first if that is why it ended)."""
        task_id = self.start.task_id
        CURRENT_CONTEXT.set(f"{task_id.connector}|task-{task_id.task}")
        try:
            runner = self._build()
        except Exception:
            log.exception("Task %s: failed to start", task_id)
            self.status.on_task_failure(task_id, traceback.format_exc())
            self._say("done")
            return
        with self._lock:
            self._runner = runner
            target = self._target
        if self._stop_requested.is_set():
            runner.close(False)
            self._say("done")
            return
        if target is not self.start.target_state:
            runner.transition_to(target)
        runner.start_thread()
        graceful_s = self.start.worker_config.task_shutdown_graceful_timeout_ms / 1000
        silenced = self._await_end(runner, silent_for, graceful_s)
        if silenced is not None:
            self._say("silenced", silenced)
        self._say("done")

    def _build(self) -> WorkerTask:
        start = self.start
        config = start.worker_config
        offsets_topic = start.exactly_once_offsets_topic
        offsets = (
            RelayedOffsetStore(self._channel)
            if offsets_topic is None
            else RelayedTransactionalOffsetStore(self._channel, offsets_topic)
        )
        clients = KafkaClients.from_worker_config(config)
        # Kafka refusing the task's clients is the worker's health: it hears of each refusal.
        clients.problems.forward = functools.partial(self._say_to_worker, "client_problem")
        resources = WorkerResources(
            config,
            _plugins(start.connector_class),
            clients,
            offsets,
            self.status,
            self.status.on_topic_used,
        )
        builders = TaskBuilders(resources, exactly_once_source=offsets_topic is not None)
        spec = builders.spec(
            start.task_id, start.connector_config, start.task_config, start.target_state, self._check_ownership
        )
        return builders.build(spec)

    def _check_ownership(self) -> None:
        """The worker's ownership check of an exactly-once source task (raises as it does)."""
        self._channel.call("ownership", self.key)

    def _await_end(self, runner: WorkerTask, silent_for: SilentFor, graceful_s: float) -> float | None:
        """Wait for the task to end; stop it if the worker is silent for too long (a worker that is gone ends
        the whole process at once: `child._Host`). Returns how long the worker had been silent if that is why
        the task stopped: then its statuses are muted, since the worker, once it runs again, drops all its work
        and rejoins (a distributed worker's stall handling) and others may own the task by then."""
        deadline: float | None = None
        silenced: float | None = None
        while not runner.await_stop(_WAIT_SLICE_S):
            if deadline is not None:
                if time.monotonic() >= deadline:
                    log.error("Task %s did not stop within task.shutdown.graceful.timeout.ms", runner.id)
                    break
            elif (silenced := silent_for()) is not None:
                log.error("Task %s: the worker has not answered for %.1f s; stopping the task", runner.id, silenced)
                self.status.mute()
                runner.stop()
                deadline = time.monotonic() + graceful_s
        return silenced

    def _say_to_worker(self, op: str, *args: object) -> None:
        with contextlib.suppress(ChannelClosedError):  # the worker is gone: nobody to tell
            self._channel.note(op, *args)

    def _say(self, op: str, *args: object) -> None:
        with contextlib.suppress(ChannelClosedError):  # the worker is gone: nobody waits for the word
            self._channel.note(op, self.key, *args)


@functools.cache
def installed_plugins() -> PluginRegistry:
    """The installed plug-ins, discovered once per process. The fork server discovers them before it forks
    any task process (`preload`), so a task process starts with every plug-in module imported: discovering
    them anew took about 0.2 s of each task's start."""
    return PluginRegistry.discover()


def _plugins(connector_class: str) -> PluginRegistry:
    """The installed plug-ins, plus the connector's own class by name (a worker may have been given a
    class that no entry point names, e.g. one defined by an application that embeds the worker)."""
    registry = installed_plugins()
    module_name, _, qualified = connector_class.partition(":")
    loaded: object = importlib.import_module(module_name)
    for part in qualified.split("."):
        loaded = getattr(loaded, part)
    if isinstance(loaded, type) and issubclass(loaded, Connector):
        registry = PluginRegistry([*registry.plugins(), *PluginRegistry.of(loaded).plugins()])
    return registry
