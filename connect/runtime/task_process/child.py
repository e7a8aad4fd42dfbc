"""The task process: `run_forked(connection)` runs one task for its worker.

The worker's fork server forks it; `connection` is this end of a socket pair whose other end the worker
holds (`parent.ProcessWorkerTask`). The first message is a `TaskProcessStart`; the process then builds
the task exactly as a worker does (`TaskBuilders`, its own Kafka clients), with a status listener and
an offset store that relay to the worker (`relays`), and runs it on its own thread, as a worker would.
Every log record goes to the worker.

Control comes from the worker as notes: `target` (pause, resume, stop state) and `stop`. SIGTERM is a
stop too; SIGINT is ignored (a Ctrl-C in a terminal reaches the whole process group: the worker decides).
If the worker goes away (its end of the channel closes, e.g. it was killed) the task is stopped within
`task.shutdown.graceful.timeout.ms` and the process exits, so no task outlives its worker: in a cluster
another worker will run it. The process exits with 0 after saying `done`; any other end is a crash,
which the worker reports as the task's failure.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection

from connect.api.connector import Connector
from connect.runtime.kafka_clients import KafkaClients
from connect.runtime.plugins import PluginRegistry
from connect.runtime.states import TargetState
from connect.runtime.task_builders import TaskBuilders, WorkerResources
from connect.runtime.task_process.channel import Channel, ChannelClosedError
from connect.runtime.task_process.relays import RelayedLogHandler, RelayedOffsetStore, RelayedStatus
from connect.runtime.task_process.start import TaskProcessStart
from connect.runtime.worker_task import ConnectorContextFilter, WorkerTask

log = logging.getLogger(__name__)

_WAIT_SLICE_S = 0.2


class _Control:
    """What the worker asked for, and the runner once it exists (control notes may come before it does)."""

    def __init__(self, target: TargetState) -> None:
        self.lock = threading.Lock()
        self.target = target
        self.stop_requested = threading.Event()
        self.runner: WorkerTask | None = None
        self.last_alive = time.monotonic()

    def alive(self) -> None:
        self.last_alive = time.monotonic()

    def set_target(self, value: str) -> None:
        with self.lock:
            self.target = TargetState(value)
            runner = self.runner
        if runner is not None:
            runner.transition_to(self.target)

    def stop(self) -> None:
        self.stop_requested.set()
        with self.lock:
            runner = self.runner
        if runner is not None:
            runner.stop()

    def attach(self, runner: WorkerTask) -> TargetState:
        with self.lock:
            self.runner = runner
            return self.target


def run(connection: Connection) -> int:
    _kind, start = connection.recv()
    assert isinstance(start, TaskProcessStart)
    control = _Control(start.target_state)
    channel = Channel(
        connection,
        {"target": control.set_target, "stop": control.stop, "alive": control.alive, "log_levels": _set_levels},
        name=f"task-{start.task_id}",
    )
    _relay_logs(channel, start.log_levels)
    channel.start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: control.stop())
    status = RelayedStatus(channel)
    try:
        runner = _build(start, channel, status)
    except Exception:
        log.exception("Task %s: failed to start", start.task_id)
        status.on_task_failure(start.task_id, traceback.format_exc())
        return _done(channel)
    target = control.attach(runner)
    if control.stop_requested.is_set():
        runner.close(False)
        return _done(channel)
    if target is not start.target_state:
        runner.transition_to(target)
    runner.start_thread()
    graceful_s = start.worker_config.task_shutdown_graceful_timeout_ms / 1000
    silent_for = _await_end(runner, channel, control, status, start.worker_silence_s, graceful_s)
    if silent_for is not None:
        with contextlib.suppress(ChannelClosedError):
            channel.note("silenced", silent_for)
    return _done(channel)


def _build(start: TaskProcessStart, channel: Channel, status: RelayedStatus) -> WorkerTask:
    config = start.worker_config
    offsets = RelayedOffsetStore(channel)
    resources = WorkerResources(
        config,
        _plugins(start.connector_class),
        KafkaClients.from_worker_config(config),
        offsets,
        status,
        status.on_topic_used,
    )
    # The worker keeps exactly-once source tasks on its own threads (their fencing is the worker's).
    builders = TaskBuilders(resources, exactly_once_source=False)
    spec = builders.spec(start.task_id, start.connector_config, start.task_config, start.target_state)
    return builders.build(spec)


def _plugins(connector_class: str) -> PluginRegistry:
    """The installed plug-ins, plus the connector's own class by name (a worker may have been given a
    class that no entry point names, e.g. one defined by an application that embeds the worker)."""
    registry = PluginRegistry.discover()
    module_name, _, qualified = connector_class.partition(":")
    loaded: object = importlib.import_module(module_name)
    for part in qualified.split("."):
        loaded = getattr(loaded, part)
    if isinstance(loaded, type) and issubclass(loaded, Connector):
        registry = PluginRegistry([*registry.plugins(), *PluginRegistry.of(loaded).plugins()])
    return registry


def _await_end(
    runner: WorkerTask,
    channel: Channel,
    control: _Control,
    status: RelayedStatus,
    silence_s: float | None,
    graceful_s: float,
) -> float | None:
    """Wait for the task to end; stop it if the worker is gone or silent for longer than `silence_s`.
    Returns how long the worker had been silent if that is why the task stopped: then its statuses are
    muted, since the worker, once it runs again, drops all its work and rejoins (a distributed worker's
    stall handling) and others may own the task by then."""
    deadline: float | None = None
    silent_for: float | None = None
    while not runner.await_stop(_WAIT_SLICE_S):
        if deadline is not None:
            if time.monotonic() >= deadline:
                log.error("Task %s did not stop within task.shutdown.graceful.timeout.ms", runner.id)
                break
        elif channel.closed.is_set():
            log.warning("Task %s: the worker is gone; stopping the task", runner.id)
            runner.stop()
            deadline = time.monotonic() + graceful_s
        elif silence_s is not None and time.monotonic() - control.last_alive > silence_s:
            silent_for = time.monotonic() - control.last_alive
            log.error("Task %s: the worker has not answered for %.1f s; stopping the task", runner.id, silent_for)
            status.mute()
            runner.stop()
            deadline = time.monotonic() + graceful_s
    return silent_for


def _done(channel: Channel) -> int:
    with contextlib.suppress(ChannelClosedError):
        channel.note("done")  # unless the worker is gone: then nobody waits for the word
    logging.shutdown()
    channel.close()
    return 0


def _relay_logs(channel: Channel, levels: dict[str, int]) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = RelayedLogHandler(channel)
    handler.addFilter(ConnectorContextFilter())
    root.addHandler(handler)
    _set_levels(levels)


def _set_levels(levels: dict[str, int]) -> None:
    """Log at the worker's levels: those it names, and the default for every other logger set before."""
    for name, logger in logging.Logger.manager.loggerDict.items():
        if isinstance(logger, logging.Logger) and name not in levels:
            logger.setLevel(logging.NOTSET)
    for name, level in levels.items():
        logging.getLogger(name or None).setLevel(level)


def run_forked(connection: Connection) -> None:
    """The task process's entry point."""
    code = run(connection)
    sys.stdout.flush()
    sys.stderr.flush()
    # Threads of the Kafka clients and the plug-in may linger; the task has stopped and said so.
    os._exit(code)
