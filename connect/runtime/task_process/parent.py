"""`ProcessWorkerTask`: the worker's side of a task that runs in a child process (`task.isolation=process`).

It stands where a `WorkerTask` stands in the `Worker` (start, target state, stop, await, cancel), so the
herders see no difference. `start_thread` starts the task process (`child.run_forked`) with one end of a
socket pair and sends it a `TaskProcessStart`. Task processes are forked by the worker's fork server
(multiprocessing's `forkserver`, which has the runtime imported already): a few milliseconds each,
where a new interpreter would spend about 0.2 s of CPU importing it. From then on the channel's reader
thread applies
what the process reports, in order: statuses to the worker's status listener, used topics to the worker,
log records to the worker's loggers (with the task's context), and it serves the task's offset reads and
writes from the worker's offset store.

A process that ends without saying `done` crashed (a signal, a fault in C code, the out-of-memory
killer): the task turns FAILED with the exit status as its trace, and the usual restart paths apply. A
task that does not stop in time is `cancel`led: its process is killed and nothing it says counts any more.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import multiprocessing
import signal
import threading
from collections.abc import Callable
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import Any

from connect.runtime.offsets import OffsetStore
from connect.runtime.states import ConnectorTaskId, TargetState
from connect.runtime.status import StatusListener
from connect.runtime.task_process import child
from connect.runtime.task_process.channel import Channel, ChannelClosedError
from connect.runtime.task_process.start import TaskProcessStart, current_log_levels
from connect.runtime.worker_task import CURRENT_CONTEXT

log = logging.getLogger(__name__)

# How soon a logger level set on the worker reaches its task processes.
_LEVELS_INTERVAL_S = 1.0

# The task transitions a process may report; anything else from it is ignored.
_TASK_STATUS_CALLS = frozenset(
    {"on_task_startup", "on_task_pause", "on_task_resume", "on_task_failure", "on_task_shutdown", "on_task_restart"}
)


class ProcessWorkerTask:
    def __init__(
        self,
        start: TaskProcessStart,
        status: StatusListener,
        offset_store: OffsetStore,
        on_topic_used: Callable[[str], None],
    ) -> None:
        self.id: ConnectorTaskId = start.task_id
        self._start = start
        self._status = status
        self._offsets = offset_store
        self._on_topic_used = on_topic_used
        self._target = start.target_state
        self._process: BaseProcess | None = None
        self._channel: Channel | None = None
        self._cancelled = False
        self._failed = False
        self._said_done = False
        self._done = threading.Event()

    # -- as the Worker uses a task runner -------------------------------------------------------

    def start_thread(self) -> None:
        """Spawn the task process; returns once it runs (the task starts in it on its own)."""
        connection, theirs = multiprocessing.Pipe(duplex=True)
        # Daemonic: should the worker exit without stopping its tasks, multiprocessing ends them.
        process = _fork_server().Process(target=child.run_forked, args=(theirs,), name=f"task-{self.id}", daemon=True)
        try:
            process.start()
        except BaseException:
            connection.close()
            raise
        finally:
            theirs.close()
        self._process = process
        self._channel = Channel(
            connection,
            {
                "status": self._status_call,
                "topic": self._on_topic_used,
                "log": self._log,
                "done": self._process_done,
                "silenced": self._silenced,
                "offsets.get": self._offsets.get,
                "offsets.set": self._offsets.set,
                "offsets.flush": self._offsets.flush,
                "offsets.snapshot": self._offsets.snapshot,
            },
            name=f"task-{self.id}",
            on_closed=self._channel_closed,
        )
        connection.send(("start", self._start))
        self._channel.start(context=lambda: CURRENT_CONTEXT.set(f"{self.id.connector}|task-{self.id.task}"))
        silence = self._start.worker_silence_s
        interval = _LEVELS_INTERVAL_S if silence is None else min(_LEVELS_INTERVAL_S, silence / 4)
        heartbeat = threading.Thread(
            target=self._say_alive, args=(interval,), name=f"task-{self.id}-heartbeat", daemon=True
        )
        heartbeat.start()

    def transition_to(self, target: TargetState) -> None:
        self._target = target
        self._tell("target", target.value)

    def stop(self) -> None:
        """Ask the task to stop; returns at once (use `await_stop`)."""
        self._tell("stop")

    def await_stop(self, timeout: float) -> bool:
        return self._done.wait(timeout)

    def cancel(self) -> None:
        """Give up on a task that did not stop in time: its process is killed and reports nothing more."""
        self._cancelled = True
        if self._process is not None and self._process.is_alive():
            log.warning("Task %s: killing its process %d", self.id, self._process.pid)
            self._process.kill()

    @property
    def is_running(self) -> bool:
        return self._process is not None and not self._done.is_set() and not self._failed

    @property
    def failed(self) -> bool:
        return self._failed

    @property
    def target_state(self) -> TargetState:
        return self._target

    @property
    def pid(self) -> int | None:
        """The task process's id (None before it was spawned)."""
        return None if self._process is None else self._process.pid

    # -- what the process says (on the channel's reader thread) ---------------------------------

    def _status_call(self, call: str, args: tuple[Any, ...]) -> None:
        if self._cancelled or call not in _TASK_STATUS_CALLS:
            return
        if call == "on_task_failure":
            self._failed = True
        getattr(self._status, call)(self.id, *args)

    def _log(self, fields: dict[str, Any]) -> None:
        record = logging.makeLogRecord(fields)
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)

    def _silenced(self, silent_for: float) -> None:
        log.warning(
            "Task %s: its process stopped the task after this worker had not answered for %.1f s; the worker "
            "drops its work and rejoins its group, which gives the task to a worker again",
            self.id,
            silent_for,
        )

    def _process_done(self) -> None:
        self._said_done = True

    def _channel_closed(self) -> None:
        assert self._process is not None
        self._process.join()
        code = self._process.exitcode
        assert code is not None
        if not self._said_done and not self._cancelled:
            self._failed = True
            reason = _exit_reason(code)
            log.error("Task %s: its process %d %s", self.id, self._process.pid, reason)
            self._status.on_task_failure(
                self.id, f"The task process (pid {self._process.pid}) {reason} before the task stopped."
            )
        self._done.set()

    def _say_alive(self, interval: float) -> None:
        """Say this worker lives, and pass on logger levels changed since (`/admin/loggers`).

        A thread of its own: if this process is frozen, so is it, and the task process notices."""
        levels = self._start.log_levels
        while not self._done.wait(interval):
            self._tell("alive")
            now = current_log_levels()
            if now != levels:
                levels = now
                self._tell("log_levels", levels)

    def _tell(self, op: str, *args: Any) -> None:
        if self._channel is None:
            return
        with contextlib.suppress(ChannelClosedError):  # the process is gone; `_channel_closed` says how
            self._channel.note(op, *args)


@functools.cache
def _fork_server() -> ForkServerContext:
    """multiprocessing's fork server, started with the first task process and holding the task process's
    imports; it forks each task process from a single thread, so no lock is inherited held."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["connect.runtime.task_process.child"])
    return context


def _exit_reason(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"
