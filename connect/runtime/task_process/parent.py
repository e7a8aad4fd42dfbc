"""`ProcessWorkerTask`: the worker's side of a task that runs in a task process (`task.isolation=process`).

It stands where a `WorkerTask` stands in the `Worker` (start, target state, stop, await, cancel), so the
herders see no difference. `start_thread` places the task in one of the worker's task processes
(`hosts.TaskHosts`) and sends it the task's `TaskProcessStart`; the process's `TaskHost` passes on what
the process reports about the task: its statuses (to the worker's status listener), the topics it uses,
a stop because the worker fell silent, and its end. If the process crashes first, the task turns FAILED
with the exit status as its trace, and the usual restart paths apply. A task that does not stop in time
is `cancel`led: nothing it says counts any more, and its process is killed if it ran no other task (a
process it shares exits once the tasks it still has end).
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any

from connect.api.errors import ConnectError
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.task_process.hosts import TaskHost, TaskHosts
from connect.runtime.task_process.start import TaskProcessStart

log = logging.getLogger(__name__)

# The task transitions a process may report; anything else from it is ignored.
_TASK_STATUS_CALLS = frozenset(
    {
        "on_task_startup",
        "on_task_pause",
        "on_task_resume",
        "on_task_failure",
        "on_task_problem",
        "on_task_shutdown",
        "on_task_restart",
    }
)

_keys = itertools.count(1)


class ProcessWorkerTask:
    def __init__(
        self,
        start: TaskProcessStart,
        hosts: TaskHosts,
        status: StatusListener,
        on_topic_used: Callable[[str], None],
        ownership_check: Callable[[], None] | None = None,
    ) -> None:
        """`ownership_check`: an exactly-once source task's (see `Worker.start_task`), run when its process asks."""
        self.id: ConnectorTaskId = start.task_id
        self.key = next(_keys)
        """This run of the task, as its process knows it (a task id may be there twice: a late stopper)."""
        self._start = start
        self._hosts = hosts
        self._status = status
        self.on_topic_used = on_topic_used
        self._ownership_check = ownership_check
        self._target = start.target_state
        self._host: TaskHost | None = None
        self._cancelled = False
        self._failed = False
        self._done = threading.Event()

    # -- as the Worker uses a task runner -------------------------------------------------------

    def start_thread(self) -> None:
        """Place the task in a task process (started if new) and start it there; returns at once."""
        self._host = self._hosts.place(self)
        self._host.run(self, self._start)

    def transition_to(self, target: TargetState) -> None:
        self._target = target
        self._tell("target", target.value)

    def stop(self) -> None:
        """Ask the task to stop; returns at once (use `await_stop`)."""
        self._tell("stop")

    def await_stop(self, timeout: float) -> bool:
        return self._done.wait(timeout)

    def cancel(self) -> None:
        """Give up on a task that did not stop in time: it reports nothing more, and its process is killed
        unless other tasks run there (it exits when they end)."""
        self._cancelled = True
        host = self._host
        if host is not None:
            alone = set(host.tasks) <= {self.key}
            self._hosts.task_ended(host, self)
            if alone:
                host.kill()
        self._done.set()

    @property
    def is_running(self) -> bool:
        return self._host is not None and not self._done.is_set() and not self._failed

    @property
    def failed(self) -> bool:
        return self._failed

    @property
    def target_state(self) -> TargetState:
        return self._target

    @property
    def pid(self) -> int | None:
        """The id of the task process it runs in (None before it was placed)."""
        return None if self._host is None else self._host.pid

    # -- what its task process says (on the host's channel reader thread) -----------------------

    def on_status(self, call: str, args: tuple[Any, ...]) -> None:
        if self._cancelled or call not in _TASK_STATUS_CALLS:
            return
        if call == "on_task_failure":
            self._failed = True
        getattr(self._status, call)(self.id, *args)

    def check_ownership(self) -> None:
        if self._cancelled:
            raise ConnectError(f"Task {self.id} was given up on")
        if self._ownership_check is not None:
            self._ownership_check()

    def on_silenced(self, silent_for: float) -> None:
        log.warning(
            "Task %s: its process stopped the task after this worker had not answered for %.1f s; the worker "
            "drops its work and rejoins its group, which gives the task to a worker again",
            self.id,
            silent_for,
        )

    def on_ended(self) -> None:
        self._done.set()

    def on_crashed(self, reason: str) -> None:
        if not self._cancelled:
            self._failed = True
            self._status.on_task_failure(self.id, reason)
        self._done.set()

    def _tell(self, op: str, *args: Any) -> None:
        if self._host is not None:
            self._host.tell(op, self.key, *args)
