"""A standalone worker killed with SIGKILL and started again: seconds until its sink writes again.

The killed worker's sink consumer stays a member of its group until its session expires, and a group does
not finish a rebalance while a member has not rejoined. Kafka Connect's new consumer therefore waits out the
old one's session (the consumer's default, 45 s). kconnect's sink task evicts its predecessor, the member
with its own client id, before it joins (KIP-345's LeaveGroup on its behalf); the row without it gives each
task's consumer a client id of the user's (`consumer.override.client.id`), which turns the eviction off.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from bench.catalog import JAVA_CONNECT, KCONNECT
from bench.clients import new_producer
from bench.harness import STANDALONE_MODE, RunContext, short_reason, wait_until
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.settings import FILE_SINK, PRODUCER_SETTINGS
from bench.systems.base import RunningWorker, WorkerSystem, start_worker, stop_worker

NAME = "sink-restart"
GROUP = "startup"
KCONNECT_NO_EVICTION = "kconnect-no-eviction"
PARTITIONS = 3
BOUND_S = 120.0
# A trial without eviction waits out a 45 s session: fewer of them than the start-up row's repetitions.
TRIALS = {"full": 3, "quick": 1}
METHOD = (
    f"One FileStreamSink connector (`tasks.max=1`) in a standalone worker reads a {PARTITIONS}-partition topic "
    "into a file; one record is produced to every partition and waited for in the file. Then the worker's "
    "process group gets SIGKILL and a new worker starts at once with the same settings (a standalone worker "
    "forgets connectors created through REST, so the same connector is created again as soon as its REST "
    "API answers: same name, hence the same consumer group and, for kconnect and Java, the same consumer "
    "client id); right after its spawn one more record is produced to every partition (acks=all). Timed from "
    "the new worker's spawn until those records are in the file (polled every 50 ms), and until its REST "
    "API answered. kconnect without eviction sets `consumer.override.client.id` on the connector. "
    f"Bound: {BOUND_S:.0f} s."
)


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _produce_one_per_partition(bootstrap: str, topic: str, marker: str) -> None:
    producer = new_producer(bootstrap, PRODUCER_SETTINGS)
    for partition in range(PARTITIONS):
        producer.produce(topic, f"{marker}-{partition}".encode(), partition=partition)
    if producer.flush(30):
        raise RuntimeError(f"markers {marker} not acknowledged within 30 s")


def _restart_trial(ctx: RunContext, system: WorkerSystem, overrides: Mapping[str, str]) -> dict[str, float]:
    workdir = ctx.scratch(f"sink-restart-{system.key}")
    topic, name, output = ctx.unique("sink-restart"), ctx.unique("restart-sink"), workdir / "out.txt"
    ctx.admin.create_topic(topic, PARTITIONS)
    config = {"connector.class": FILE_SINK, "tasks.max": "1", "topics": topic, "file": str(output), **overrides}
    first = start_worker(system, ctx.processes, ctx.bootstrap_servers, workdir)
    second: RunningWorker | None = None
    try:
        first.rest.create(name, config)
        _produce_one_per_partition(ctx.bootstrap_servers, topic, "before")
        wait_until(lambda: _lines(output) >= PARTITIONS, BOUND_S, 0.05, "the first records in the file")
        ctx.processes.kill(first.process)
        first.rest.close()

        spawned = time.monotonic()
        second = start_worker(system, ctx.processes, ctx.bootstrap_servers, workdir)
        _produce_one_per_partition(ctx.bootstrap_servers, topic, "after")
        second.rest.create(name, config)
        written = wait_until(lambda: _lines(output) >= 2 * PARTITIONS, BOUND_S, 0.05, "the records after the restart")
        return {"writing_again": written - spawned, "rest_ready": second.ready_seconds}
    finally:
        if second is not None:
            stop_worker(ctx.processes, second)
        ctx.admin.delete_topics([topic])


def run(ctx: RunContext) -> list[BenchmarkResult]:
    variants: list[tuple[str, WorkerSystem, str, Mapping[str, str]]] = []
    for system in ctx.systems:
        variants.append((system.key, system, system.label, {}))
        if system.key == KCONNECT:
            label = f"{system.label}, consumer.override.client.id set (no predecessor eviction)"
            variants.append((KCONNECT_NO_EVICTION, system, label, {"consumer.override.client.id": "bench-sink"}))

    rows: dict[str, SystemResult] = {}
    for key, system, label, overrides in variants:
        reason = ctx.unavailable_reason(system)
        if reason is not None:
            rows[key] = SystemResult.not_measurable(label, reason).in_mode(STANDALONE_MODE)
            continue
        try:
            trials = [_restart_trial(ctx, system, overrides) for _ in range(TRIALS.get(ctx.mode, 1))]
        except Exception as error:
            rows[key] = SystemResult.failed(label, short_reason(error)).in_mode(STANDALONE_MODE)
            continue
        rows[key] = SystemResult.measured(
            label,
            {
                "writing_again": Metric("s", False, tuple(t["writing_again"] for t in trials)),
                "rest_ready": Metric("s", False, tuple(t["rest_ready"] for t in trials)),
            },
        ).in_mode(STANDALONE_MODE)
    return [
        ctx.entry(
            NAME,
            GROUP,
            "A standalone worker killed and restarted: spawn to its sink writing again",
            "sink restart",
            METHOD,
            ("writing_again", "rest_ready"),
            rows,
            comparisons=(
                Reference("Java Connect", JAVA_CONNECT),
                Reference("kconnect without eviction", KCONNECT_NO_EVICTION),
            ),
            settings={"trials": TRIALS.get(ctx.mode, 1), "partitions": PARTITIONS, "bound_s": BOUND_S},
        )
    ]
