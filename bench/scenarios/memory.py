"""Resident memory of a worker: idle, and running a 10-task FileStreamSink over a 10-partition topic.

RSS and PSS are read from /proc for the worker and all its descendants, summed. RSS counts a page shared
by several processes (a task process and the fork server it came from) once in each; PSS splits it among
them, so summed PSS is what the process tree uses together. For a single process (Java's worker) the
two are nearly the same. Idle: after REST is ready and `idle_settle_seconds` more with no connector.
Running: a sink with `tasks.max=10` drains a pre-filled 10-partition topic into a file; both are sampled
every 0.2 s until the file is complete and 3 s after, and both the peak and the last sample are reported.
"""

from __future__ import annotations

import time

from bench.catalog import JAVA_CONNECT
from bench.harness import Record, RunContext, wait_until
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios.common import payload
from bench.scenarios.sink import file_size, fill_topic
from bench.settings import FILE_SINK
from bench.systems.base import RunningWorker

GROUP = "memory"
VALUE_SIZE = 100
IDLE = "memory-idle"
RUNNING = "memory-tasks"
AFTER_SECONDS = 3.0
MB = 1024 * 1024


def mib(value: int) -> float:
    return value / MB


def run(ctx: RunContext) -> list[BenchmarkResult]:
    sizes = ctx.sizes
    tasks = sizes.memory_tasks
    topic = ctx.unique("memory-input")
    fill_topic(ctx, topic, payload(VALUE_SIZE), sizes.memory_records, partitions=tasks)

    def body(worker: RunningWorker, record: Record) -> None:
        time.sleep(sizes.idle_settle_seconds)  # a settle period, not synchronisation
        worker.ensure_alive()
        idle = {
            "RSS_MiB": Metric("MiB", False, (mib(worker.rss_bytes()),)),
            "PSS_MiB": Metric("MiB", False, (mib(worker.pss_bytes()),)),
        }
        record(IDLE, SystemResult.measured(worker.system.label, idle))

        output = worker.workdir / "memory-sink.txt"
        name = ctx.unique("bench-memory")
        config = {"connector.class": FILE_SINK, "tasks.max": str(tasks), "topics": topic, "file": str(output)}
        worker.rest.create(name, config)
        samples: list[float] = []
        pss_samples: list[float] = []
        expected = sizes.memory_records * (VALUE_SIZE + 1)

        def sample() -> None:
            samples.append(mib(worker.rss_bytes()))
            pss_samples.append(mib(worker.pss_bytes()))

        def complete() -> bool:
            worker.ensure_alive()
            sample()
            return file_size(output) >= expected

        wait_until(complete, 120, interval=0.2, what=f"{sizes.memory_records} lines from {tasks} tasks")
        worker.rest.wait_state(name, "RUNNING", tasks=tasks)
        settle_end = time.monotonic() + AFTER_SECONDS
        while time.monotonic() < settle_end:
            sample()
            time.sleep(0.2)
        metrics = {
            "RSS_MiB": Metric("MiB", False, (samples[-1],)),
            "peak_RSS_MiB": Metric("MiB", False, (max(samples),)),
            "PSS_MiB": Metric("MiB", False, (pss_samples[-1],)),
            "peak_PSS_MiB": Metric("MiB", False, (max(pss_samples),)),
        }
        record(RUNNING, SystemResult.measured(worker.system.label, metrics, samples=len(samples)))

    try:
        rows = ctx.each_system([IDLE, RUNNING], body)
    finally:
        ctx.admin.delete_topics([topic])
    comparisons = (Reference("Java Connect", JAVA_CONNECT),)
    return [
        ctx.entry(
            IDLE,
            GROUP,
            "Idle worker, no connectors",
            "idle",
            __doc__.strip().split("\n\n", 1)[1].replace("\n", " ") if __doc__ else "",
            ("RSS_MiB", "PSS_MiB"),
            rows[IDLE],
            comparisons=comparisons,
            ratio_metrics=("PSS_MiB",),
            settings={"settle_seconds": sizes.idle_settle_seconds},
        ),
        ctx.entry(
            RUNNING,
            GROUP,
            f"Worker running {tasks} sink tasks",
            f"{tasks} tasks",
            "",
            ("RSS_MiB", "peak_RSS_MiB", "PSS_MiB", "peak_PSS_MiB"),
            rows[RUNNING],
            comparisons=comparisons,
            ratio_metrics=("PSS_MiB", "peak_PSS_MiB"),
            settings={"tasks": tasks, "records": sizes.memory_records, "value_bytes": VALUE_SIZE},
        ),
    ]
