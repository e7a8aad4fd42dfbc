"""The arithmetic of the rebalance benchmark, free of I/O so it is unit-tested: status snapshots and when a
cluster counts as balanced, which tasks a rebalance left alone, throughput per 0.5 s window, the task moves
a worker restart caused (from the status topic), and the group generations in the broker's log.

Workers are named by their REST port throughout: a restarted member comes back on its port, so with the
same worker id, and both systems' statuses name workers `host:port`.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

TaskKey = tuple[str, int]  # (connector, task number)

WINDOW_S = 0.5
RUNNING = "RUNNING"
UNASSIGNED = "UNASSIGNED"
STATUS_TASK_PREFIX = "status-task-"


def worker_port(worker_id: str) -> int:
    """The REST port in a status's `worker_id` (`127.0.0.1:8083` -> 8083); -1 when it names none."""
    tail = worker_id.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else -1


@dataclass(frozen=True)
class Where:
    state: str
    port: int


@dataclass(frozen=True)
class Snapshot:
    """One answer of `GET /connectors?expand=status`; `at` is the monotonic time it arrived."""

    at: float
    connectors: Mapping[str, Where]
    tasks: Mapping[TaskKey, Where]

    @classmethod
    def from_expanded(cls, body: Mapping[str, Any], at: float) -> Snapshot:
        connectors: dict[str, Where] = {}
        tasks: dict[TaskKey, Where] = {}
        for name, expanded in body.items():
            status = expanded.get("status") or {}
            connector = status.get("connector")
            if connector is not None:
                connectors[name] = Where(str(connector["state"]), worker_port(str(connector["worker_id"])))
            for task in status.get("tasks", []):
                tasks[(name, int(task["id"]))] = Where(str(task["state"]), worker_port(str(task["worker_id"])))
        return cls(at, connectors, tasks)

    def owners(self) -> dict[TaskKey, int]:
        return {task: where.port for task, where in self.tasks.items()}


def task_counts(snapshot: Snapshot, ports: Collection[int]) -> dict[int, int]:
    """Tasks per worker, for each of `ports` (others are not counted)."""
    counts = dict.fromkeys(ports, 0)
    for where in snapshot.tasks.values():
        if where.port in counts:
            counts[where.port] += 1
    return counts


def is_balanced(snapshot: Snapshot, ports: Collection[int], connectors: int, tasks: int) -> bool:
    """Every one of `connectors` connector instances and `tasks` tasks RUNNING on one of `ports`, and each of
    `ports` running ⌊tasks/workers⌋ or ⌈tasks/workers⌉ tasks: within ±1 of the even share, every worker included."""
    if not ports or len(snapshot.connectors) != connectors or len(snapshot.tasks) != tasks:
        return False
    every = [*snapshot.connectors.values(), *snapshot.tasks.values()]
    if any(where.state != RUNNING or where.port not in ports for where in every):
        return False
    low, high = tasks // len(ports), -(-tasks // len(ports))
    return all(low <= count <= high for count in task_counts(snapshot, ports).values())


def unaffected(snapshots: Sequence[Snapshot]) -> set[TaskKey]:
    """Tasks RUNNING on one and the same worker in every snapshot (the first taken before the change)."""
    if not snapshots:
        return set()
    first = snapshots[0].tasks
    kept = {task for task, where in first.items() if where.state == RUNNING}
    for snapshot in snapshots[1:]:
        kept = {task for task in kept if snapshot.tasks.get(task) == first[task]}
    return kept


def moved(before: Snapshot, after: Snapshot) -> set[TaskKey]:
    """Tasks that run on another worker after than before."""
    return {
        task for task, where in after.tasks.items() if task in before.tasks and before.tasks[task].port != where.port
    }


# -- throughput per window ----------------------------------------------------------------------------


def window_index(wall_s: float) -> int:
    """The 0.5 s window (of the wall clock, as record timestamps are) that `wall_s` falls in."""
    return math.floor(wall_s / WINDOW_S)


def window_totals(
    counts: Mapping[TaskKey, Mapping[int, int]], tasks: Collection[TaskKey], first: int, last: int
) -> list[int]:
    """Records of `tasks` in each window from `first` to `last`, both included."""
    rows = [counts[task] for task in tasks if task in counts]
    return [sum(row.get(window, 0) for row in rows) for window in range(first, last + 1)]


@dataclass(frozen=True)
class Ratio:
    """Throughput during a change relative to the steady throughput before it."""

    mean: float  # mean records per window during ÷ mean records per window before
    worst: float  # the lowest window during ÷ mean records per window before


