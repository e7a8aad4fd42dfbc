"""Many small connectors at a steady pace: REST latency and the worker's CPU, kconnect next to Java Connect.

`paced_connectors` FileStreamSource connectors (`tasks.max=1`), each following a file of its own that the
harness appends `paced_rate` lines of 100 B a second to (a tick every 50 ms), all into one 10-partition
topic: the same work for both systems, and the shape of a worker that runs many small pipelines. Once
every connector runs and `paced_warmup_seconds` have passed, for `paced_seconds`: an open-loop client sends
`GET /connectors/{c}/status` at `rest_get_rate` a second (round robin), the worker's CPU time (its process
and every process below it) is read at the start and the end, and so are the topic's end offsets.
"""

from __future__ import annotations

import asyncio
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

from bench.catalog import JAVA_CONNECT
from bench.harness import Record, RunContext, wait_until
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios.common import payload
from bench.scenarios.rest import EndpointLog, endpoint_row, open_loop
from bench.settings import FILE_SOURCE
from bench.systems.base import RunningWorker

GROUP = "paced"
STATUS = "paced-status"
LOAD = "paced-cpu"
TOPIC_PARTITIONS = 10
VALUE_SIZE = 100
TICK_S = 0.05
LATENCY_METRICS = ("p50_ms", "p99_ms")
CPU_METRICS = ("cpu_pct", "records_per_s")


class PacedWriter:
    """Appends `rate` lines a second to each file, on a fixed schedule, until stopped."""

    def __init__(self, files: list[Path], rate: int) -> None:
        self._files = files
        self._chunk = (payload(VALUE_SIZE) + b"\n") * max(1, round(rate * TICK_S))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="paced-writer", daemon=True)
        self.behind_s = 0.0

    def __enter__(self) -> PacedWriter:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        with ExitStack() as stack:
            handles = [stack.enter_context(path.open("ab", buffering=0)) for path in self._files]
            next_tick = time.monotonic()
            while not self._stop.is_set():
                for handle in handles:
                    handle.write(self._chunk)
                next_tick += TICK_S
                delay = next_tick - time.monotonic()
                if delay > 0:
                    self._stop.wait(delay)
                else:
                    self.behind_s = max(self.behind_s, -delay)


async def status_load(base_url: str, names: list[str], rate: int, seconds: float) -> EndpointLog:
    log = EndpointLog()
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0, limits=limits) as client:

        async def status(index: int) -> bool:
            response = await client.get(f"/connectors/{names[index % len(names)]}/status")
            return response.status_code == 200

        await open_loop(rate, seconds, status, log, time.monotonic() + 0.1)
    return log


def run(ctx: RunContext) -> list[BenchmarkResult]:
    sizes = ctx.sizes
    count = sizes.paced_connectors

    def body(worker: RunningWorker, record: Record) -> None:
        topic = ctx.unique("paced")
        ctx.admin.create_topic(topic, TOPIC_PARTITIONS)
        files = [worker.workdir / f"paced-{index}.txt" for index in range(count)]
        names = [f"paced-{index}" for index in range(count)]
        for path, name in zip(files, names, strict=True):
            path.touch()
            config = {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(path), "topic": topic}
            worker.rest.create(name, config)
        for name in names:
            worker.rest.wait_state(name, "RUNNING", tasks=1)
        try:
            with PacedWriter(files, sizes.paced_rate) as writer:
                expected = count * sizes.paced_rate * sizes.paced_warmup_seconds * 0.9

                def flowing() -> bool:
                    worker.ensure_alive()
                    return ctx.admin.end_offset(topic, TOPIC_PARTITIONS) >= expected

                wait_until(flowing, 60 + sizes.paced_warmup_seconds, what="records from every connector flowing")
                first_offsets = ctx.admin.end_offset(topic, TOPIC_PARTITIONS)
                first_cpu, started = worker.cpu_seconds(), time.monotonic()
                log = asyncio.run(status_load(worker.rest.base_url, names, sizes.rest_get_rate, sizes.paced_seconds))
                elapsed = time.monotonic() - started
                cpu = worker.cpu_seconds() - first_cpu
                delivered = ctx.admin.end_offset(topic, TOPIC_PARTITIONS) - first_offsets
                behind = writer.behind_s
            worker.ensure_alive()
            record(STATUS, endpoint_row(worker.system.label, log))
            metrics = {
                "cpu_pct": Metric("%", False, (100 * cpu / elapsed,)),
                "records_per_s": Metric("records/s", True, (delivered / elapsed,)),
            }
            record(LOAD, SystemResult.measured(worker.system.label, metrics, writer_behind_s=round(behind, 3)))
        finally:
            ctx.admin.delete_topics([topic])

    rows = ctx.each_system([STATUS, LOAD], body)
    settings = {
        "connectors": count,
        "lines_per_s_each": sizes.paced_rate,
        "lines_per_s": count * sizes.paced_rate,
        "value_bytes": VALUE_SIZE,
        "seconds": sizes.paced_seconds,
        "status_requests_per_s": sizes.rest_get_rate,
    }
    method = (__doc__ or "").strip().split("\n\n", 1)[1].replace("\n", " ")
    comparisons = (Reference("Java Connect", JAVA_CONNECT),)
    return [
        ctx.entry(
            STATUS,
            GROUP,
            f"GET /connectors/{{c}}/status with {count} connectors at {sizes.paced_rate} records/s each",
            "status",
            method,
            LATENCY_METRICS,
            rows[STATUS],
            comparisons=comparisons,
            ratio_metrics=LATENCY_METRICS,
            settings=settings,
        ),
        ctx.entry(
            LOAD,
            GROUP,
            f"Worker CPU with {count} connectors at {sizes.paced_rate} records/s each",
            "CPU",
            "CPU: user + system time of the worker's process tree over the window, as % of one core. "
            "records/s: what reached the topic in the window (the load is carried if it is close to "
            f"{count * sizes.paced_rate:,}).",
            CPU_METRICS,
            rows[LOAD],
            comparisons=comparisons,
            ratio_metrics=("cpu_pct",),
            settings=settings,
        ),
    ]
