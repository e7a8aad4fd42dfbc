"""Distributed mode: kill -9 of one of 3 workers until its work runs elsewhere, and source throughput.

Each row of the failover table is its own cluster of 3 distributed workers; the throughput table (1 and
4 FileStreamSource tasks, as in the source group) is measured first, before any kill, on the kconnect
cluster and on the Java cluster with delay 0, which this group starts anyway. KILL_METHOD below says how
a kill is measured; it is printed with the table.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.harness import ClusterVariant, Record, RunContext, short_reason, wait_until
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios import source
from bench.scenarios.source import TASKS_SIZE
from bench.settings import (
    CLUSTER_WORKERS,
    FILE_SOURCE,
    HEARTBEAT_INTERVAL_MS,
    JAVA_DEFAULT_REBALANCE_DELAY_MS,
    REBALANCE_DELAY_KEY,
    SESSION_TIMEOUT_MS,
    SOURCE_TASKS,
    VALUE_SIZES,
)
from bench.stats import bounded_percentile
from bench.systems.base import WorkerSystem
from bench.systems.cluster import ClusterMember, Placement, WorkerCluster, placements

log = logging.getLogger(__name__)

GROUP = "failover"
NAME = "failover-kill"
THROUGHPUT_NAME = f"source-distributed-{TASKS_SIZE}"
JAVA_NO_DELAY = "java-connect-delay-0"
# The clusters that also measure source throughput, and the row key each gets in that table.
THROUGHPUT_ROWS = {KCONNECT: KCONNECT, JAVA_NO_DELAY: JAVA_CONNECT}
THROUGHPUT_METHOD = (
    f"{source.TASKS_METHOD} Here against the clusters of {CLUSTER_WORKERS} distributed workers started for the "
    "failover table above, before any kill (Java's is the one with `scheduled.rebalance.max.delay.ms=0`, a key "
    "that only matters once a worker leaves). Connectors are created through one worker and placed by the "
    "cluster, so the time includes that placement (a group rebalance in Java, a slot placement in kconnect)."
)
METRICS = ("p50_s", "p99_s")
POLL_INTERVAL_S = 0.05
BALANCE_WAIT_S = 30.0
START_WAIT_S = 120.0
# kconnect's failover target: all of a killed worker's tasks RUNNING elsewhere within 3 s at p99, well inside
# the session timeout (the survivors see the process die and evict it from the group: docs/distributed.md).
TARGET_S = 3.0


KILL_METHOD = (
    "Three rows, each its own cluster of 3 workers with `session.timeout.ms=10000` and "
    "`heartbeat.interval.ms=2000`: kconnect (`kconnect worker`), Java Kafka Connect with "
    "`scheduled.rebalance.max.delay.ms=0`, and Java with that key at its default, 300000 (the leader's assignor "
    "keeps a departed worker's connectors and tasks unassigned for up to 5 minutes, waiting for it to come back). "
    "Each cluster runs {connectors} FileStreamSource connectors (`tasks.max=1`), each tailing its own empty file, "
    "so every task is RUNNING without anything outside the worker. Per kill: (1) wait until every connector and "
    "task is RUNNING on a live worker, and every worker runs a task (balance is waited for up to "
    f"{BALANCE_WAIT_S:.0f} s); (2) pick the worker with the most tasks (ties in turn); (3) kill -9 its process group "
    "and poll `GET /connectors/{{c}}/status` on a survivor for each connector the victim ran something of, until "
    "the victim's connector instances and tasks all report RUNNING with a survivor's worker id, or the bound "
    'passes (the kill then counts as the bound, shown as "> bound"); (4) start the victim again on its port, '
    "so with the same worker id, and wait until it is healthy. Java's delay applies only when a follower dies: a "
    "new leader has no record of the previous assignment and hands out everything at once, so the default-delay "
    "row kills only followers (the leader is read from the workers' logs), and the other rows say in Details "
    "how many of their kills hit the leader."
)


class FailoverError(RuntimeError):
    pass


@dataclass(frozen=True)
class KillPlan:
    kills: int
    bound: float
    spare_leader: bool = False  # kill only workers that are not the group's leader


@dataclass
class KillLog:
    """What the kills of one cluster gave: seconds per kill (None: not over within the bound)."""

    bound: float
    waits: list[float | None] = field(default_factory=list)
    moved: list[int] = field(default_factory=list)  # connectors + tasks the victim ran, per kill
    poll_rounds_ms: list[float] = field(default_factory=list)
    leader_kills: list[bool] = field(default_factory=list)  # per kill, where the system names a group leader

    def row(self, label: str) -> SystemResult:
        if not self.waits:
            raise FailoverError("no kill was measured")
        metrics = {}
        for metric, fraction in (("p50_s", 0.5), ("p99_s", 0.99)):
            value, at_least = bounded_percentile(self.waits, self.bound, fraction)
            metrics[metric] = Metric("s", False, (value,), at_least)
        observed = [wait for wait in self.waits if wait is not None]
        samples = tuple(wait if wait is not None else self.bound for wait in self.waits)
        metrics["each_kill_s"] = Metric("s", False, samples, len(observed) < len(self.waits))
        return SystemResult.measured(
            label,
            metrics,
            kills=len(self.waits),
            recovered_within_bound=len(observed),
            bound_s=self.bound,
            max_recovered_s=round(max(observed), 2) if observed else "none",
            moved_per_kill=round(sum(self.moved) / len(self.moved), 1),
            mean_poll_round_ms=round(sum(self.poll_rounds_ms) / max(len(self.poll_rounds_ms), 1), 1),
            group_leader_killed=f"{sum(self.leader_kills)} of {len(self.leader_kills)}" if self.leader_kills else "n/a",
        )


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


def task_counts(cluster: WorkerCluster, found: Sequence[Placement]) -> dict[str, int]:
    counts = {member.name: 0 for member in cluster.members}
    for placement in found:
        if placement.task is None:
            continue
        for member in cluster.members:
            if member.is_worker(placement.worker_id):
                counts[member.name] += 1
    return counts


def wait_steady(cluster: WorkerCluster, names: Sequence[str], tasks: int) -> list[Placement]:
    """All connectors and tasks RUNNING on live members; balanced (each member >= 1 task) if it comes in time."""
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
        wait_until(
            lambda: running() and min(task_counts(cluster, latest).values()) >= 1,
            BALANCE_WAIT_S,
            interval=0.2,
            what="a task on every worker",
        )
    except TimeoutError:
        log.info("not every worker runs a task after %.0f s: %s", BALANCE_WAIT_S, task_counts(cluster, latest))
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


def measure_kill(
    cluster: WorkerCluster, names: Sequence[str], turn: int, bound: float, kills: KillLog, spare_leader: bool
) -> ClusterMember:
    """One kill, logged into `kills`; returns the killed member."""
    found = wait_steady(cluster, names, len(names))
    leader = cluster.leader()
    victim = pick_victim(cluster, found, turn, leader if spare_leader else None)
    if leader is not None:
        kills.leader_kills.append(victim is leader)
    owned = [(p.connector, p.task) for p in found if victim.is_worker(p.worker_id)]
    affected = sorted({connector for connector, _ in owned})
    survivors = [member for member in cluster.members if member is not victim]
    log.info("kill %d: %s runs %s", turn + 1, victim.name, ", ".join(c if t is None else f"{c}/{t}" for c, t in owned))

    def over() -> bool:
        round_started = time.monotonic()
        now: list[Placement] | None = None
        for survivor in survivors:
            now = current_placements(survivor, affected)
            if now is not None:
                break
        kills.poll_rounds_ms.append((time.monotonic() - round_started) * 1000)
        if now is None:
            return False
        return all(p.state == "RUNNING" and any(s.is_worker(p.worker_id) for s in survivors) for p in now) and {
            (p.connector, p.task) for p in now
        } >= set(owned)

    killed_at = cluster.kill(victim)
    try:
        recovered_at = wait_until(over, bound, interval=POLL_INTERVAL_S, what="the victim's work RUNNING elsewhere")
    except TimeoutError:
        recovered_at = None
    # A round that began before the bound may end after it: that wait was not over within the bound either.
    took = None if recovered_at is None or recovered_at - killed_at > bound else recovered_at - killed_at
    kills.waits.append(took)
    kills.moved.append(len(owned))
    log.info(
        "kill %d: %s", turn + 1, f"moved after {took:.2f} s" if took is not None else f"not moved in {bound:.0f} s"
    )
    return victim


def measure_kills(ctx: RunContext, cluster: WorkerCluster, plan: KillPlan) -> KillLog:
    count, bound = plan.kills, plan.bound
    topic = ctx.unique("failover")
    ctx.admin.create_topic(topic)
    names = [f"failover-{index}" for index in range(ctx.sizes.failover_connectors)]
    files = cluster.workdir / "inputs"
    files.mkdir(parents=True, exist_ok=True)
    for name in names:
        (files / f"{name}.txt").touch()
        config = {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(files / f"{name}.txt"), "topic": topic}
        cluster.rest.create(name, config)
    kills = KillLog(bound)
    try:
        for turn in range(count):
            victim = measure_kill(cluster, names, turn, bound, kills, plan.spare_leader)
            if turn + 1 < count:
                cluster.restart(victim, START_WAIT_S)
    finally:
        ctx.admin.delete_topics([topic])
    return kills


def variants(systems: Sequence[WorkerSystem]) -> list[ClusterVariant]:
    """One per row, the long Java default last."""
    by_key = {system.key: system for system in systems}
    java = by_key[JAVA_CONNECT]
    return [
        ClusterVariant(KCONNECT, by_key[KCONNECT], by_key[KCONNECT].label),
        ClusterVariant(JAVA_NO_DELAY, java, f"{java.label}, {REBALANCE_DELAY_KEY}=0", {REBALANCE_DELAY_KEY: "0"}),
        ClusterVariant(
            JAVA_CONNECT,
            java,
            f"{java.label}, {REBALANCE_DELAY_KEY}={JAVA_DEFAULT_REBALANCE_DELAY_MS} (default)",
            {REBALANCE_DELAY_KEY: str(JAVA_DEFAULT_REBALANCE_DELAY_MS)},
        ),
    ]


def run(ctx: RunContext) -> list[BenchmarkResult]:
    sizes = ctx.sizes
    kill_rows: dict[str, SystemResult] = {}
    throughput_rows: dict[str, SystemResult] = {}
    plans = {
        KCONNECT: KillPlan(sizes.failover_kills, sizes.failover_bound_seconds),
        JAVA_NO_DELAY: KillPlan(sizes.failover_kills, sizes.failover_bound_seconds),
        # A new leader has no record of the previous assignment, so the delay applies only to followers.
        JAVA_CONNECT: KillPlan(sizes.failover_default_kills, sizes.failover_default_bound_seconds, spare_leader=True),
    }
    value_size = VALUE_SIZES[TASKS_SIZE]
    inputs = source.task_inputs(ctx.scratch("distributed-source"), value_size, sizes.distributed_source_records)
    for variant in variants(ctx.systems):
        # Throughput on the clusters started for the kills anyway: Java's is the one with delay 0,
        # which only matters once a worker leaves.
        measures_throughput = variant.key in THROUGHPUT_ROWS

        def body(cluster: WorkerCluster, record: Record, variant: ClusterVariant = variant) -> None:
            if variant.key in THROUGHPUT_ROWS:
                label = variant.system.label
                try:
                    row = source.measure_tasks(ctx, cluster, label, inputs, value_size, sizes.distributed_repetitions)
                except Exception as error:
                    log.exception("%s failed in %s", label, THROUGHPUT_NAME)
                    row = SystemResult.failed(label, short_reason(error))
                record(THROUGHPUT_NAME, row)
            record(NAME, measure_kills(ctx, cluster, plans[variant.key]).row(variant.label))

        names = [NAME, THROUGHPUT_NAME] if measures_throughput else [NAME]
        rows = ctx.each_cluster(names, body, [variant])
        kill_rows.update(rows[NAME])
        if measures_throughput:
            throughput_rows[THROUGHPUT_ROWS[variant.key]] = rows[THROUGHPUT_NAME][variant.key]
    return [kills_entry(ctx, kill_rows), throughput_entry(ctx, throughput_rows)]


def kills_entry(ctx: RunContext, rows: Mapping[str, SystemResult]) -> BenchmarkResult:
    sizes = ctx.sizes
    method = (
        KILL_METHOD.format(connectors=sizes.failover_connectors)
        + f" Kills: {sizes.failover_kills} per row (Java default: {sizes.failover_default_kills}, as each of its "
        f"kills takes about 5 minutes unless cut off); bounds {sizes.failover_bound_seconds:.0f} s (Java default: "
        f"{sizes.failover_default_bound_seconds:.0f} s). Times run from just before the signal to the end of the "
        "poll round that saw everything moved, so they include up to one poll round (its mean is in Details). "
        f"kconnect's target is {TARGET_S:.0f} s at p99."
    )
    return ctx.entry(
        NAME,
        GROUP,
        "kill -9 of one of 3 distributed workers until its connectors and tasks run elsewhere",
        "kill -9",
        method,
        METRICS,
        rows,
        comparisons=(
            Reference("Java Connect, delay 0", JAVA_NO_DELAY),
            Reference("Java Connect, default delay", JAVA_CONNECT),
        ),
        ratio_metrics=METRICS,
        settings={
            "session.timeout.ms": SESSION_TIMEOUT_MS,
            "heartbeat.interval.ms": HEARTBEAT_INTERVAL_MS,
            "connectors": sizes.failover_connectors,
            "kills": sizes.failover_kills,
            "bound_s": sizes.failover_bound_seconds,
            "java_default_kills": sizes.failover_default_kills,
            "java_default_bound_s": sizes.failover_default_bound_seconds,
            "target_p99_s": TARGET_S,
        },
    )


def throughput_entry(ctx: RunContext, rows: Mapping[str, SystemResult]) -> BenchmarkResult:
    sizes = ctx.sizes
    return ctx.entry(
        THROUGHPUT_NAME,
        GROUP,
        f"FileStreamSource → Kafka, {TASKS_SIZE} lines, 1 and {SOURCE_TASKS} tasks, "
        f"{CLUSTER_WORKERS} distributed workers",
        f"1 vs {SOURCE_TASKS} tasks",
        THROUGHPUT_METHOD,
        source.tasks_metrics((1, SOURCE_TASKS)),
        rows,
        comparisons=(Reference("Java Connect", JAVA_CONNECT),),
        ratio_metrics=(source.MANY_TASKS,),
        settings={
            "records": sizes.distributed_source_records,
            "value_bytes": VALUE_SIZES[TASKS_SIZE],
            "tasks": SOURCE_TASKS,
            "workers": CLUSTER_WORKERS,
            "warmups": sizes.warmups,
            "repetitions": sizes.distributed_repetitions,
            f"java-connect.{REBALANCE_DELAY_KEY}": 0,
        },
    )
