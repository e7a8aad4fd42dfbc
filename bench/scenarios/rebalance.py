"""Distributed mode: a 4th worker joins 3 that run 100 connectors of 4 rate-limited source tasks, and workers
restart: the time until the cluster is balanced, the throughput of the tasks the join leaves alone, and what
else a restart moves.

Each row is its own cluster (`RunContext.each_cluster`): kconnect, Java Kafka Connect with
`scheduled.rebalance.max.delay.ms=0` and, when the sizes ask for it, Java with its default delay. In each, in
order (`rebalance_session.py`): the workload is created and balanced on 3 workers; a 4th joins, leaves (SIGTERM)
and joins again as often as the sizes say; then one worker after another is restarted. The METHOD texts below
say exactly what is measured; they are printed with the tables.
"""

from __future__ import annotations

import logging
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.harness import ClusterVariant, Record, RunContext, cluster_mode
from bench.results import BenchmarkResult, Detail, Metric, Reference, SystemResult
from bench.scenarios.rebalance_session import (
    CHANGE_BOUND_S,
    CONNECTORS,
    PAYLOAD_BYTES,
    POLL_INTERVAL_S,
    STABLE_S,
    TASK_RATE,
    TASKS,
    TASKS_PER_CONNECTOR,
    Join,
    Restart,
    Session,
)
from bench.settings import (
    CLUSTER_WORKERS,
    DATAGEN,
    HEARTBEAT_INTERVAL_MS,
    JAVA_DEFAULT_REBALANCE_DELAY_MS,
    REBALANCE_DELAY_KEY,
    SESSION_TIMEOUT_MS,
    VERIFIABLE_SOURCE,
    Sizes,
)
from bench.systems.base import WorkerSystem
from bench.systems.cluster import ClusterMember, WorkerCluster
from bench.systems.java import JavaConnect

log = logging.getLogger(__name__)

GROUP = "rebalance"
JOIN_NAME = "rebalance-join"
THROUGHPUT_NAME = "rebalance-throughput"
RESTART_NAME = "rebalance-restart"
NAMES = (JOIN_NAME, THROUGHPUT_NAME, RESTART_NAME)
JAVA_NO_DELAY = "java-connect-delay-0"
WORKER_MODE = f"{cluster_mode(CLUSTER_WORKERS)} + 1 joining"
TARGET_PCT = 90.0
TIMES = "\u00d7"  # ruff flags the character itself as a look-alike

JOIN_METRICS = ("from_start_s", "from_rest_s")
THROUGHPUT_METRICS = ("unaffected_pct", "worst_window_pct")
RESTART_METRICS = ("settle_s", "its_tasks_down_s", "collateral_tasks", "task_moves", "group_rounds")

