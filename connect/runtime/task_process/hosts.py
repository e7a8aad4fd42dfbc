"""`TaskHosts`: the worker's task processes, and `TaskHost`, the worker's side of one of them.

A worker runs at most `task.processes.max` task processes and spreads its tasks over them: a new task
goes to a new process while there are fewer than that, else to the one with the fewest tasks. So with
at least as many processes as tasks each task has one of its own (a crash fails it alone), and with
fewer, tasks share a process, which saves the memory of a Python interpreter and Kafka clients per task
(a process per core uses the cores as well as a process per task does). A process whose last task has
ended is told to exit.

Processes are forked by the worker's fork server (`fork_server`, which has the runtime and the plug-ins
imported already): a few milliseconds each, where a new interpreter would spend about 0.2 s of CPU
importing them. A host's channel reader thread applies what its process reports, in order: statuses and
the end of each task to its `ProcessWorkerTask`, log records to the worker's loggers (with the task's
context), and it serves offset reads and writes from the worker's offset store, and the ownership check
of exactly-once source tasks (which write their offsets themselves, in their transactions). A process that ends
without being told to crashed (a signal, a fault in C code, the out-of-memory killer): each of its tasks
that had not ended turns FAILED with the exit status as its trace.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import threading
from multiprocessing.process import BaseProcess
from typing import Any, Protocol, cast

from connect.api.errors import ConnectError
from connect.runtime.kafka.problems import ClientProblems
from connect.runtime.metrics.groups import MetricGroup
from connect.runtime.offsets import OffsetStore
from connect.runtime.task_process import child
from connect.runtime.task_process.channel import Channel, ChannelClosedError
from connect.runtime.task_process.fork_server import fork_server
from connect.runtime.task_process.start import HostStart, ProcessMetrics, TaskProcessStart, current_log_levels
from connect.runtime.tasks.transactions import TransactionalOffsetStore, supports_transactions

log = logging.getLogger(__name__)


class HostedTask(Protocol):
    """What a host asks of the worker's side of a task it runs (`parent.ProcessWorkerTask` is one)."""

    @property
    def key(self) -> int:
        """This run of the task, as its process knows it."""
        ...

    def on_status(self, call: str, args: tuple[Any, ...]) -> None: ...
    def on_topic_used(self, topic: str) -> None: ...
    def on_silenced(self, silent_for: float) -> None: ...
    def check_ownership(self) -> None: ...
    def on_ended(self) -> None: ...
    def on_crashed(self, reason: str) -> None: ...


# How soon a logger level set on the worker reaches its task processes.
_LEVELS_INTERVAL_S = 1.0
# How long a scrape waits for a task process's metrics.
_METRICS_TIMEOUT_S = 5.0


