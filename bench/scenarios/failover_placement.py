"""Where a cluster runs its work, waiting for a steady state, and which worker a fault hits."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bench.harness import wait_until
from bench.systems.cluster import ClusterMember, Placement, WorkerCluster, placements

log = logging.getLogger(__name__)

BALANCE_WAIT_S = 30.0
START_WAIT_S = 120.0


class FailoverError(RuntimeError):
    pass


def current_placements(member: ClusterMember, names: Sequence[str]) -> list[Placement] | None:
    """Every placement of `names` as `member` reports them, or None if it could not answer for one."""
    found: list[Placement] = []
    for name in names:
        try:
            status = member.rest.status(name)
        except Exception:
            return None
        if not status or "connector" not in status:
            return None
        found += placements(status)
    return found


def task_counts(cluster: WorkerCluster, found: Sequence[Placement], *, connectors: bool = False) -> dict[str, int]:
    """Tasks (or, with `connectors`, connector instances) per member."""
    counts = {member.name: 0 for member in cluster.members}
    for placement in found:
        if (placement.task is None) != connectors:
            continue
        for member in cluster.members:
            if member.is_worker(placement.worker_id):
                counts[member.name] += 1
    return counts


def balanced(cluster: WorkerCluster, found: Sequence[Placement]) -> bool:
    """Tasks and connector instances each spread within one of even, as both systems' assignors aim for."""
    spreads = (task_counts(cluster, found, connectors=side).values() for side in (False, True))
    return all(max(counts) - min(counts) <= 1 for counts in spreads)


def wait_steady(cluster: WorkerCluster, names: Sequence[str], tasks: int) -> list[Placement]:
    """All connectors and tasks RUNNING on live members; balanced if that comes in time (a move for balance
    during a trial would be counted against the fault)."""
    latest: list[Placement] = []

    def running() -> bool:
        cluster.ensure_alive()
        found = current_placements(cluster.alive()[0], names)
        if found is None:
            return False
        live = [member for member in cluster.members if member.alive()]
        on_live = all(any(member.is_worker(p.worker_id) for member in live) for p in found)
        complete = sum(p.task is not None for p in found) == tasks
        if on_live and complete and all(p.state == "RUNNING" for p in found):
            latest[:] = found
            return True
        return False

    wait_until(running, START_WAIT_S, interval=0.2, what="every connector and task RUNNING")
    try:
        wait_until(lambda: running() and balanced(cluster, latest), BALANCE_WAIT_S, interval=0.2, what="balance")
    except TimeoutError:
        log.info("not balanced after %.0f s: %s", BALANCE_WAIT_S, task_counts(cluster, latest))
    return latest


def pick_victim(
    cluster: WorkerCluster, found: Sequence[Placement], turn: int, spare: ClusterMember | None = None
) -> ClusterMember:
    """The member with the most tasks (ties in turn), other than `spare`."""
    counts = task_counts(cluster, found)
    candidates = [member for member in cluster.members if member is not spare and counts[member.name] > 0]
    if not candidates:
        raise FailoverError("no worker that may be killed runs a task")
    most = max(counts[member.name] for member in candidates)
    busiest = [member for member in candidates if counts[member.name] == most]
    return busiest[turn % len(busiest)]


def placements_seen_by(members: Sequence[ClusterMember], names: Sequence[str]) -> list[Placement] | None:
    """`names`' placements as the first of `members` that answers for all of them reports them."""
    for member in members:
        found = current_placements(member, names)
        if found is not None:
            return found
    return None
