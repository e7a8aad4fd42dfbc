"""Distributed mode: faults of one of 3 workers (kill -9, SIGSTOP, SIGTERM, a 1.5 s pause), and source throughput.

Each row of the failover tables is its own cluster of 3 distributed workers, which takes every fault in
turn; the throughput table (1 and 4 FileStreamSource tasks, as in the source group) is measured first,
before any fault, on the kconnect cluster and on the Java cluster with delay 0, which this group starts
anyway. FAULT_METHOD below says how a trial is measured; it is printed with each table.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.harness import ClusterVariant, Record, RunContext, short_reason
from bench.results import BenchmarkResult, Reference, SystemResult
from bench.scenarios import source
from bench.scenarios.failover_faults import PAUSE_S, PAUSE_WATCH_S, FailoverWork, Fault, FaultPlan, run_trials
from bench.scenarios.failover_sinks import SINK_CONNECTORS, SINK_PARTITIONS, SINK_TASKS, FailoverSinks
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
from bench.systems.base import WorkerSystem
from bench.systems.cluster import WorkerCluster

log = logging.getLogger(__name__)

GROUP = "failover"
NAMES = {
    Fault.KILL: "failover-kill",
    Fault.STOP: "failover-stop",
    Fault.TERM: "failover-term",
    Fault.PAUSE: "failover-pause",
}
THROUGHPUT_NAME = f"source-distributed-{TASKS_SIZE}"
JAVA_NO_DELAY = "java-connect-delay-0"
# The clusters that also measure source throughput, and the row key each gets in that table.
THROUGHPUT_ROWS = {KCONNECT: KCONNECT, JAVA_NO_DELAY: JAVA_CONNECT}
THROUGHPUT_METHOD = (
    f"{source.TASKS_METHOD} Here against the clusters of {CLUSTER_WORKERS} distributed workers started for the "
    "failover tables above, before any fault (Java's is the one with `scheduled.rebalance.max.delay.ms=0`, a key "
    "that only matters once a worker leaves). Connectors are created through one worker and placed by the "
    "cluster, so the time includes that placement (a group rebalance in Java, a slot placement in kconnect)."
)
# p99 first: the plot shows the first two, and the targets are p99s.
MOVE_METRICS = ("p99_s", "data_p99_s", "p50_s", "data_p50_s")
PAUSE_METRICS = ("disturbed", "trials_disturbed", "data_p50_s", "data_p99_s")
# kconnect's targets at p99 (issue: failover in under 3 seconds), work and data both; the pause moves nothing.
TARGETS_S = {Fault.KILL: 3.0, Fault.STOP: 6.0, Fault.TERM: 1.5}
TITLES = {
    Fault.KILL: "kill -9 of one of 3 distributed workers until its work runs elsewhere and data flows again",
    Fault.STOP: "SIGSTOP of one of 3 distributed workers (a hung process) until its work runs elsewhere",
    Fault.TERM: "SIGTERM of one of 3 distributed workers (a graceful stop) until its work runs elsewhere",
    Fault.PAUSE: f"One of 3 distributed workers paused {PAUSE_S} s (SIGSTOP, SIGCONT): work stopped or moved",
}
FAULT_HOW = {
    Fault.KILL: "kill -9 of the victim's process group; afterwards it is started again on its port, so with the "
    "same worker id, and waited for until healthy.",
    Fault.STOP: "SIGSTOP of the victim's process group (no connection closes; the process neither answers nor "
    "heartbeats); once both waits are over (or the bound passed) it is killed with SIGKILL and started again as "
    "after a kill.",
    Fault.TERM: "SIGTERM of the victim's process group, a graceful stop in which the worker hands its work over; "
    "it is reaped once both waits are over and started again as after a kill.",
    Fault.PAUSE: f"SIGSTOP of the victim's process group and SIGCONT {PAUSE_S} s later (plus up to one poll "
    f"round); from the SIGSTOP until {PAUSE_WATCH_S:.0f} s after the SIGCONT every connector's status is polled "
    "on the other workers, and every connector instance or task seen not RUNNING on the worker it ran on before "
    "the pause, or gone, counts as disturbed (a stop and restart on the same worker between two polls, "
    "50 ms apart, would not be seen). Data: the markers sent right after the SIGSTOP, timed until all are in the "
    "outputs; the paused worker's sink partitions can only be written after the SIGCONT.",
}
FAULT_METHOD = (
    "Three rows, each its own cluster of 3 workers with `session.timeout.ms=10000` and "
    "`heartbeat.interval.ms=2000`: kconnect (`kconnect worker`), Java Kafka Connect with "
    "`scheduled.rebalance.max.delay.ms=0`, and Java with that key at its default, 300000 (the leader's assignor "
    "keeps a departed worker's connectors and tasks unassigned for up to 5 minutes, waiting for it to come back). "
    "Each cluster runs {connectors} FileStreamSource connectors (`tasks.max=1`), each tailing its own empty file, "
    f"and {SINK_CONNECTORS} FileStreamSink connectors of {SINK_TASKS} tasks (`tasks.max={SINK_TASKS}`), each "
    f"reading its own topic of {SINK_PARTITIONS} partitions into its own file: {{tasks}} tasks, and every sink "
    "task's consumer with the system's default settings (Java's sink consumers keep the consumer's 45 s "
    "session). Per trial: (1) wait until every connector and task is RUNNING on a live worker, and every worker "
    "runs a task (balance is waited for up to 30 s), then until one record produced to every sink partition is "
    "in the sinks' files (every sink consumer has its partitions); (2) pick the worker with the most tasks (ties "
    "in turn); (3) {how} Right after the signal, one record is produced to every partition of both sink topics "
    "(acks=all). Two times run from just before the signal: until the victim's connector instances and tasks "
    "all report RUNNING with a survivor's worker id in `GET /connectors/{{c}}/status` on a survivor (work), and "
    "until every one of those records is in a sink's file (data; FileStreamSink flushes its file at each offset "
    "commit, every 250 ms here, in both systems). A wait not over within the bound counts as the bound, shown "
    'as "> bound". Both polls run every 50 ms, so each time includes up to one poll round (its mean is in '
    "Details). Java's delay applies only when a follower leaves: a new leader has no record of the previous "
    "assignment and hands out everything at once, so the default-delay row hits only followers (the leader is "
    "read from the workers' logs), and the other rows say in Details how many of their trials hit the leader."
)


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


def plans(ctx: RunContext, variant_key: str) -> list[FaultPlan]:
    """The faults each cluster takes, in order; Java's default delay makes each of its trials take minutes."""
    sizes = ctx.sizes
    pause_bound = PAUSE_S + PAUSE_WATCH_S
    if variant_key != JAVA_CONNECT:
        trials, bound = sizes.failover_trials, sizes.failover_bound_seconds
        return [FaultPlan(fault, trials, bound) for fault in (Fault.KILL, Fault.STOP, Fault.TERM)] + [
            FaultPlan(Fault.PAUSE, trials, pause_bound)
        ]
    # A new leader has no record of the previous assignment, so the delay applies only to followers.
    bound = sizes.failover_default_bound_seconds
    return [
        FaultPlan(Fault.KILL, sizes.failover_default_kills, bound, spare_leader=True),
        FaultPlan(Fault.STOP, sizes.failover_default_signal_trials, bound, spare_leader=True),
        FaultPlan(Fault.TERM, sizes.failover_default_signal_trials, bound, spare_leader=True),
        FaultPlan(Fault.PAUSE, sizes.failover_default_kills, pause_bound, spare_leader=True),
    ]


