"""Distributed mode: a restart of the cluster's only broker, which must move no work.

The same clusters and work as the failover group (3 workers, FileStreamSource and FileStreamSink
connectors, kconnect next to Java at delay 0 and at its default), but the fault is the broker's: a
graceful stop and a start on the same ports and log. The group coordinator is gone meanwhile, so no
heartbeat is answered; a runtime that took that for the loss of its members would stop and move tasks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence

from bench.harness import ClusterVariant, Record, RunContext, short_reason
from bench.results import BenchmarkResult, SystemResult
from bench.scenarios.failover import JAVA_NO_DELAY, cluster_settings, create_work, variants
from bench.scenarios.failover_faults import POLL_INTERVAL_S, FailoverWork, FaultLog, disturbed_by
from bench.scenarios.failover_placement import placements_seen_by, wait_steady
from bench.scenarios.failover_sinks import SINK_CONNECTORS, SINK_PARTITIONS, SINK_TASKS
from bench.settings import HEARTBEAT_INTERVAL_MS, SESSION_TIMEOUT_MS
from bench.systems.cluster import Placement, WorkerCluster
from local_kafka import LocalKafka

log = logging.getLogger(__name__)

GROUP = "broker-restart"
NAME = "failover-broker-restart"
# Watched after the broker is back: longer than a session, so a member that let its session lapse
# while the broker was away has rejoined (and moved work) within it.
WATCH_AFTER_S = 15.0
# Until the markers sent once the broker is back are in every sink output; counted as the bound if not.
DATA_BOUND_S = 60.0
BROKER_STOP_TIMEOUT_S = 30.0
TITLE = "Restart of the only broker under 3 distributed workers: work stopped or moved"
METRICS = ("disturbed", "trials_disturbed", "data_p50_s", "data_p99_s")
METHOD = (
    "The clusters and work of the failover group (each its own cluster of 3 workers with `session.timeout.ms="
    f"{SESSION_TIMEOUT_MS}` and `heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}`, {{connectors}} FileStreamSource "
    f"connectors and {SINK_CONNECTORS} FileStreamSink connectors of {SINK_TASKS} tasks over topics of "
    f"{SINK_PARTITIONS} partitions; kconnect, Java at `scheduled.rebalance.max.delay.ms=0` and Java at its "
    "default). Per trial: wait until every connector and task is RUNNING, balanced, and records produced to "
    "every sink partition reach the sinks' files; then stop the run's only broker gracefully (SIGTERM, its "
    "controlled shutdown) and start it again on the same ports and log, waiting until it serves as a broker "
    "(the outage, mean in Details). From the stop until "
    f"{WATCH_AFTER_S:.0f} s after the broker is back, every connector's status is polled on the workers every "
    f"{POLL_INTERVAL_S * 1000:.0f} ms, and every connector instance or task seen not RUNNING on the worker it ran "
    "on before, or gone, counts as disturbed. Data: once the broker is back, one record is produced to every "
    "sink partition, timed from the broker's return until all are in the sinks' files (bound "
    f"{DATA_BOUND_S:.0f} s). Trials: {{trials}} per cluster. The target is no connector or task disturbed."
)


def restart_broker(broker: LocalKafka) -> float:
    """Stop and start the broker; returns how long it was away."""
    stopped_at = time.monotonic()
    broker.stop(BROKER_STOP_TIMEOUT_S)
    broker.start()
    return time.monotonic() - stopped_at


def watch_restart(work: FailoverWork, broker: LocalKafka, before: Sequence[Placement], trials: FaultLog) -> float:
    """One restart, watched on every worker; returns the outage in seconds."""
    members, sinks = work.cluster.members, work.sinks
    outage: list[float] = []
    failure: list[BaseException] = []

    def restart() -> None:
        try:
            outage.append(restart_broker(broker))
        except BaseException as error:
            failure.append(error)

    restarter = threading.Thread(target=restart, name="broker-restart")
    disturbed: set[tuple[str, int | None]] = set()
    started = time.monotonic()
    restarter.start()
    back_at = data_at = None
    watch_until = float("inf")
    while time.monotonic() < watch_until:
        round_started = time.monotonic()
        now = placements_seen_by(members, work.names)
        trials.poll_rounds_ms.append((time.monotonic() - round_started) * 1000)
        if now is not None:
            disturbed |= disturbed_by(before, now)
        if back_at is None and not restarter.is_alive():
            if failure:
                raise failure[0]
            back_at = time.monotonic()
            watch_until = back_at + WATCH_AFTER_S
            work.admin.reconnect()
            sinks.send_markers("broker-restart")
        if back_at is not None and data_at is None and sinks.watch.arrived():
            data_at = time.monotonic()
        time.sleep(POLL_INTERVAL_S)
    assert back_at is not None
    while data_at is None and time.monotonic() < back_at + DATA_BOUND_S:
        if sinks.watch.arrived():
            data_at = time.monotonic()
        time.sleep(POLL_INTERVAL_S)
    trials.disturbed.append(len(disturbed))
    trials.data_waits.append(None if data_at is None else data_at - back_at)
    log.info(
        "broker restart: away %.1f s (after %.1f s of watching), %d stopped or moved%s",
        outage[0],
        back_at - started,
        len(disturbed),
        f": {sorted(disturbed)}" if disturbed else "",
    )
    return outage[0]


def measure(ctx: RunContext, broker: LocalKafka, work: FailoverWork, label: str) -> SystemResult:
    trials = FaultLog(DATA_BOUND_S)
    outages = []
    for turn in range(ctx.sizes.broker_restart_trials):
        before = wait_steady(work.cluster, work.names, work.tasks)
        work.sinks.wait_flowing(work.admin)
        log.info("broker restart %d under %s", turn + 1, label)
        outages.append(watch_restart(work, broker, before, trials))
    return trials.disturbance_row(label, mean_outage_s=round(sum(outages) / len(outages), 2))


def run(ctx: RunContext) -> list[BenchmarkResult]:
    rows: dict[str, SystemResult] = {}
    for variant in variants(ctx.systems):

        def body(cluster: WorkerCluster, record: Record, variant: ClusterVariant = variant) -> None:
            record(NAME, measure_cluster(ctx, cluster, variant))

        rows.update(ctx.each_cluster([NAME], body, [variant])[NAME])
    return [entry(ctx, rows)]


def measure_cluster(ctx: RunContext, cluster: WorkerCluster, variant: ClusterVariant) -> SystemResult:
    if ctx.broker is None:
        return SystemResult.not_measurable(variant.label, "the run has no broker of its own to restart")
    work = create_work(ctx, cluster)
    try:
        return measure(ctx, ctx.broker, work, variant.label)
    except Exception as error:
        log.exception("%s failed in %s", variant.label, NAME)
        return SystemResult.failed(variant.label, short_reason(error))
    finally:
        work.sinks.close(ctx)
        ctx.admin.delete_topics(work.topics)


def entry(ctx: RunContext, rows: Mapping[str, SystemResult]) -> BenchmarkResult:
    sizes = ctx.sizes
    return ctx.entry(
        NAME,
        GROUP,
        TITLE,
        "broker restart",
        METHOD.format(connectors=sizes.failover_connectors, trials=sizes.broker_restart_trials),
        METRICS,
        rows,
        comparisons=(),
        ratio_metrics=(),  # a ratio of nothing disturbed to nothing disturbed says nothing
        settings={
            **cluster_settings(ctx),
            "trials": sizes.broker_restart_trials,
            "watched_after_return_s": WATCH_AFTER_S,
            "data_bound_s": DATA_BOUND_S,
            "java_rows": f"{JAVA_NO_DELAY} and the default delay",
        },
    )