WORKLOAD = (
    f"Each row is its own cluster of {CLUSTER_WORKERS} workers (`session.timeout.ms={SESSION_TIMEOUT_MS}`, "
    f"`heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}`, the run's one broker) running {CONNECTORS} connectors "
    f"{TIMES} {TASKS_PER_CONNECTOR} source tasks = {TASKS} tasks, each rate-limited to {TASK_RATE} records/s "
    "into its connector's own 1-partition topic, created through one worker before anything is timed: kconnect "
    f"runs its `{DATAGEN}` (`records.per.second={TASK_RATE * TASKS_PER_CONNECTOR}` split over the 4 tasks, "
    f"{PAYLOAD_BYTES}-byte payloads, key `<task>-<seq>`), Java Kafka's own `{VERIFIABLE_SOURCE}` from "
    f"connect-test-plugins (`throughput={TASK_RATE}` per task, key `<task>`, value the sequence number). Not the "
    "same code, so per-task cost differs; the test plugin also prints two JSON lines per record to the worker's "
    "stdout (a log file here). Balanced means: every connector and task RUNNING, and each live worker running "
    "⌊400/w⌋ or ⌈400/w⌉ tasks, the new or restarted worker included, read from `GET /connectors?expand=status` "
    f"on a worker the change does not touch, polled every {POLL_INTERVAL_S} s, and still so {STABLE_S:.0f} s "
    "later; a time is that of the first poll of that balanced run. Group rounds are the generations the broker's "
    "group coordinator stabilized the workers' group at (its log), i.e. rebalances of the group; kconnect's own "
    "balancer moves (placements in its slots topic, no group round) are counted apart in Details."
)
JOIN_METHOD = (
    WORKLOAD
    + " Per join: after a steady window of {steady:.0f} s without change, a 4th worker is started; from process "
    "start counts from its spawn (for Java that includes the JVM start), from REST ready from its first 200 on "
    "`GET /health`, polled every 20 ms on a thread of its own. Both answer it only after the join's rebalance has "
    "begun, but not at the same point: kconnect once the group has given it its first slots (the moved tasks are "
    "then about to start on it), Java once its herder has applied its first assignment, which under load can come "
    "as late as the balanced poll (a figure near 0). The plot also marks when the new worker joined the group "
    "(the broker's first `Preparing to rebalance` line after the spawn). Between joins the 4th worker is "
    "stopped with SIGTERM, a graceful leave (Details: seconds until the 3 are balanced again). {joins} joins per "
    "row; Java's default-delay row joins once, as after a leave it keeps the leaver's tasks unassigned for up "
    f"to {JAVA_DEFAULT_REBALANCE_DELAY_MS // 60_000} minutes, waiting for it to come back; the key plays no part in a "
    "join."
)
THROUGHPUT_METHOD = (
    "Measured during the joins above. A consumer in the harness reads every output topic from the beginning and "
    "counts records per task per 0.5 s window of the record timestamps (the producing worker's clock). Unaffected "
    "tasks: RUNNING on the same worker in every status poll from before the join to the end of the balanced "
    "run. The rebalance window runs from the new worker joining the group (the broker's first `Preparing to "
    "rebalance` line after the spawn) or its REST answering, whichever came first, to the balanced poll; the "
    "steady window is the {steady:.0f} s before the spawn. Unaffected tasks' throughput = their records per window "
    "in the rebalance window ÷ per window in the steady window; worst window = the lowest single 0.5 s window "
    "÷ the same steady mean. A delayed task catches up afterwards (datagen by at most 1 s worth of records, "
    "VerifiableSource all of it), so the mean can hold while a window dips. Target: ≥ "
    f"{TARGET_PCT:.0f} %. Details: the same ratio counted from the spawn, whose start-up takes CPU from the "
    "others on this machine's 2 cores. The plot below shows records/s per task around the first join of each row."
)
RESTART_METHOD = (
    "On the same clusters after the joins, so with 4 workers running 100 tasks each: after a steady window, one "
    "worker is stopped with SIGTERM and, once its process has exited, started again with the same config on the "
    "same port (so with the same worker id); settled = from the signal until balanced as above. The harness reads "
    "the cluster's status topic (Kafka Connect's records in both systems: RUNNING when a task starts, UNASSIGNED "
    "when it stops) and replays the task records written from the signal to the end of the balanced run: a task "
    "move is a task RUNNING on another worker than the one it ran on before; other workers' tasks touched counts "
    "the tasks the restarted worker did not run that were nevertheless stopped or started somewhere (a rebalance "
    "storm moves many of them). The restarted worker's own tasks run elsewhere meanwhile unless the system waits "
    "for it to come back: its tasks down is, per restart, the longest time one of them was down, from the signal "
    "to its first RUNNING record anywhere (Details: the median over all of them). Java's "
    "default delay waits longer than for the worker to come back: the restarted worker rejoins with an empty "
    "assignment and the rest of the delay, and gets its tasks only when the delay has passed, about 5 minutes "
    "after the signal. {restarts} restarts per row ({default} for Java's default delay, with a bound of "
    "{default_bound:.0f} s instead of {bound:.0f} s). Java rows restart "
    "followers only (the leader is read from the workers' logs): a new leader has no record of the previous "
    "assignment and hands the leaver's tasks out at once, another case."
)