def create_work(ctx: RunContext, cluster: WorkerCluster) -> FailoverWork:
    topic = ctx.unique("failover")
    ctx.admin.create_topic(topic)
    names = [f"failover-{index}" for index in range(ctx.sizes.failover_connectors)]
    files = cluster.workdir / "inputs"
    files.mkdir(parents=True, exist_ok=True)
    for name in names:
        (files / f"{name}.txt").touch()
        config = {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(files / f"{name}.txt"), "topic": topic}
        cluster.rest.create(name, config)
    sinks = FailoverSinks.create(ctx, cluster)
    return FailoverWork(cluster, sinks, names + sinks.names, len(names) + sinks.tasks, [topic], ctx.admin)


def measure_faults(ctx: RunContext, cluster: WorkerCluster, variant: ClusterVariant, record: Record) -> None:
    work = create_work(ctx, cluster)
    try:
        for plan in plans(ctx, variant.key):
            name = NAMES[plan.fault]
            try:
                trials = run_trials(work, plan)
                row = trials.row(variant.label) if plan.fault.moves_work else trials.pause_row(variant.label)
            except Exception as error:
                log.exception("%s failed in %s", variant.label, name)
                row = SystemResult.failed(variant.label, short_reason(error))
            record(name, row)
    finally:
        work.sinks.close(ctx)
        ctx.admin.delete_topics(work.topics)


