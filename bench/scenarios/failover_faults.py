"""The faults the failover group injects into one worker of three, and what each trial of one measures.

kill -9, SIGSTOP and SIGTERM are timed until the victim's connectors and tasks are RUNNING on survivors and
until records produced just after the signal are in every sink partition's output; a 1.5 s pause (SIGSTOP,
then SIGCONT) is watched for work that stops or moves anywhere, which it must not cause.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.broker import KafkaAdmin
from bench.results import Metric, SystemResult
from bench.scenarios.failover_placement import (
    START_WAIT_S,
    FailoverError,
    pick_victim,
    placements_seen_by,
    wait_steady,
)
from bench.scenarios.failover_sinks import FailoverSinks
from bench.stats import bounded_percentile
from bench.systems.cluster import ClusterMember, Placement, WorkerCluster

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.05
PAUSE_S = 1.5
# Watched after SIGCONT too: a detector that took the pause for a death would move work within this.
PAUSE_WATCH_S = 10.0
REAP_TIMEOUT_S = 60.0


class Fault(enum.Enum):
    KILL = "kill -9"
    STOP = "SIGSTOP"  # a hung process: its connections stay open and silent
    TERM = "SIGTERM"  # a graceful stop: the worker hands its work over
    PAUSE = "1.5 s pause"

    @property
    def moves_work(self) -> bool:
        return self is not Fault.PAUSE


@dataclass(frozen=True)
class FaultPlan:
    fault: Fault
    trials: int
    bound: float
    spare_leader: bool = False  # hit only workers that are not the group's leader


def _within(started: float, done: float | None, bound: float) -> float | None:
    # A poll round that began before the bound may end after it: that wait was not over within the bound either.
    return None if done is None or done - started > bound else done - started


@dataclass
class FaultLog:
    """What the trials of one fault on one cluster gave; None: not over within the bound."""

    bound: float
    waits: list[float | None] = field(default_factory=list)  # until the victim's work RUNNING on survivors
    data_waits: list[float | None] = field(default_factory=list)  # until the markers are in every sink output
    moved: list[int] = field(default_factory=list)  # connectors + tasks the victim ran, per trial
    disturbed: list[int] = field(default_factory=list)  # pause: connectors + tasks seen stopped or moved
    poll_rounds_ms: list[float] = field(default_factory=list)
    leader_kills: list[bool] = field(default_factory=list)  # per trial, where the system names a group leader

    def _percentiles(self, prefix: str, waits: Sequence[float | None]) -> dict[str, Metric]:
        metrics = {}
        for name, fraction in (("p50_s", 0.5), ("p99_s", 0.99)):
            value, at_least = bounded_percentile(waits, self.bound, fraction)
            metrics[prefix + name] = Metric("s", False, (value,), at_least)
        samples = tuple(wait if wait is not None else self.bound for wait in waits)
        metrics[f"{prefix}each_trial_s"] = Metric("s", False, samples, any(wait is None for wait in waits))
        return metrics

    def _common_details(self) -> dict[str, str | int | float | bool]:
        return {
            "trials": len(self.data_waits),
            "bound_s": self.bound,
            "mean_poll_round_ms": round(sum(self.poll_rounds_ms) / max(len(self.poll_rounds_ms), 1), 1),
            "group_leader_hit": f"{sum(self.leader_kills)} of {len(self.leader_kills)}" if self.leader_kills else "n/a",
        }

    def row(self, label: str) -> SystemResult:
        """p50/p99 until the work runs elsewhere and until the data flows again, for a fault that moves work."""
        if not self.waits:
            raise FailoverError("no trial was measured")
        observed = [wait for wait in self.waits if wait is not None]
        return SystemResult.measured(
            label,
            {**self._percentiles("", self.waits), **self._percentiles("data_", self.data_waits)},
            **self._common_details(),
            recovered_within_bound=len(observed),
            data_within_bound=sum(wait is not None for wait in self.data_waits),
            max_recovered_s=round(max(observed), 2) if observed else "none",
            moved_per_trial=round(sum(self.moved) / len(self.moved), 1),
        )

    def pause_row(self, label: str) -> SystemResult:
        """How much work a pause stopped or moved (none is the target), and how soon the data flowed again."""
        return self.disturbance_row(label, pause_s=PAUSE_S)

    def disturbance_row(self, label: str, **details: str | int | float | bool) -> SystemResult:
        """For a fault that must move nothing: connectors and tasks stopped or moved, and the data's wait."""
        if not self.disturbed:
            raise FailoverError("no trial was measured")
        metrics = {
            "disturbed": Metric("connectors and tasks", False, (float(sum(self.disturbed)),)),
            "trials_disturbed": Metric("trials", False, (float(sum(count > 0 for count in self.disturbed)),)),
            **self._percentiles("data_", self.data_waits),
        }
        return SystemResult.measured(label, metrics, **self._common_details(), **details)


@dataclass
class FailoverWork:
    """Everything one cluster runs: source connectors, and the sinks whose outputs tell when data flows."""

    cluster: WorkerCluster
    sinks: FailoverSinks
    names: list[str]
    tasks: int
    topics: list[str]  # the sources' topics, deleted with the cluster's work
    admin: KafkaAdmin


def run_trials(work: FailoverWork, plan: FaultPlan) -> FaultLog:
    trials = FaultLog(plan.bound)
    for turn in range(plan.trials):
        victim = measure_trial(work, turn, plan, trials)
        if victim.process is None:  # restarted on its port, so with the same worker id
            work.cluster.restart(victim, START_WAIT_S)
    return trials