# Java's default delay keeps a restarted worker's tasks unassigned until the delay has passed, even once it is back.
DEFAULT_DELAY_BOUND_S = JAVA_DEFAULT_REBALANCE_DELAY_MS / 1000 + 120


@dataclass(frozen=True)
class Plan:
    joins: int
    restarts: int
    restart_bound_s: float = CHANGE_BOUND_S


def with_test_connectors(system: WorkerSystem) -> WorkerSystem:
    """Java Connect with Kafka's test connectors on its classpath (its other benchmarks run without them)."""
    return JavaConnect(system.jars.with_tools(), system.version) if isinstance(system, JavaConnect) else system


def variants(systems: Sequence[WorkerSystem]) -> list[ClusterVariant]:
    by_key = {system.key: system for system in systems}
    java = with_test_connectors(by_key[JAVA_CONNECT])
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


def plan_for(variant: ClusterVariant, sizes: Sizes) -> Plan | None:
    """What a cluster does; None when the sizes leave it out."""
    if variant.key == JAVA_CONNECT:
        restarts = sizes.rebalance_default_restarts
        return Plan(1, restarts, DEFAULT_DELAY_BOUND_S) if restarts > 0 else None
    return Plan(sizes.rebalance_joins, sizes.rebalance_restarts)


def restart_victim(cluster: WorkerCluster, turn: int) -> ClusterMember:
    """The live members in turn, never the group's leader where the system names one."""
    leader = cluster.leader()
    candidates = [member for member in cluster.alive() if member is not leader]
    if not candidates:
        raise RuntimeError("no worker that may be restarted")
    return candidates[turn % len(candidates)]


def measure(ctx: RunContext, cluster: WorkerCluster, record: Record, plan: Plan, label: str) -> None:
    session = Session.open(ctx, cluster)
    try:
        newcomer = cluster.add_member()
        joins: list[Join] = []
        leaves: list[float | None] = []
        for index in range(plan.joins):
            if index:
                leaves.append(session.leave(newcomer))
            joins.append(session.join(newcomer, with_series=index == 0))
        extra: dict[str, Detail] = {"setup_s": round(session.setup_s, 1), "setup_group_rounds": session.setup_rounds}
        record(JOIN_NAME, join_row(label, joins, leaves, extra, session.poller.rounds_ms).in_mode(WORKER_MODE))
        record(THROUGHPUT_NAME, throughput_row(label, joins).in_mode(WORKER_MODE))
        restarts = [
            session.restart(restart_victim(cluster, turn), plan.restart_bound_s) for turn in range(plan.restarts)
        ]
        mode = cluster_mode(len(cluster.members))
        if restarts:
            record(RESTART_NAME, restart_row(label, restarts).in_mode(mode))
        else:
            record(RESTART_NAME, SystemResult.not_applicable(label, "no restart in this mode").in_mode(mode))
    finally:
        # Workers first: 400 producers would otherwise see their topics deleted under them.
        cluster.stop()
        session.close()


def run(ctx: RunContext) -> list[BenchmarkResult]:
    rows: dict[str, dict[str, SystemResult]] = {name: {} for name in NAMES}
    for variant in variants(ctx.systems):
        plan = plan_for(variant, ctx.sizes)
        if plan is None:
            reason = (
                "run in full mode only: its restart waits out the 5-minute delay, and the key plays no part in a join"
            )
            for name in NAMES:
                rows[name][variant.key] = SystemResult.not_applicable(variant.label, reason).in_mode(WORKER_MODE)
            continue

        def body(cluster: WorkerCluster, record: Record, plan: Plan = plan, label: str = variant.label) -> None:
            measure(ctx, cluster, record, plan, label)

        measured = ctx.each_cluster(NAMES, body, [variant])
        for name in NAMES:
            rows[name].update(measured[name])
    return [join_entry(ctx, rows[JOIN_NAME]), throughput_entry(ctx, rows[THROUGHPUT_NAME]), restart_entry(ctx, rows)]


