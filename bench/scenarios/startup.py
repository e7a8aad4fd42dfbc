"""Start-up: seconds from spawning the worker process to `GET /connectors` answering 200.

A new worker (empty offsets file, no connectors) per repetition, polled every 20 ms; one warm-up
start first so both read their jars or modules from a warm page cache.
"""

from __future__ import annotations

from bench.catalog import JAVA_CONNECT
from bench.harness import RunContext, repeat
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios import sink_restart
from bench.systems.base import WorkerSystem, start_worker, stop_worker

GROUP = "startup"
NAME = "startup"
WARMUPS = 1


def run(ctx: RunContext) -> list[BenchmarkResult]:
    def body(system: WorkerSystem) -> SystemResult:
        def measure(_: int) -> dict[str, float]:
            worker = start_worker(system, ctx.processes, ctx.bootstrap_servers, ctx.scratch(system.key))
            stop_worker(ctx.processes, worker)
            return {"seconds": worker.ready_seconds}

        samples = repeat(measure, WARMUPS, ctx.sizes.startup_repetitions)
        return SystemResult.measured(system.label, {"seconds": Metric("s", False, tuple(samples["seconds"]))})

    return [
        ctx.entry(
            NAME,
            GROUP,
            "Process start to REST ready",
            "start-up",
            " ".join((__doc__ or "").split()),
            ("seconds",),
            ctx.each_available(body),
            comparisons=(Reference("Java Connect", JAVA_CONNECT),),
            settings={"repetitions": ctx.sizes.startup_repetitions, "warmups": WARMUPS},
        ),
        *sink_restart.run(ctx),
    ]