def measure_trial(work: FailoverWork, turn: int, plan: FaultPlan, trials: FaultLog) -> ClusterMember:
    """One trial of `plan.fault`, logged into `trials`; returns the member it hit."""
    cluster = work.cluster
    found = wait_steady(cluster, work.names, work.tasks)
    work.sinks.wait_flowing(work.admin)
    leader = cluster.leader()
    victim = pick_victim(cluster, found, turn, leader if plan.spare_leader else None)
    if leader is not None:
        trials.leader_kills.append(victim is leader)
    owned = [(p.connector, p.task) for p in found if victim.is_worker(p.worker_id)]
    log.info(
        "%s %d: %s runs %s",
        plan.fault.value,
        turn + 1,
        victim.name,
        ", ".join(c if t is None else f"{c}/{t}" for c, t in owned),
    )
    if plan.fault.moves_work:
        watch_move(work, victim, owned, plan, trials)
    else:
        watch_pause(work, victim, found, plan, trials)
    return victim


def signal(cluster: WorkerCluster, victim: ClusterMember, fault: Fault) -> float:
    if fault is Fault.KILL:
        return cluster.kill(victim)
    if fault is Fault.TERM:
        return cluster.signal_term(victim)
    return cluster.pause(victim)


def watch_move(
    work: FailoverWork,
    victim: ClusterMember,
    owned: Sequence[tuple[str, int | None]],
    plan: FaultPlan,
    trials: FaultLog,
) -> None:
    cluster, sinks = work.cluster, work.sinks
    survivors = [member for member in cluster.members if member is not victim]
    affected = sorted({connector for connector, _ in owned})

    def moved() -> bool:
        round_started = time.monotonic()
        now = placements_seen_by(survivors, affected)
        trials.poll_rounds_ms.append((time.monotonic() - round_started) * 1000)
        if now is None:
            return False
        elsewhere = all(p.state == "RUNNING" and any(s.is_worker(p.worker_id) for s in survivors) for p in now)
        return elsewhere and {(p.connector, p.task) for p in now} >= set(owned)

    signalled_at = signal(cluster, victim, plan.fault)
    try:
        sinks.send_markers(plan.fault.name.lower())
        tasks_at = data_at = None
        while time.monotonic() < signalled_at + plan.bound and (tasks_at is None or data_at is None):
            if tasks_at is None and moved():
                tasks_at = time.monotonic()
            if data_at is None and sinks.watch.arrived():
                data_at = time.monotonic()
            time.sleep(POLL_INTERVAL_S)
    finally:
        if plan.fault is Fault.STOP:
            cluster.kill(victim)  # SIGKILL ends a stopped process too; it is then restarted like a killed one
        elif plan.fault is Fault.TERM:
            cluster.reap(victim, REAP_TIMEOUT_S)
    took, data_took = _within(signalled_at, tasks_at, plan.bound), _within(signalled_at, data_at, plan.bound)
    trials.waits.append(took)
    trials.data_waits.append(data_took)
    trials.moved.append(len(owned))
    log.info(
        "%s: work %s, data %s",
        plan.fault.value,
        f"moved after {took:.2f} s" if took is not None else f"not moved in {plan.bound:.0f} s",
        f"flowing after {data_took:.2f} s" if data_took is not None else f"not flowing in {plan.bound:.0f} s",
    )


def disturbed_by(before: Sequence[Placement], now: Sequence[Placement]) -> set[tuple[str, int | None]]:
    """Connector instances and tasks that are not RUNNING where they were, or gone."""
    where = {(p.connector, p.task): p.worker_id for p in now if p.state == "RUNNING"}
    return {(p.connector, p.task) for p in before if where.get((p.connector, p.task)) != p.worker_id}


def watch_pause(
    work: FailoverWork, victim: ClusterMember, before: Sequence[Placement], plan: FaultPlan, trials: FaultLog
) -> None:
    """SIGSTOP for `PAUSE_S`, then SIGCONT; everything is watched until `plan.bound` after the SIGSTOP."""
    cluster, sinks = work.cluster, work.sinks
    survivors = [member for member in cluster.members if member is not victim]
    disturbed: set[tuple[str, int | None]] = set()
    data_at = None
    paused_at = cluster.pause(victim)
    resume_at, watch_until = paused_at + PAUSE_S, paused_at + plan.bound
    resumed = False
    try:
        sinks.send_markers("pause")
        while time.monotonic() < watch_until:
            if not resumed and time.monotonic() >= resume_at:
                cluster.resume(victim)
                resumed = True
            round_started = time.monotonic()
            now = placements_seen_by(survivors, work.names)
            trials.poll_rounds_ms.append((time.monotonic() - round_started) * 1000)
            if now is not None:
                disturbed |= disturbed_by(before, now)
            if data_at is None and sinks.watch.arrived():
                data_at = time.monotonic()
            next_step = resume_at if not resumed else watch_until
            time.sleep(max(min(POLL_INTERVAL_S, next_step - time.monotonic()), 0.0))
    finally:
        if not resumed:
            cluster.resume(victim)
    trials.disturbed.append(len(disturbed))
    trials.data_waits.append(_within(paused_at, data_at, plan.bound))
    log.info("pause: %d stopped or moved%s", len(disturbed), f": {sorted(disturbed)}" if disturbed else "")
