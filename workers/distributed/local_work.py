"""`LocalWork`: the connector instances and tasks this worker runs, and which slot each came from.

The coordinator decides what should run here (`wanted.py`); this class starts and stops it through the
Worker and remembers, per unit, the slot it belongs to, the fingerprint of the config it was started
with (a changed fingerprint means restart) and the epoch it was started under (a connector instance
stamps its task-config writes with it); it tells `Generations` which epoch each unit runs or ran under,
since every status of the unit carries it. A unit whose start failed stays here: the Worker reported
FAILED, and only a restart or a config change tries again, as in Kafka Connect.

Threads: the coordinator thread and the membership thread (revocations) call it, always holding
`lock`; the lock is re-entrant so that callers can group several steps. `peek` is lock-free, for task
threads.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from connect.runtime.domain.states import ConnectorTaskId, TargetState
from workers.distributed.generations import Generations
from workers.distributed.placement import Unit, connector_unit, is_connector
from workers.distributed.ports import WorkerPort

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunningUnit:
    slot: int
    fingerprint: object
    epoch: int


class LocalWork:
    def __init__(self, worker: WorkerPort, generations: Generations) -> None:
        self.worker = worker
        self.generations = generations
        self.lock = threading.RLock()
        self._running: dict[Unit, RunningUnit] = {}
        self._target_states: dict[str, TargetState] = {}

    # -- reads (lock held by the caller, or a racy but harmless view) ----------------------------

    def running(self) -> dict[Unit, RunningUnit]:
        with self.lock:
            return dict(self._running)

    def get(self, unit: Unit) -> RunningUnit | None:
        with self.lock:
            return self._running.get(unit)

    def peek(self, unit: Unit) -> RunningUnit | None:
        """Like `get`, without the lock (one dict read), for threads that must not wait for it."""
        return self._running.get(unit)

    def units_in(self, slots: Collection[int]) -> list[Unit]:
        with self.lock:
            return sorted(u for u, r in self._running.items() if r.slot in slots)

    def connector_names(self) -> set[str]:
        with self.lock:
            return {u.connector for u in self._running}

    def applied_target_state(self, name: str) -> TargetState | None:
        with self.lock:
            return self._target_states.get(name)

    # -- changes ---------------------------------------------------------------------------------

    def start_connector(
        self,
        name: str,
        slot: int,
        config: Mapping[str, str],
        target: TargetState,
        fingerprint: object,
        epoch: int,
        on_reconfigure: Callable[[str], None],
    ) -> None:
        """`on_reconfigure(name)`: the connector asks for its task configs to be regenerated (its thread)."""
        unit = connector_unit(name)
        with self.lock:
            self._running[unit] = RunningUnit(slot, fingerprint, epoch)
            self.generations.started(unit, epoch)
            self._target_states[name] = target
            try:
                self.worker.start_connector(name, config, target, on_reconfigure)
            except Exception:
                # An unknown connector class: the Worker raised before it could report anything.
                log.exception("Connector %s could not be started", name)
                self.worker.status.on_connector_failure(name, _trace())

    def start_task(
        self,
        task: ConnectorTaskId,
        slot: int,
        connector_config: Mapping[str, str],
        task_config: Mapping[str, str],
        target: TargetState,
        fingerprint: object,
        epoch: int,
        ownership_check: Callable[[], None],
    ) -> None:
        """`ownership_check()`: an exactly-once source task's check that it may still start (`Worker.start_task`)."""
        with self.lock:
            self._running[task] = RunningUnit(slot, fingerprint, epoch)
            self.generations.started(task, epoch)
            self._target_states.setdefault(task.connector, target)
            try:
                self.worker.start_task(task, connector_config, task_config, target, ownership_check=ownership_check)
            except Exception:
                log.exception("Task %s could not be started", task)
                self.worker.status.on_task_failure(task, _trace())

    def stop(self, units: Iterable[Unit]) -> None:
        """Stop tasks first (all at once, each within the graceful timeout), then connector instances."""
        with self.lock:
            chosen = [u for u in units if u in self._running]
            tasks = [u for u in chosen if not is_connector(u)]
            connectors = [u.connector for u in chosen if is_connector(u)]
            started = time.monotonic()
            if tasks:
                self.worker.stop_tasks(tasks, await_stop=True)
            tasks_done = time.monotonic()
            for name in connectors:
                self.worker.stop_connector(name)
            if time.monotonic() - started > 1.0:
                log.info(
                    "Stopping %d task(s) took %.2f s, %d connector(s) %.2f s",
                    len(tasks),
                    tasks_done - started,
                    len(connectors),
                    time.monotonic() - tasks_done,
                )
            stopped_at = time.monotonic()
            for unit in chosen:
                self.generations.stopped(unit, stopped_at)
                del self._running[unit]
            still_here = {u.connector for u in self._running}
            for name in list(self._target_states):
                if name not in still_here:
                    del self._target_states[name]

    def forget_stopped(self, before: float) -> None:
        """Forget the epochs of units that stopped before `before` (monotonic); their statuses are written."""
        with self.lock:
            self.generations.forget_stopped(before)

    def report_restarting(self, unit: Unit) -> None:
        """Status RESTARTING for a unit about to be restarted, through the Worker's status listener."""
        if is_connector(unit):
            self.worker.status.on_connector_restart(unit.connector)
        else:
            self.worker.status.on_task_restart(unit)

    def apply_target_state(self, name: str, state: TargetState) -> None:
        """Pause, resume or stop the connector's instance and tasks that run here."""
        with self.lock:
            if self._target_states.get(name) is state:
                return
            self._target_states[name] = state
            self.worker.set_target_state(name, state)

    def stop_all(self) -> None:
        with self.lock:
            self.stop(list(self._running))


def _trace() -> str:
    return traceback.format_exc()
