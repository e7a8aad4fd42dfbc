"""What the worker measures itself: connector and task start-ups (Kafka's `connect-worker-metrics`), and
the state of every connector and task it runs, with the share of time each task spent running and
paused (`connector-metrics` status, `connector-task-metrics` status, running-ratio and pause-ratio).

States come from the worker's status listener (`StateTracking` stands in front of it), which hears every
transition of every task wherever it runs: on a worker thread or in a task process.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.domain.status import StatusListener
from connect.runtime.metrics.groups import MetricGroup, Value, percentage, task_tags
from connect.runtime.metrics.windows import Clock

RUNNING = "running"
PAUSED = "paused"
FAILED = "failed"
UNASSIGNED = "unassigned"
RESTARTING = "restarting"
STOPPED = "stopped"
DESTROYED = "destroyed"
TASK_STATES = (RUNNING, PAUSED, FAILED, UNASSIGNED, DESTROYED, RESTARTING)
"""The states Kafka counts per connector in `connect-worker-metrics` (`connector-<state>-task-count`)."""


@dataclass
class StartupCounts:
    attempts: int = 0
    successes: int = 0
    failures: int = 0

    def values(self, kind: str) -> dict[str, Value]:
        return {
            f"{kind}-startup-attempts-total": self.attempts,
            f"{kind}-startup-success-total": self.successes,
            f"{kind}-startup-failure-total": self.failures,
            f"{kind}-startup-success-percentage": percentage(self.successes, self.attempts),
            f"{kind}-startup-failure-percentage": percentage(self.failures, self.attempts),
        }


@dataclass
class _TaskTimes:
    state: str
    since: float
    started: float
    running_s: float = 0.0
    paused_s: float = 0.0

    def move_to(self, state: str, now: float) -> None:
        self._add_time(now)
        self.state = state

    def _add_time(self, now: float) -> None:
        spent = now - self.since
        if self.state == RUNNING:
            self.running_s += spent
        elif self.state == PAUSED:
            self.paused_s += spent
        self.since = now

    def ratios(self, now: float) -> tuple[float, float]:
        lived = now - self.started
        if lived <= 0:
            return 0.0, 0.0
        running, paused = self.running_s, self.paused_s
        if self.state == RUNNING:
            running += now - self.since
        elif self.state == PAUSED:
            paused += now - self.since
        return running / lived, paused / lived


@dataclass
class WorkerStates:
    """The last state of each connector and task this worker heard of, and the task times."""

    clock: Clock = time.monotonic
    connectors: dict[str, str] = field(default_factory=dict)
    tasks: dict[ConnectorTaskId, _TaskTimes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def connector_started(self, name: str) -> None:
        with self.lock:
            self.connectors[name] = UNASSIGNED

    def connector(self, name: str, state: str) -> None:
        """A connector instance here changed state (one not started here, or forgotten, is ignored)."""
        with self.lock:
            if name in self.connectors:
                self.connectors[name] = state

    def forget_connector(self, name: str) -> None:
        with self.lock:
            self.connectors.pop(name, None)

    def task_started(self, task: ConnectorTaskId) -> None:
        """A new run of the task begins here: its times start over."""
        now = self.clock()
        with self.lock:
            self.tasks[task] = _TaskTimes(UNASSIGNED, now, now)

    def task(self, task: ConnectorTaskId, state: str) -> None:
        """A task here changed state (a late word from a run already forgotten is ignored)."""
        now = self.clock()
        with self.lock:
            times = self.tasks.get(task)
            if times is not None:
                times.move_to(state, now)

    def forget_task(self, task: ConnectorTaskId) -> None:
        with self.lock:
            self.tasks.pop(task, None)

    def task_state(self, task: ConnectorTaskId) -> str:
        with self.lock:
            times = self.tasks.get(task)
            return UNASSIGNED if times is None else times.state

    def task_group(self, task: ConnectorTaskId) -> MetricGroup:
        """The worker's part of the task's `connector-task-metrics`."""
        now = self.clock()
        with self.lock:
            times = self.tasks.get(task)
            state = UNASSIGNED if times is None else times.state
            running, paused = (0.0, 0.0) if times is None else times.ratios(now)
        values: dict[str, Value] = {"status": state, "running-ratio": running, "pause-ratio": paused}
        return MetricGroup("connector-task-metrics", task_tags(task.connector, task.task), values)

    def connector_state(self, name: str) -> str:
        with self.lock:
            return self.connectors.get(name, UNASSIGNED)


class StateTracking:
    """A status listener that records each state in `WorkerStates`, then passes the call on."""

    def __init__(self, delegate: StatusListener, states: WorkerStates) -> None:
        self.delegate = delegate
        self.states = states

    def on_connector_startup(self, connector: str) -> None:
        self.states.connector(connector, RUNNING)
        self.delegate.on_connector_startup(connector)

    def on_connector_pause(self, connector: str) -> None:
        self.states.connector(connector, PAUSED)
        self.delegate.on_connector_pause(connector)

    def on_connector_resume(self, connector: str) -> None:
        self.states.connector(connector, RUNNING)
        self.delegate.on_connector_resume(connector)

    def on_connector_failure(self, connector: str, trace: str) -> None:
        self.states.connector(connector, FAILED)
        self.delegate.on_connector_failure(connector, trace)

    def on_connector_shutdown(self, connector: str) -> None:
        self.states.connector(connector, UNASSIGNED)
        self.delegate.on_connector_shutdown(connector)

    def on_connector_stopped(self, connector: str) -> None:
        self.states.connector(connector, STOPPED)
        self.delegate.on_connector_stopped(connector)

    def on_connector_restart(self, connector: str) -> None:
        self.states.connector(connector, RESTARTING)
        self.delegate.on_connector_restart(connector)

    def on_connector_deletion(self, connector: str) -> None:
        self.states.connector(connector, DESTROYED)
        self.delegate.on_connector_deletion(connector)

    def on_task_startup(self, task: ConnectorTaskId) -> None:
        self.states.task(task, RUNNING)
        self.delegate.on_task_startup(task)

    def on_task_pause(self, task: ConnectorTaskId) -> None:
        self.states.task(task, PAUSED)
        self.delegate.on_task_pause(task)

    def on_task_resume(self, task: ConnectorTaskId) -> None:
        self.states.task(task, RUNNING)
        self.delegate.on_task_resume(task)

    def on_task_failure(self, task: ConnectorTaskId, trace: str) -> None:
        self.states.task(task, FAILED)
        self.delegate.on_task_failure(task, trace)

    def on_task_problem(self, task: ConnectorTaskId, trace: str) -> None:
        self.delegate.on_task_problem(task, trace)  # still RUNNING

    def on_task_shutdown(self, task: ConnectorTaskId) -> None:
        self.states.task(task, UNASSIGNED)
        self.delegate.on_task_shutdown(task)

    def on_task_restart(self, task: ConnectorTaskId) -> None:
        self.states.task(task, RESTARTING)
        self.delegate.on_task_restart(task)

    def on_task_deletion(self, task: ConnectorTaskId) -> None:
        self.states.task(task, DESTROYED)
        self.delegate.on_task_deletion(task)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self.delegate.on_topic_used(task, topic)