# -- rows ---------------------------------------------------------------------------------------------


def bounded_seconds(values: Sequence[float | None], bound: float = CHANGE_BOUND_S) -> Metric:
    """Seconds per repetition; one that did not settle within the bound counts as the bound, marked `>`."""
    samples = tuple(bound if value is None else value for value in values)
    return Metric("s", False, samples, any(value is None for value in values))


def _median(values: Sequence[float]) -> Detail:
    return round(statistics.median(values), 2) if values else "n/a"


def join_row(
    label: str,
    joins: Sequence[Join],
    leaves: Sequence[float | None],
    extra: Mapping[str, Detail],
    poll_ms: Sequence[float],
) -> SystemResult:
    ready = [join.rest_ready_s for join in joins if join.rest_ready_s is not None]
    left = [leave for leave in leaves if leave is not None]
    details: dict[str, Detail] = {
        "joins": len(joins),
        "REST_ready_after_s": _median(ready),
        "tasks_moved": _median([join.moved for join in joins]),
        "group_rounds": _median([join.rounds for join in joins]),
        "leave_balanced_after_s": _median(left) if leaves else "no leave",
        "leaves_not_balanced_in_time": sum(leave is None for leave in leaves),
        **extra,
        "mean_status_poll_ms": round(statistics.fmean(poll_ms), 1) if poll_ms else "n/a",
    }
    if any(join.placements for join in joins):
        details["balancer_placements"] = _median([join.placements for join in joins])
    metrics = {
        "from_start_s": bounded_seconds([join.from_start_s for join in joins]),
        "from_rest_s": bounded_seconds([join.from_rest_s for join in joins]),
    }
    return SystemResult.measured(label, metrics, **details)


def throughput_row(label: str, joins: Sequence[Join]) -> SystemResult:
    metrics = {
        "unaffected_pct": Metric("%", True, tuple(100 * join.ratio.mean for join in joins)),
        "worst_window_pct": Metric("%", True, tuple(100 * join.ratio.worst for join in joins)),
    }
    for name, values in joins[0].series.items():
        unit = "records/s per task" if name.startswith("series_line_") else "s"
        metrics[name] = Metric(unit, True, tuple(values))
    pct = [100 * join.ratio.mean for join in joins]
    return SystemResult.measured(
        label,
        metrics,
        unaffected_tasks=_median([join.unaffected for join in joins]),
        from_spawn_pct=_median([100 * join.ratio_from_start.mean for join in joins]),
        target_met=f"{sum(value >= TARGET_PCT for value in pct)} of {len(pct)} joins",
    )


def longest(waits: Sequence[float | None]) -> float | None:
    """The longest of `waits`; None if one of them never ended (it is at least the bound)."""
    ended = [wait for wait in waits if wait is not None]
    return None if len(ended) < len(waits) else max(ended, default=0.0)


def restart_row(label: str, restarts: Sequence[Restart]) -> SystemResult:
    down = [value for restart in restarts for value in restart.down_s]
    came_back = [value for value in down if value is not None]
    leaders = [restart.leader for restart in restarts if restart.leader is not None]
    details: dict[str, Detail] = {
        "restarts": len(restarts),
        "restarted_worker_tasks": _median([restart.restarted_tasks for restart in restarts]),
        "its_tasks_started_elsewhere": _median(
            [len(restart.churn.touched_elsewhere - restart.churn.collateral) for restart in restarts]
        ),
        "its_tasks_down_median_s": _median(came_back),
        "its_tasks_not_back_in_time": len(down) - len(came_back),
        "restarts_in_place": sum(restart.churn.restarts_in_place for restart in restarts),
        "leader_restarted": f"{sum(leaders)} of {len(leaders)}" if leaders else "n/a",
    }
    if any(restart.placements for restart in restarts):
        details["balancer_placements"] = _median([restart.placements for restart in restarts])
    metrics = {
        "settle_s": bounded_seconds([restart.settle_s for restart in restarts], max(r.bound for r in restarts)),
        # Per restart, the longest time one of the restarted worker's tasks was down.
        "its_tasks_down_s": bounded_seconds(
            [longest(restart.down_s) for restart in restarts], max(r.bound for r in restarts)
        ),
        "collateral_tasks": Metric("tasks", False, tuple(len(restart.churn.collateral) for restart in restarts)),
        "task_moves": Metric("moves", False, tuple(restart.churn.moves for restart in restarts)),
        "group_rounds": Metric("rounds", False, tuple(restart.rounds for restart in restarts)),
    }
    return SystemResult.measured(label, metrics, **details)