class TaskHost:
    def __init__(self, pool: TaskHosts, number: int) -> None:
        self._pool = pool
        self.name = f"task-process-{number}"
        self.tasks: dict[int, HostedTask] = {}
        """The tasks here that have not ended (nor been given up on)."""
        self.exiting = False
        self._process: BaseProcess | None = None
        self._channel: Channel | None = None
        self._closed = threading.Event()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        connection, theirs = multiprocessing.Pipe(duplex=True)
        # Daemonic: should the worker exit without stopping its tasks, multiprocessing ends them.
        process = fork_server().Process(target=child.run_forked, args=(theirs,), name=self.name, daemon=True)
        try:
            process.start()
        except BaseException:
            connection.close()
            raise
        finally:
            theirs.close()
        self._process = process
        offsets = self._pool.offset_store
        self._channel = Channel(
            connection,
            {
                "status": self._for_task(lambda task, call, args: task.on_status(call, args)),
                "topic": self._for_task(lambda task, topic: task.on_topic_used(topic)),
                "done": self._for_task(lambda task: self._task_ended(task)),
                "silenced": self._for_task(lambda task, silent_for: task.on_silenced(silent_for)),
                "log": _log,
                "offsets.get": offsets.get,
                "offsets.set": offsets.set,
                "offsets.flush": offsets.flush,
                "offsets.snapshot": offsets.snapshot,
                "offsets.records": self._offset_records,
                "ownership": self._check_ownership,
                "client_problem": self._pool.client_problems.note,
            },
            name=self.name,
            on_closed=self._channel_closed,
        )
        levels = current_log_levels()
        connection.send(("host", HostStart(levels, self._pool.silence_s)))
        self._channel.start()
        silence = self._pool.silence_s
        interval = _LEVELS_INTERVAL_S if silence is None else min(_LEVELS_INTERVAL_S, silence / 4)
        heartbeat = threading.Thread(
            target=self._say_alive, args=(interval, levels), name=f"{self.name}-heartbeat", daemon=True
        )
        heartbeat.start()

    def run(self, task: HostedTask, start: TaskProcessStart) -> None:
        self.tell("start", task.key, start)

    def tell(self, op: str, *args: Any) -> None:
        if self._channel is None:
            return
        with contextlib.suppress(ChannelClosedError):  # the process is gone; `_channel_closed` says how
            self._channel.note(op, *args)

    def metric_groups(self) -> list[MetricGroup]:
        """The metrics of the tasks here and of the process's Kafka clients (empty if it does not answer)."""
        if self._channel is None:
            return []
        try:
            answer: ProcessMetrics = self._channel.call("metrics", timeout=_METRICS_TIMEOUT_S)
        except ConnectError as exc:  # ended or stuck: its tasks' statuses say so
            log.debug("%s: no metrics: %s", self.name, exc)
            return []
        groups = [group for key, task_groups in answer.tasks.items() if key in self.tasks for group in task_groups]
        return groups + answer.clients

    def kill(self) -> None:
        if self._process is not None and self._process.is_alive():
            log.warning("Killing task process %d", self._process.pid)
            self._process.kill()

    def _for_task(self, handler: Any) -> Any:
        """A handler of notes about one task: the key names it; notes of a task given up on are dropped."""

        def handle(key: int, *args: Any) -> None:
            task = self.tasks.get(key)
            if task is not None:
                handler(task, *args)

        return handle

    def _offset_records(self, values: dict[bytes, bytes | None]) -> list[Any]:
        store = self._pool.offset_store
        if not supports_transactions(store):
            raise ConnectError("This worker does not run source tasks exactly once")
        return cast(TransactionalOffsetStore, store).offset_records(values)

    def _check_ownership(self, key: int) -> None:
        task = self.tasks.get(key)
        if task is None:
            raise ConnectError("The task was stopped")
        task.check_ownership()

    def _task_ended(self, task: HostedTask) -> None:
        self._pool.task_ended(self, task)
        task.on_ended()

    def _channel_closed(self) -> None:
        assert self._process is not None
        self._process.join()
        self._closed.set()
        code = self._process.exitcode
        assert code is not None
        orphans = self._pool.host_ended(self)
        if orphans:
            reason = _exit_reason(code)
            log.error("Task process %d %s", self._process.pid, reason)
            for task in orphans:
                task.on_crashed(f"The task process (pid {self._process.pid}) {reason} before the task stopped.")

    def _say_alive(self, interval: float, levels: dict[str, int]) -> None:
        """Say this worker lives, and pass on logger levels changed since (`/admin/loggers`).

        A thread of its own: if this process is frozen, so is it, and the task process notices."""
        while not self._closed.wait(interval):
            self.tell("alive")
            now = current_log_levels()
            if now != levels:
                levels = now
                self.tell("log_levels", levels)


class TaskHosts:
    def __init__(
        self,
        max_processes: int,
        offset_store: OffsetStore,
        silence_s: float | None,
        client_problems: ClientProblems | None = None,
    ) -> None:
        """`client_problems`: where the processes' Kafka clients' refusals go (the worker's, for its health)."""
        self.max_processes = max_processes
        self.offset_store = offset_store
        self.silence_s = silence_s
        self.client_problems = client_problems or ClientProblems()
        self._lock = threading.Lock()
        self._hosts: list[TaskHost] = []
        self._numbers = iter(range(1, 1 << 62))

    def place(self, task: HostedTask) -> TaskHost:
        """The process `task` is to run in, started if new; the task counts as there from now on."""
        with self._lock:
            if len(self._hosts) < self.max_processes:
                host = TaskHost(self, next(self._numbers))
                host.start()
                self._hosts.append(host)
            else:
                host = min(self._hosts, key=lambda h: len(h.tasks))
            host.tasks[task.key] = task
            return host

    def task_ended(self, host: TaskHost, task: HostedTask) -> None:
        """`task` ended or was given up on; a process with no task left is told to exit."""
        with self._lock:
            host.tasks.pop(task.key, None)
            if host.tasks or host.exiting:
                return
            host.exiting = True
            with contextlib.suppress(ValueError):
                self._hosts.remove(host)
        host.tell("exit")

    def host_ended(self, host: TaskHost) -> list[HostedTask]:
        """The process of `host` has ended: the tasks it still had."""
        with self._lock:
            with contextlib.suppress(ValueError):
                self._hosts.remove(host)
            orphans = list(host.tasks.values())
            host.tasks.clear()
            host.exiting = True
            return orphans

    def metric_groups(self) -> list[MetricGroup]:
        with self._lock:
            hosts = list(self._hosts)
        return [group for host in hosts for group in host.metric_groups()]

    def processes(self) -> list[int]:
        """The ids of the running task processes."""
        with self._lock:
            return [pid for host in self._hosts if (pid := host.pid) is not None]


def _log(fields: dict[str, Any]) -> None:
    record = logging.makeLogRecord(fields)
    logger = logging.getLogger(record.name)
    if logger.isEnabledFor(record.levelno):
        logger.handle(record)


def _exit_reason(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"