def run(ctx: RunContext) -> list[BenchmarkResult]:
    sizes = ctx.sizes
    fault_rows: dict[str, dict[str, SystemResult]] = {name: {} for name in NAMES.values()}
    throughput_rows: dict[str, SystemResult] = {}
    value_size = VALUE_SIZES[TASKS_SIZE]
    inputs = source.task_inputs(ctx.scratch("distributed-source"), value_size, sizes.distributed_source_records)
    for variant in variants(ctx.systems):
        # Throughput on the clusters started for the faults anyway: Java's is the one with delay 0,
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
            measure_faults(ctx, cluster, variant, record)

        names = [*NAMES.values(), *([THROUGHPUT_NAME] if measures_throughput else [])]
        rows = ctx.each_cluster(names, body, [variant])
        for name in NAMES.values():
            fault_rows[name].update(rows[name])
        if measures_throughput:
            throughput_rows[THROUGHPUT_ROWS[variant.key]] = rows[THROUGHPUT_NAME][variant.key]
    return [
        *(fault_entry(ctx, fault, fault_rows[name]) for fault, name in NAMES.items()),
        throughput_entry(ctx, throughput_rows),
    ]


def cluster_settings(ctx: RunContext) -> dict[str, object]:
    """What every cluster of the failover tables runs with, for the settings of each table."""
    return {
        "session.timeout.ms": SESSION_TIMEOUT_MS,
        "heartbeat.interval.ms": HEARTBEAT_INTERVAL_MS,
        "source_connectors": ctx.sizes.failover_connectors,
        "sink_connectors": SINK_CONNECTORS,
        "sink_tasks": SINK_TASKS,
        "sink_partitions": SINK_PARTITIONS,
    }


def fault_entry(ctx: RunContext, fault: Fault, rows: Mapping[str, SystemResult]) -> BenchmarkResult:
    sizes = ctx.sizes
    method = FAULT_METHOD.format(
        connectors=sizes.failover_connectors,
        tasks=sizes.failover_connectors + SINK_CONNECTORS * SINK_TASKS,
        how=FAULT_HOW[fault],
    )
    default_trials = (
        sizes.failover_default_signal_trials if fault in (Fault.STOP, Fault.TERM) else sizes.failover_default_kills
    )
    if fault.moves_work:
        method += (
            f" Trials: {sizes.failover_trials} per row (Java default: {default_trials}, as each takes about 5 "
            f"minutes unless cut off); bounds {sizes.failover_bound_seconds:.0f} s (Java default: "
            f"{sizes.failover_default_bound_seconds:.0f} s). kconnect's target is {TARGETS_S[fault]} s at p99, "
            "work and data."
        )
        metrics: tuple[str, ...] = MOVE_METRICS
        ratios: tuple[str, ...] = ("p99_s", "data_p99_s")
    else:
        method += (
            f" Trials: {sizes.failover_trials} per row (Java default: {default_trials}). The target is no "
            "connector or task disturbed."
        )
        metrics, ratios = PAUSE_METRICS, ()  # a ratio of nothing disturbed to nothing disturbed says nothing
    settings: dict[str, object] = {
        **cluster_settings(ctx),
        "trials": sizes.failover_trials,
        "java_default_trials": default_trials,
    }
    if fault.moves_work:
        settings.update(
            bound_s=sizes.failover_bound_seconds,
            java_default_bound_s=sizes.failover_default_bound_seconds,
            target_p99_s=TARGETS_S[fault],
        )
    else:
        settings.update(pause_s=PAUSE_S, watched_after_resume_s=PAUSE_WATCH_S)
    return ctx.entry(
        NAMES[fault],
        GROUP,
        TITLES[fault],
        fault.value,
        method,
        metrics,
        rows,
        comparisons=(
            (Reference("Java Connect, delay 0", JAVA_NO_DELAY), Reference("Java Connect, default delay", JAVA_CONNECT))
            if ratios
            else ()
        ),
        ratio_metrics=ratios,
        settings=settings,
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