# -- entries ------------------------------------------------------------------------------------------

COMPARISONS = (
    Reference("Java Connect, delay 0", JAVA_NO_DELAY),
    Reference("Java Connect, default delay", JAVA_CONNECT),
)


def _settings(ctx: RunContext) -> dict[str, object]:
    sizes = ctx.sizes
    return {
        "session.timeout.ms": SESSION_TIMEOUT_MS,
        "heartbeat.interval.ms": HEARTBEAT_INTERVAL_MS,
        "workers": CLUSTER_WORKERS,
        "connectors": CONNECTORS,
        "tasks": TASKS,
        "records_per_s_per_task": TASK_RATE,
        "steady_window_s": sizes.rebalance_steady_seconds,
        "stable_s": STABLE_S,
        "bound_s": CHANGE_BOUND_S,
        "java_default_restart_bound_s": DEFAULT_DELAY_BOUND_S,
        "joins": sizes.rebalance_joins,
        "restarts": sizes.rebalance_restarts,
        "java_default_restarts": sizes.rebalance_default_restarts,
        "brokers": ctx.brokers,
    }


def join_entry(ctx: RunContext, rows: Mapping[str, SystemResult]) -> BenchmarkResult:
    sizes = ctx.sizes
    return ctx.entry(
        JOIN_NAME,
        GROUP,
        f"A 4th worker joins 3 running {CONNECTORS} connectors {TIMES} {TASKS_PER_CONNECTOR} tasks: time to balance",
        "join",
        JOIN_METHOD.format(steady=sizes.rebalance_steady_seconds, joins=sizes.rebalance_joins),
        JOIN_METRICS,
        rows,
        comparisons=COMPARISONS,
        ratio_metrics=JOIN_METRICS,
        settings=_settings(ctx),
    )


def throughput_entry(ctx: RunContext, rows: Mapping[str, SystemResult]) -> BenchmarkResult:
    return ctx.entry(
        THROUGHPUT_NAME,
        GROUP,
        "Throughput of the tasks a join leaves in place, during the rebalance",
        "unaffected tasks",
        THROUGHPUT_METHOD.format(steady=ctx.sizes.rebalance_steady_seconds),
        THROUGHPUT_METRICS,
        rows,
        comparisons=COMPARISONS,
        ratio_metrics=("unaffected_pct",),
        settings={**_settings(ctx), "window_s": 0.5, "target_pct": TARGET_PCT},
    )


def restart_entry(ctx: RunContext, rows: Mapping[str, Mapping[str, SystemResult]]) -> BenchmarkResult:
    sizes = ctx.sizes
    return ctx.entry(
        RESTART_NAME,
        GROUP,
        "Restart of one of 4 workers (SIGTERM, start again): what else moves",
        "restart",
        RESTART_METHOD.format(
            restarts=sizes.rebalance_restarts,
            default=sizes.rebalance_default_restarts,
            default_bound=DEFAULT_DELAY_BOUND_S,
            bound=CHANGE_BOUND_S,
        ),
        RESTART_METRICS,
        rows[RESTART_NAME],
        comparisons=COMPARISONS,
        ratio_metrics=("settle_s",),
        settings=_settings(ctx),
    )
