"""REST latency under concurrent load: three endpoints hit together by an open-loop client.

With `rest_connectors` idle FileStreamSource connectors defined and paused, one asyncio client sends
on a fixed schedule, whatever the answers' pace: `GET /connectors?expand=status` and
`GET /connectors/{c}/status` at `rest_get_rate` each, and `POST /connectors` (a new idle connector,
left running) at `rest_post_rate`. Latency runs from the scheduled
send time to the full response, so a server that falls behind is charged for the queue it causes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.catalog import JAVA_CONNECT
from bench.harness import Record, RunContext
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.settings import FILE_SOURCE
from bench.stats import percentile
from bench.systems.base import RunningWorker

GROUP = "rest"
METRICS = ("p50_ms", "p99_ms")
METHOD = (
    "{connectors} idle FileStreamSource connectors (an empty file each) are created and paused first. One "
    "asyncio httpx client then sends on a fixed schedule for {seconds:.0f} s, whatever the pace of the answers: "
    "`GET /connectors?expand=status` and `GET /connectors/{{c}}/status` at {get_rate}/s each and `POST "
    "/connectors` (a new idle connector, left running) at {post_rate}/s, so {connectors} to {total} connectors "
    "are defined during the run. Connectors are not deleted under load: Java Connect's standalone herder holds "
    "its lock for the about 1 s a FileStreamSource task takes to stop. Latency runs from the scheduled send "
    "time to the full response, so a server that falls behind is charged for the queue it causes (no "
    "coordinated omission); a failed or timed-out request counts with the time it took to fail."
)
ENDPOINTS = {
    "rest-list-expand": ("GET /connectors?expand=status", "list+status"),
    "rest-status": ("GET /connectors/{c}/status", "status"),
    "rest-create": ("POST /connectors", "create"),
}


@dataclass
class EndpointLog:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0


def idle_source(path: Path, topic: str) -> dict[str, str]:
    """A FileStreamSource on an empty file: a real connector with a task that finds nothing to do."""
    return {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(path), "topic": topic}


async def open_loop(
    rate: float, duration: float, send: Callable[[int], Awaitable[bool]], log: EndpointLog, started: float
) -> None:
    """Fire `send(i)` at `started + i / rate` for `duration` seconds, each in its own task."""

    async def one(index: int, scheduled: float) -> None:
        try:
            ok = await send(index)
        except httpx.HTTPError:
            ok = False
        # A failed or timed-out request still counts, with the time it took to fail.
        log.latencies_ms.append((time.monotonic() - scheduled) * 1000)
        if not ok:
            log.errors += 1

    tasks = []
    for index in range(int(rate * duration)):
        scheduled = started + index / rate
        delay = scheduled - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(index, scheduled)))
    await asyncio.gather(*tasks)


async def load(
    base_url: str, ctx: RunContext, names: list[str], empty_file: Path, topic: str
) -> dict[str, EndpointLog]:
    sizes = ctx.sizes
    logs = {name: EndpointLog() for name in ENDPOINTS}
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0, limits=limits) as client:

        async def list_expand(_: int) -> bool:
            response = await client.get("/connectors", params={"expand": "status"})
            return response.status_code == 200

        async def status(index: int) -> bool:
            response = await client.get(f"/connectors/{names[index % len(names)]}/status")
            return response.status_code == 200

        async def create(index: int) -> bool:
            name = f"rest-load-{index}"
            response = await client.post("/connectors", json={"name": name, "config": idle_source(empty_file, topic)})
            return response.status_code == 201

        started = time.monotonic() + 0.1
        await asyncio.gather(
            open_loop(sizes.rest_get_rate, sizes.rest_seconds, list_expand, logs["rest-list-expand"], started),
            open_loop(sizes.rest_get_rate, sizes.rest_seconds, status, logs["rest-status"], started),
            open_loop(sizes.rest_post_rate, sizes.rest_seconds, create, logs["rest-create"], started),
        )
    return logs


def endpoint_row(label: str, log: EndpointLog) -> SystemResult:
    if not log.latencies_ms:
        return SystemResult.failed(label, "no request completed")
    figures = {"p50_ms": percentile(log.latencies_ms, 0.5), "p99_ms": percentile(log.latencies_ms, 0.99)}
    metrics = {name: Metric("ms", False, (value,)) for name, value in figures.items()}
    return SystemResult.measured(label, metrics, requests=len(log.latencies_ms), errors=log.errors)


def run(ctx: RunContext) -> list[BenchmarkResult]:
    sizes = ctx.sizes

    def body(worker: RunningWorker, record: Record) -> None:
        empty_file = worker.workdir / "empty.txt"
        empty_file.touch()
        topic = ctx.unique("rest-idle")
        ctx.admin.create_topic(topic)
        names = [f"idle-{index}" for index in range(sizes.rest_connectors)]
        for name in names:
            worker.rest.create(name, idle_source(empty_file, topic))
        for name in names:
            worker.rest.wait_state(name, "RUNNING", tasks=1)
            worker.rest.pause(name)
        for name in names:
            worker.rest.wait_state(name, "PAUSED", tasks=1)
        logs = asyncio.run(load(worker.rest.base_url, ctx, names, empty_file, topic))
        worker.ensure_alive()
        for name, log in logs.items():
            record(name, endpoint_row(worker.system.label, log))
        ctx.admin.delete_topics([topic])

    rows = ctx.each_system(list(ENDPOINTS), body)
    method = METHOD.format(
        connectors=sizes.rest_connectors,
        seconds=sizes.rest_seconds,
        get_rate=sizes.rest_get_rate,
        post_rate=sizes.rest_post_rate,
        total=sizes.rest_connectors + int(sizes.rest_post_rate * sizes.rest_seconds),
    )
    rates = {
        "rest-list-expand": sizes.rest_get_rate,
        "rest-status": sizes.rest_get_rate,
        "rest-create": sizes.rest_post_rate,
    }
    return [
        ctx.entry(
            name,
            GROUP,
            f"{endpoint} at {rates[name]} requests/s (of {2 * sizes.rest_get_rate + sizes.rest_post_rate}/s in all)",
            short,
            method if name == "rest-list-expand" else "",
            METRICS,
            rows[name],
            comparisons=(Reference("Java Connect", JAVA_CONNECT),),
            ratio_metrics=METRICS,
            settings={
                "connectors_defined": sizes.rest_connectors,
                "seconds": sizes.rest_seconds,
                "rate_per_s": rates[name],
                "total_rate_per_s": 2 * sizes.rest_get_rate + sizes.rest_post_rate,
            },
        )
        for name, (endpoint, short) in ENDPOINTS.items()
    ]
