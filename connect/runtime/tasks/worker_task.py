"""`WorkerTask`: the part of running a task that sources and sinks share.

Each task runs on its own thread (`task-<connector>-<n>`): initialize and start the plug-in, report
RUNNING, run the subclass's `execute` loop until stopped, close, report UNASSIGNED, or FAILED with the
Python traceback if anything escaped (the other tasks keep running; nothing restarts a failed task
except a user). `transition_to` (pause/resume) and `stop` are called from the herder's thread and only
signal the task thread through a condition variable; the loop decides when to act on them.

Topic tracking (KIP-558) is the base's too: the task thread calls `_topic_used` for each topic a record
goes to or comes from; the first time only, it tells the worker through `on_topic_used`.

The task thread sets the log context (`connect.runtime.logs.context.CURRENT_CONTEXT`) to `<connector>|task-<n>`.
"""

from __future__ import annotations

import abc
import logging
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import Protocol

from connect.api.task import Task
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.logs.context import CURRENT_CONTEXT
from connect.runtime.metrics.groups import MetricGroup, task_tags
from connect.runtime.metrics.plugin_metrics import TaskPluginMetrics
from connect.runtime.metrics.windows import Windows

log = logging.getLogger(__name__)


class TaskRunner(Protocol):
    """What the `Worker` does with a running task, wherever it runs: a `WorkerTask` on a thread of the
    worker, or a `ProcessWorkerTask` in a task process."""

    id: ConnectorTaskId

    def start_thread(self) -> None: ...
    def transition_to(self, target: TargetState) -> None: ...
    def stop(self) -> None: ...
    def await_stop(self, timeout: float) -> bool: ...
    def cancel(self) -> None: ...
    @property
    def is_running(self) -> bool: ...
    @property
    def failed(self) -> bool: ...
    @property
    def target_state(self) -> TargetState: ...


class WorkerTask(abc.ABC):
    def __init__(
        self,
        task_id: ConnectorTaskId,
        task: Task,
        task_config: Mapping[str, str],
        status: StatusListener,
        target_state: TargetState,
        *,
        on_topic_used: Callable[[str], None] | None = None,
        metrics_windows: Windows | None = None,
    ) -> None:
        """`metrics_windows`: of the rates, averages and maxima of the runner's metrics (`metrics`)."""
        self.id = task_id
        self.metrics_windows = metrics_windows or Windows()
        self.plugin_metrics = TaskPluginMetrics(task_tags(task_id.connector, task_id.task), self.metrics_windows)
        """The task's own metrics (`context.plugin_metrics`, KIP-877)."""
        self.task = task
        self.task_config = dict(task_config)
        self.status = status
        self._target = target_state
        self._condition = threading.Condition()
        self._stopping = False
        self.stop_event = threading.Event()
        self._cancelled = False
        self._failed = False
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._on_topic_used = on_topic_used
        # Read directly by the subclasses' record loops, which skip the call for a topic already seen.
        self._topics_seen: set[str] = set()

    # -- called from other threads --------------------------------------------------------------

    def start_thread(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"task-{self.id}", daemon=True)
        self._thread.start()

    def transition_to(self, target: TargetState) -> None:
        with self._condition:
            self._target = target
            self._condition.notify_all()
        self.on_target_change(target)

    def stop(self) -> None:
        """Ask the task to stop; returns at once (use `await_stop`)."""
        with self._condition:
            self._stopping = True
            self._condition.notify_all()
        self.stop_event.set()
        self.on_stop_requested()

    def await_stop(self, timeout: float) -> bool:
        return self._done.wait(timeout)

    def cancel(self) -> None:
        """Give up on a task that did not stop in time: it may run on, but it reports nothing more."""
        self._cancelled = True

    @property
    def is_running(self) -> bool:
        return self._thread is not None and not self._done.is_set() and not self._failed

    @property
    def failed(self) -> bool:
        return self._failed

    @property
    def target_state(self) -> TargetState:
        return self._target

    @property
    def stopping(self) -> bool:
        return self._stopping

    def metric_groups(self) -> list[MetricGroup]:
        """The task's own metrics (`connect.runtime.metrics.task_metrics`), read on the caller's thread."""
        return []

    # -- the task thread ------------------------------------------------------------------------

    def _run(self) -> None:
        CURRENT_CONTEXT.set(f"{self.id.connector}|task-{self.id.task}")
        started = False
        try:
            self.initialize_and_start()
            started = True
            if not self._stopping and not self._cancelled:
                self.status.on_task_startup(self.id)
            self.execute()
        except BaseException as exc:
            self._failed = True
            trace = traceback.format_exc()
            if not self._cancelled:
                log.error("Task %s threw an uncaught and unrecoverable exception. %s", self.id, _kafka_text(exc))
                log.debug("Task %s failure trace:\n%s", self.id, trace)
                self.status.on_task_failure(self.id, trace)
        finally:
            try:
                self.close(started)
            except Exception:
                log.exception("Task %s: error while closing", self.id)
            if not self._failed and not self._cancelled:
                self.status.on_task_shutdown(self.id)
            self._done.set()

    def await_unpaused(self) -> bool:
        """Block while the target state is not STARTED; False if the task is stopping instead."""
        with self._condition:
            while self._target is not TargetState.STARTED and not self._stopping:
                self._condition.wait()
            return not self._stopping

    def wait_for_change(self, timeout: float) -> None:
        """Sleep up to `timeout` seconds, waking early on stop or a target state change."""
        with self._condition:
            if not self._stopping:
                self._condition.wait(timeout)

    # -- for subclasses -------------------------------------------------------------------------

    @abc.abstractmethod
    def initialize_and_start(self) -> None:
        """`task.initialize(context)` and `task.start(config)`, plus the runner's own setup."""

    @abc.abstractmethod
    def execute(self) -> None:
        """The loop; returns when `stopping` is set."""

    @abc.abstractmethod
    def close(self, started: bool) -> None:
        """Release everything (and call `task.stop()` where the task thread does that)."""

    def on_target_change(self, target: TargetState) -> None:
        """Hook on the caller's thread after a transition (e.g. to wake a blocked call)."""

    def on_stop_requested(self) -> None:
        """Hook on the caller's thread after `stop()`."""

    def _topic_used(self, topic: str) -> None:
        """Called on the task thread for each topic a record goes to or comes from; reports new ones once."""
        if topic in self._topics_seen:
            return
        self._topics_seen.add(topic)
        if self._on_topic_used is not None:
            self._on_topic_used(topic)


def _kafka_text(exc: BaseException) -> str:
    # Kafka's status trace is the Java stack trace; the log line names the cause the same way it does.
    return "Task is being killed and will not recover until manually restarted. " + f"{type(exc).__name__}: {exc}"
