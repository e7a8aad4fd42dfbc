"""A distributed worker's metrics: the `Worker`'s, plus Kafka's `connect-worker-rebalance-metrics` and
`connect-coordinator-metrics` as they apply to slots.

A rebalance here is one change of this worker's slots (the membership consumer's assign, revoke or lost
callback, which starts and stops what the slots hold before it returns): its time is the callback's.
The leader is the owner of slot 0, which balances the cluster; the epoch is this worker's generation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

from connect.runtime.metrics.groups import MetricGroup, Value
from connect.runtime.metrics.windows import Clock, WindowedValues, Windows
from workers.distributed.placement import Unit, is_connector

PROTOCOL = "slots"


class RebalanceMetrics:
    def __init__(self, windows: Windows, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._times_ms = WindowedValues(windows, clock)
        self._completed = 0
        self._in_progress = 0
        self._last_completed: float | None = None

    def began(self) -> float:
        with self._lock:
            self._in_progress += 1
        return self._clock()

    def ended(self, started: float) -> None:
        now = self._clock()
        with self._lock:
            self._in_progress -= 1
            self._completed += 1
            self._last_completed = now
            self._times_ms.record((now - started) * 1000, now)

    def group(self, epoch: int, leader: str, owned_slots: int) -> MetricGroup:
        now = self._clock()
        with self._lock:
            since = -1.0 if self._last_completed is None else (now - self._last_completed) * 1000
            values: dict[str, Value] = {
                "connect-protocol": PROTOCOL,
                "leader-name": leader,
                "epoch": epoch,
                "completed-rebalances-total": self._completed,
                "rebalancing": 1 if self._in_progress else 0,
                "rebalance-max-time-ms": self._times_ms.max(),
                "rebalance-avg-time-ms": self._times_ms.avg(),
                "time-since-last-rebalance-ms": since,
                "assigned-slots": owned_slots,
            }
        return MetricGroup("connect-worker-rebalance-metrics", (), values)


def coordinator_group(running: Mapping[Unit, object]) -> MetricGroup:
    connectors = sum(1 for unit in running if is_connector(unit))
    values: dict[str, Value] = {"assigned-connectors": connectors, "assigned-tasks": len(running) - connectors}
    return MetricGroup("connect-coordinator-metrics", (), values)


def cluster_metric_groups(
    worker_groups: Callable[[], list[MetricGroup]],
    rebalances: RebalanceMetrics,
    epoch: Callable[[], int],
    leader: Callable[[], str],
    running: Callable[[], Mapping[Unit, object]],
    owned_slots: Callable[[], int],
) -> Callable[[], list[MetricGroup]]:
    """What `GET /metrics` serves on a distributed worker."""

    def groups() -> list[MetricGroup]:
        rebalance = rebalances.group(epoch(), leader(), owned_slots())
        return [*worker_groups(), rebalance, coordinator_group(running())]

    return groups
