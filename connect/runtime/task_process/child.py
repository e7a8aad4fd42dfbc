"""The task process: `run_forked(connection)` runs tasks of its worker, each on threads of its own.

The worker's fork server forks it; `connection` is this end of a socket pair whose other end the worker
holds (`hosts.TaskHost`). The first message is a `HostStart`; then come notes: `start` with a key and a
`TaskProcessStart` for each task the worker gives this process (`child_task.HostedTask` runs it),
`target` and `stop` for one task, `alive` (the worker lives), `log_levels`, and `exit` once the worker
has no task left here; and one call, `metrics` (a scrape). Every log record goes to the worker.

SIGTERM stops every task; SIGINT is ignored (a Ctrl-C in a terminal reaches the whole process group:
the worker decides). If the worker goes away without telling it to exit (its end of the channel closes:
it was killed) the process ends at once, as the worker's own task threads would have: a graceful stop
would let a task go on (a sink's put and commit, a source's poll) while, in a cluster, another worker
already runs it. The process exits with 0 when told to or when the worker is gone; the worker takes any
other end for a crash and fails the tasks that had not said `done`.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection

from connect.runtime.logs.context import ConnectorContextFilter
from connect.runtime.metrics.client_stats import CLIENT_STATISTICS
from connect.runtime.task_process.channel import Channel
from connect.runtime.task_process.child_task import HostedTask
from connect.runtime.task_process.memory import release_free_memory
from connect.runtime.task_process.relays import RelayedLogHandler
from connect.runtime.task_process.start import HostStart, ProcessMetrics, TaskProcessStart

log = logging.getLogger(__name__)

_CHECK_S = 0.2
_TRIM_INTERVAL_S = 10.0


class _Host:
    def __init__(self, connection: Connection, start: HostStart) -> None:
        self._silence_s = start.worker_silence_s
        self._lock = threading.Lock()
        self._tasks: dict[int, HostedTask] = {}
        self._last_alive = time.monotonic()
        self._exit = threading.Event()
        self.channel = Channel(
            connection,
            {
                "start": self._start_task,
                "target": self._set_target,
                "stop": self._stop_task,
                "alive": self._alive,
                "log_levels": _set_levels,
                "exit": self._exit.set,
                "metrics": self._metrics,
            },
            name=f"task-process-{os.getpid()}",
            on_closed=self._worker_gone,
        )

    def run(self) -> None:
        """Until told to exit (a worker that is gone ends the process at once: `_worker_gone`)."""
        next_trim = time.monotonic() + _TRIM_INTERVAL_S
        while not self._exit.wait(_CHECK_S):
            if time.monotonic() >= next_trim:
                release_free_memory()
                next_trim = time.monotonic() + _TRIM_INTERVAL_S

    def _worker_gone(self) -> None:
        """The worker's end of the channel closed (on the channel's reader thread, as soon as it did)."""
        if self._exit.is_set():
            return  # told to exit first: the normal end
        # No flush, no commit, no status: the worker is gone and another may own these tasks already.
        os._exit(0)

    def stop_all(self) -> None:
        with self._lock:
            tasks = list(self._tasks.values())
        for task in tasks:
            task.stop()

    def _start_task(self, key: int, start: TaskProcessStart) -> None:
        task = HostedTask(key, start, self.channel)
        with self._lock:
            self._tasks[key] = task
        threading.Thread(target=self._supervise, args=(task,), name=f"task-{start.task_id}-supervisor").start()

    def _supervise(self, task: HostedTask) -> None:
        try:
            task.run(self._silent_for)
        finally:
            with self._lock:
                self._tasks.pop(task.key, None)

    def _metrics(self) -> ProcessMetrics:
        """The metrics of each task here (by key) and of this process's Kafka clients."""
        with self._lock:
            tasks = dict(self._tasks)
        return ProcessMetrics({key: task.metric_groups() for key, task in tasks.items()}, CLIENT_STATISTICS.groups())

    def _set_target(self, key: int, value: str) -> None:
        task = self._task(key)
        if task is not None:
            task.set_target(value)

    def _stop_task(self, key: int) -> None:
        task = self._task(key)
        if task is not None:
            task.stop()

    def _task(self, key: int) -> HostedTask | None:
        with self._lock:
            return self._tasks.get(key)

    def _alive(self) -> None:
        self._last_alive = time.monotonic()

    def _silent_for(self) -> float | None:
        if self._silence_s is None:
            return None
        silent = time.monotonic() - self._last_alive
        return silent if silent > self._silence_s else None


def run(connection: Connection) -> int:
    _kind, start = connection.recv()
    assert isinstance(start, HostStart)
    host = _Host(connection, start)
    _relay_logs(host.channel, start.log_levels)
    host.channel.start()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, frame: host.stop_all())
    host.run()
    logging.shutdown()
    host.channel.close()
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
    # What the fork server imported lives as long as this process: out of the collector's way, its pages
    # are not touched (and so not copied from the fork server's) by every full collection.
    gc.freeze()
    code = run(connection)
    sys.stdout.flush()
    sys.stderr.flush()
    # Threads of the Kafka clients, and of a task that never stopped, may linger; nobody waits for them.
    os._exit(code)