def throughput_ratio(steady: Sequence[int], during: Sequence[int]) -> Ratio:
    if not steady or not during:
        raise ValueError("both the steady and the rebalance window need at least one 0.5 s window")
    base = sum(steady) / len(steady)
    if base <= 0:
        raise ValueError("no records at all in the steady window")
    return Ratio(statistics.fmean(during) / base, min(during) / base)


def per_second(totals: Sequence[int]) -> list[float]:
    return [total / WINDOW_S for total in totals]


# -- the status topic ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusEvent:
    """One task status record: `at_ms` is its timestamp, `port` the worker that wrote it."""

    at_ms: int
    task: TaskKey
    state: str
    port: int


def parse_status(key: bytes | None, value: bytes | None, at_ms: int) -> StatusEvent | None:
    """A task status record of Kafka Connect's status topic (`status-task-<connector>-<n>`, a JSON value with
    `state` and `worker_id`); None for connector statuses, tombstones and anything else."""
    if key is None or value is None:
        return None
    text = key.decode(errors="replace")
    if not text.startswith(STATUS_TASK_PREFIX):
        return None
    connector, _, number = text[len(STATUS_TASK_PREFIX) :].rpartition("-")
    if not connector or not number.isdigit():
        return None
    try:
        data = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    return StatusEvent(at_ms, (connector, int(number)), str(data.get("state")), worker_port(str(data.get("worker_id"))))


@dataclass(frozen=True)
class Churn:
    """What one worker's restart did to the tasks, replayed from the status records written meanwhile."""

    moves: int  # a task RUNNING on another worker than the one it ran on before
    restarts_in_place: int  # a task stopped and RUNNING again on the same worker, not the restarted one
    touched_elsewhere: frozenset[TaskKey]  # tasks stopped or started on a worker that was not restarted
    collateral: frozenset[TaskKey]  # of those, the ones the restarted worker did not run before


def churn(events: Iterable[StatusEvent], owners: Mapping[TaskKey, int], restarted: int) -> Churn:
    """Replay `events` (in the order of their partition, which is per task the order they were written) from
    `owners` (task -> port before the restart). A start is a RUNNING record; a stop an UNASSIGNED one, or a
    start elsewhere (a stopping worker's own record may be skipped by the status store when a newer owner's
    is there already)."""
    owner = dict(owners)
    stopped: set[TaskKey] = set()
    touched: set[TaskKey] = set()
    moves = in_place = 0
    for event in events:
        task, port = event.task, event.port
        if event.state == RUNNING:
            previous = owner.get(task)
            if previous is not None and previous != port:
                moves += 1
                if previous != restarted:
                    touched.add(task)  # stopped on a worker that was not restarted
            elif previous == port and task in stopped and port != restarted:
                in_place += 1
            if port != restarted:
                touched.add(task)
            owner[task] = port
            stopped.discard(task)
        elif event.state == UNASSIGNED:
            if port != restarted:
                touched.add(task)
            if owner.get(task) == port:
                stopped.add(task)
    own = {task for task, port in owners.items() if port == restarted}
    return Churn(moves, in_place, frozenset(touched), frozenset(touched - own))


def first_running_after(events: Iterable[StatusEvent], tasks: Collection[TaskKey], since_ms: int) -> dict[TaskKey, int]:
    """For each of `tasks`, the timestamp of its first RUNNING record at or after `since_ms` (if any)."""
    found: dict[TaskKey, int] = {}
    for event in events:
        if event.state == RUNNING and event.at_ms >= since_ms and event.task in tasks and event.task not in found:
            found[event.task] = event.at_ms
    return found


# -- the broker's log ---------------------------------------------------------------------------------

# Kafka's group coordinator: "[2026-11-22 00:46:28,287] INFO [GroupCoordinator id=1 ...] Stabilized group G
# generation 2 with 3 members. (...)" and "... Preparing to rebalance group G in state ... with old generation 1".
_LOG_TIME = r"^\[(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\] "


def last_generation(log_text: str, group: str) -> int:
    """The newest generation the coordinator stabilized `group` at (0 before any)."""
    found = re.findall(rf"Stabilized group {re.escape(group)} generation (\d+) ", log_text)
    return max((int(value) for value in found), default=0)


def rebalance_starts(log_text: str, group: str) -> list[float]:
    """Wall-clock times (the broker logs local time) at which the coordinator began a rebalance of `group`."""
    pattern = re.compile(_LOG_TIME + rf".*Preparing to rebalance group {re.escape(group)} ", re.MULTILINE)
    return [datetime.strptime(match["at"], "%Y-%m-%d %H:%M:%S,%f").timestamp() for match in pattern.finditer(log_text)]
