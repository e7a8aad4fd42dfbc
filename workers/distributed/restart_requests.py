"""`RestartRequests`: the restart records of the config log, carried out for what runs on this worker.

A connector restart (Kafka's `restart-connector-<name>` record, with `includeTasks` and `onlyFailed`)
stops the chosen units that run here, reporting them RESTARTING; the next reconcile starts them again.
kconnect's task restart records stop one task the same way. Requests written before this worker started
are history (`start`): everything starts fresh then. Coordinator thread, except `posted`.
"""

from __future__ import annotations

import logging

from connect.runtime.domain.info import InstanceStatus, RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.stores import ClusterConfigState
from workers.distributed.local_work import LocalWork
from workers.distributed.placement import Unit, is_connector
from workers.distributed.ports import ConfigLogPort, StatusPort

log = logging.getLogger(__name__)


class RestartRequests:
    def __init__(self, config_log: ConfigLogPort, status: StatusPort, work: LocalWork) -> None:
        self._config = config_log
        self._status = status
        self._work = work
        self._seen: dict[str, int] = {}
        self._tasks_seen: dict[ConnectorTaskId, int] = {}
        self._posted = False

    def start(self, snapshot: ClusterConfigState) -> None:
        """Take the requests already in the log as carried out."""
        self._seen = {name: record.offset for name, record in snapshot.restart_requests.items()}
        self._tasks_seen = dict(snapshot.task_restart_requests)

    def posted(self) -> None:
        """A restart record was read (the config log's reader thread)."""
        self._posted = True

    def run_posted(self) -> bool:
        """Carry out the requests posted since the last call; True if there were any to look at."""
        if not self._posted:
            return False
        self._posted = False
        snapshot = self._config.snapshot()
        for name, record in snapshot.restart_requests.items():
            if record.offset > self._seen.get(name, -1):
                self._seen[name] = record.offset
                self._restart(record.request)
        for task, offset in snapshot.task_restart_requests.items():
            if offset > self._tasks_seen.get(task, -1):
                self._tasks_seen[task] = offset
                with self._work.lock:
                    if self._work.get(task) is not None:
                        self._work.report_restarting(task)
                        self._work.stop([task])
                        log.info("Restarting task %s", task)
        return True

    def _restart(self, request: RestartRequest) -> None:
        name = request.connector
        with self._work.lock:
            here = [u for u in self._work.running() if u.connector == name]
            chosen: list[Unit] = []
            for unit in here:
                if is_connector(unit) or request.include_tasks:
                    status = self._status_of(unit)
                    if not request.only_failed or (status is not None and status.state is State.FAILED):
                        chosen.append(unit)
            for unit in chosen:
                self._work.report_restarting(unit)
            self._work.stop(chosen)
        if chosen:
            log.info("Restarting %s", ", ".join(str(u) if u.task >= 0 else name for u in chosen))

    def _status_of(self, unit: Unit) -> InstanceStatus | None:
        if is_connector(unit):
            return self._status.connector_status(unit.connector)
        return self._status.task_status(unit)
