"""`TaskConfigs`: a connector instance running here regenerates its tasks' configs and commits them.

Kafka Connect's `updateConnectorTasks`, on the worker that runs the connector instance (not on a leader):
asked for after the instance starts, when it is resumed, and whenever the connector requests it
(`ConnectorContext.request_task_reconfiguration`, from any thread). The new configs are committed only
if they differ from the committed ones, or the connector config changed since those were committed, or
the committed set is incomplete; the commit carries the instance's ownership epoch so that a zombie
instance elsewhere cannot overwrite it. Failures are retried with backoff (0.25 s doubling to 60 s).

Exactly-once source connectors (KIP-618): before a new generation of task configs is committed, the
transactional ids of the previous generation are fenced (their count is the `tasks-fencing-<c>` record;
none before the first generation, and 1 → 1 needs none: the new task's own `init_transactions` fences its
predecessor), so no task of an old generation can commit once the new one may start; the new count is
recorded after the commit.

Threads: `request` from any thread; `run_due` on the coordinator thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping

from connect.runtime.config.connector import ConnectorSettings
from connect.runtime.domain.info import ConnectorType
from connect.runtime.domain.states import TargetState
from connect.runtime.plugins import PluginRegistry
from connect.runtime.tasks.transactions import fencing_required
from workers.distributed.local_work import LocalWork
from workers.distributed.placement import connector_unit
from workers.distributed.ports import ConfigLogPort
from workers.distributed.wanted import fingerprint

log = logging.getLogger(__name__)

BACKOFF_S = (0.25, 60.0)

Fencer = Callable[[str, int, Mapping[str, str]], None]
"""`fence(connector, previous_task_count, connector_config)`: fence that many transactional task ids."""


class TaskConfigs:
    def __init__(
        self,
        config_log: ConfigLogPort,
        work: LocalWork,
        registry: PluginRegistry,
        write_timeout: float,
        fence: Fencer | None = None,
    ) -> None:
        """`fence` is given when this worker runs source tasks exactly once."""
        self._config = config_log
        self._work = work
        self._registry = registry
        self._write_timeout = write_timeout
        self._fence = fence
        self._lock = threading.Lock()
        self._requested: set[str] = set()
        self._due: dict[str, tuple[float, int]] = {}  # coordinator thread only

    def request(self, name: str) -> None:
        with self._lock:
            self._requested.add(name)

    def run_due(self) -> float | None:
        """Regenerate what is due; returns when to come back for retries, if any wait."""
        with self._lock:
            requested, self._requested = self._requested, set()
        for name in requested:
            self._due.setdefault(name, (0.0, 0))
        now = time.monotonic()
        for name, (due, attempt) in sorted(self._due.items()):
            if due > now:
                continue
            del self._due[name]
            try:
                self._regenerate(name)
            except Exception:
                low, high = BACKOFF_S
                delay = min(high, low * 2**attempt)
                log.exception("Failed to reconfigure the tasks of connector %s; retrying in %.2f s", name, delay)
                self._due[name] = (now + delay, attempt + 1)
        return min((due for due, _ in self._due.values()), default=None)

    def _regenerate(self, name: str) -> None:
        unit = connector_unit(name)
        running = self._work.get(unit)
        snapshot = self._config.snapshot()
        if running is None or not snapshot.contains(name) or snapshot.target_state(name) is not TargetState.STARTED:
            return
        if running.fingerprint != fingerprint(snapshot, unit):
            return  # about to be restarted with its new config; it asks again then
        if not self._work.worker.is_running(name):
            log.info("Skipping the task configs of connector %s: it is not running", name)
            return
        config = snapshot.connector_config(name) or {}
        connector_type = self._registry.connector_type(config.get("connector.class", ""))
        tasks_max = ConnectorSettings.parse(config, connector_type).tasks_max
        configs = self._work.worker.connector_task_configs(name, tasks_max)
        current = [dict(c) for c in snapshot.task_configs.get(name, ())]
        if (
            not snapshot.is_inconsistent(name)
            and current == configs
            and snapshot.applied_connector_configs.get(name) == config
        ):
            return
        fence = self._fence if connector_type is ConnectorType.SOURCE else None
        if fence is not None:
            previous = snapshot.task_count_records.get(name)
            if previous is not None and fencing_required(previous, len(configs)):
                fence(name, previous, config)
        self._config.put_task_configs(name, configs, running.epoch, timeout=self._write_timeout)
        if fence is not None:
            self._config.put_task_count_record(name, len(configs), timeout=self._write_timeout)
        log.info("Connector %s: wrote %d task config(s)", name, len(configs))
