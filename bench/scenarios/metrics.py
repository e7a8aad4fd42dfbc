"""What metrics cost: FileStreamSource and FileStreamSink throughput with task metrics recorded and with
`metrics.recording.enable=false`, in the same run; and the time of one `/metrics` scrape of a worker
running many connectors of 4 tasks, next to the Prometheus JMX exporter's scrape of Java Kafka Connect
running the same number of tasks.

Cost: two kconnect standalone workers run side by side (idle when not measured), and the repetitions
alternate between them, so drift over the run (page cache, broker log segments) falls on both alike.
Scrape: kconnect's datagen and Java's VerifiableSource, `metrics_connectors` connectors of 4 tasks at 10
records a second per task, all RUNNING before timing; then `metrics_scrapes` sequential GETs, each timed
from request to the last byte. Java's exporter renders its MBeans with Strimzi's rules
(`bench/java_connect/jmx_exporter.py`), the names kconnect serves.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import httpx

from bench.broker import free_port
from bench.catalog import JAVA_CONNECT, KCONNECT, KCONNECT_METRICS_OFF, SYSTEM_LABELS
from bench.harness import RunContext, wait_until
from bench.java_connect import jmx_exporter
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios.common import (
    RECORDS_PER_S,
    THROUGHPUT_METRICS,
    payload,
    throughput,
    throughput_metrics,
    write_lines,
)
from bench.scenarios.rebalance_session import connector_config
from bench.scenarios.sink import fill_topic, timed_sink_run
from bench.scenarios.source import SourceJob, measure_jobs
from bench.settings import FILE_SINK
from bench.stats import percentile
from bench.systems import JavaConnect, Kconnect
from bench.systems.base import RunningWorker, WorkerSetup, start_worker, stop_worker

log = logging.getLogger(__name__)

GROUP = "metrics"
COST_SOURCE = "metrics-cost-source"
COST_SINK = "metrics-cost-sink"
SCRAPE = "metrics-scrape"
VALUE_SIZE = 100
TASKS_PER_CONNECTOR = 4
SCRAPE_METRICS = ("p50_ms", "p99_ms", "kbytes", "series")
COST_METHOD = (
    "Two kconnect standalone workers, one with `metrics.recording.enable=false` (tasks record no timings, batch "
    "sizes or windowed figures; totals and statuses are still served), run side by side; each repetition measures "
    "both, alternating which goes first. Source: a file of N 100 B lines, FileStreamSource → a new 1-partition "
    "topic, timed from `POST /connectors` until the topic holds N. Sink: a 1-partition topic of N 100 B records → "
    "FileStreamSink, timed from `POST /connectors` until the file holds them all. The target: recording on is at "
    "most 3 % slower (ratio ≥ 0.97)."
)
SCRAPE_METHOD = (
    "One standalone worker per system running C connectors of 4 tasks (kconnect: DatagenConnector; Java: Kafka's "
    "VerifiableSourceConnector; 10 records/s per task), all RUNNING before timing. Then sequential scrapes: "
    "kconnect's `GET /metrics`, Java Connect's Prometheus JMX exporter agent (1.0.1, Strimzi's version) with rules "
    "naming the MBeans as Strimzi's do. Each timed from the request to the last byte of the answer; series = "
    "samples in one answer."
)


def run(ctx: RunContext) -> list[BenchmarkResult]:
    cost = _cost_rows(ctx)
    scrape = _scrape_rows(ctx)
    settings = {"records": ctx.sizes.metrics_records, "value_bytes": VALUE_SIZE}
    return [
        ctx.entry(
            COST_SOURCE,
            GROUP,
            "FileStreamSource → Kafka, 100B lines, metrics recorded and not",
            "source, 100B",
            COST_METHOD,
            THROUGHPUT_METRICS,
            cost[COST_SOURCE],
            comparisons=(Reference("metrics off", KCONNECT_METRICS_OFF),),
            ratio_metrics=(RECORDS_PER_S,),
            settings=settings,
        ),
        ctx.entry(
            COST_SINK,
            GROUP,
            "Kafka → FileStreamSink, 100B values, metrics recorded and not",
            "sink, 100B",
            COST_METHOD,
            THROUGHPUT_METRICS,
            cost[COST_SINK],
            comparisons=(Reference("metrics off", KCONNECT_METRICS_OFF),),
            ratio_metrics=(RECORDS_PER_S,),
            settings=settings,
        ),
        ctx.entry(
            SCRAPE,
            GROUP,
            f"One metrics scrape, {ctx.sizes.metrics_connectors} connectors of {TASKS_PER_CONNECTOR} tasks",
            f"{ctx.sizes.metrics_connectors * TASKS_PER_CONNECTOR} tasks",
            SCRAPE_METHOD,
            SCRAPE_METRICS,
            scrape,
            comparisons=(Reference("Java Connect + JMX exporter", JAVA_CONNECT),),
            ratio_metrics=("p50_ms",),
            settings={
                "connectors": ctx.sizes.metrics_connectors,
                "tasks_per_connector": TASKS_PER_CONNECTOR,
                "scrapes": ctx.sizes.metrics_scrapes,
            },
        ),
    ]


# -- recording on and off ------------------------------------------------------------------------


def _cost_rows(ctx: RunContext) -> dict[str, dict[str, SystemResult]]:
    count = ctx.sizes.metrics_records
    source_file = ctx.scratch("metrics-source") / "lines.txt"
    write_lines(source_file, payload(VALUE_SIZE), count)
    topic = ctx.unique("metrics-sink-input")
    fill_topic(ctx, topic, payload(VALUE_SIZE), count)
    keys = (KCONNECT, KCONNECT_METRICS_OFF)
    samples: dict[tuple[str, str], dict[str, list[float]]] = {
        (name, key): {metric: [] for metric in THROUGHPUT_METRICS} for name in (COST_SOURCE, COST_SINK) for key in keys
    }
    workers: dict[str, RunningWorker] = {}
    try:
        workers[KCONNECT] = start_worker(Kconnect(), ctx.processes, ctx.bootstrap_servers, ctx.scratch("metrics-on"))
        off = WorkerSetup(properties={"metrics.recording.enable": "false"})
        workers[KCONNECT_METRICS_OFF] = start_worker(
            Kconnect(), ctx.processes, ctx.bootstrap_servers, ctx.scratch("metrics-off"), setup=off
        )
        for repetition in range(ctx.sizes.warmups + ctx.sizes.repetitions):
            order = keys if repetition % 2 == 0 else tuple(reversed(keys))
            for key in order:
                worker = workers[key]
                source = measure_jobs(ctx, worker, [SourceJob(source_file, count)], VALUE_SIZE)
                sink = _sink_run(ctx, worker, topic, count)
                if repetition >= ctx.sizes.warmups:
                    for name, measured in ((COST_SOURCE, source), (COST_SINK, sink)):
                        for metric in THROUGHPUT_METRICS:
                            samples[name, key][metric].append(measured[metric])
    finally:
        for worker in workers.values():
            stop_worker(ctx.processes, worker)
        ctx.admin.delete_topics([topic])
    return {
        name: {key: SystemResult.measured(SYSTEM_LABELS[key], throughput_metrics(samples[name, key])) for key in keys}
        for name in (COST_SOURCE, COST_SINK)
    }


def _sink_run(ctx: RunContext, worker: RunningWorker, topic: str, count: int) -> dict[str, float]:
    output = worker.workdir / f"{ctx.unique('sink-output')}.txt"
    config = {"connector.class": FILE_SINK, "tasks.max": "1", "topics": topic, "file": str(output)}
    try:
        seconds = timed_sink_run(ctx, worker, config, output, count * (VALUE_SIZE + 1))
    finally:
        output.unlink(missing_ok=True)
    return throughput(count, VALUE_SIZE, seconds)


# -- scrape time ---------------------------------------------------------------------------------


def _scrape_rows(ctx: RunContext) -> dict[str, SystemResult]:
    rows: dict[str, SystemResult] = {}
    kconnect_reason = ctx.unavailable.get(KCONNECT)
    if kconnect_reason:
        rows[KCONNECT] = SystemResult.not_measurable(SYSTEM_LABELS[KCONNECT], kconnect_reason)
    else:
        rows[KCONNECT] = _guarded(KCONNECT, lambda: _scrape_kconnect(ctx))
    java = next((s for s in ctx.systems if isinstance(s, JavaConnect)), None)
    java_reason = ctx.unavailable.get(JAVA_CONNECT) or (None if java else "Java Connect is not configured")
    if java_reason or java is None:
        rows[JAVA_CONNECT] = SystemResult.not_measurable(SYSTEM_LABELS[JAVA_CONNECT], java_reason or "")
    else:
        rows[JAVA_CONNECT] = _guarded(JAVA_CONNECT, lambda: _scrape_java(ctx, java))
    return rows


def _guarded(key: str, measure: Callable[[], SystemResult]) -> SystemResult:
    try:
        return measure()
    except Exception as error:
        log.exception("%s: the scrape measurement failed", SYSTEM_LABELS[key])
        return SystemResult.failed(SYSTEM_LABELS[key], str(error)[:200])


def _scrape_kconnect(ctx: RunContext) -> SystemResult:
    worker = start_worker(Kconnect(), ctx.processes, ctx.bootstrap_servers, ctx.scratch("metrics-scrape-kconnect"))
    try:
        _load(ctx, worker, KCONNECT)
        return _timed_scrapes(ctx, SYSTEM_LABELS[KCONNECT], f"{worker.rest.base_url}/metrics")
    finally:
        stop_worker(ctx.processes, worker)


def _scrape_java(ctx: RunContext, java: JavaConnect) -> SystemResult:
    jar = jmx_exporter.fetch(java.version)
    port = free_port()
    workdir = ctx.scratch("metrics-scrape-java")
    agent = jmx_exporter.agent_option(jar, port)
    system = JavaConnect(java.jars.with_tools(), java.version, (*java.kafka_opts, agent))
    worker = start_worker(system, ctx.processes, ctx.bootstrap_servers, workdir)
    try:
        _load(ctx, worker, JAVA_CONNECT)
        return _timed_scrapes(ctx, SYSTEM_LABELS[JAVA_CONNECT], f"http://127.0.0.1:{port}/metrics")
    finally:
        stop_worker(ctx.processes, worker)


def _load(ctx: RunContext, worker: RunningWorker, system_key: str) -> None:
    """The connectors, each on a topic of its own, all tasks RUNNING."""
    names = []
    for _ in range(ctx.sizes.metrics_connectors):
        name, topic = ctx.unique("metrics-load"), ctx.unique("metrics-load")
        ctx.admin.create_topic(topic)
        worker.rest.create(name, connector_config(system_key, topic))
        names.append(name)

    def all_running() -> bool:
        worker.ensure_alive()
        for name in names:
            status = worker.rest.status(name)
            tasks = status.get("tasks", []) if isinstance(status, dict) else []
            if len(tasks) != TASKS_PER_CONNECTOR or any(t.get("state") != "RUNNING" for t in tasks):
                return False
        return True

    wait_until(all_running, 600.0, what=f"{len(names)} connectors of {TASKS_PER_CONNECTOR} tasks running", interval=1.0)


def _timed_scrapes(ctx: RunContext, label: str, url: str) -> SystemResult:
    times_ms: list[float] = []
    sizes: list[float] = []
    series: list[float] = []
    with httpx.Client(timeout=60.0) as client:
        client.get(url).raise_for_status()  # the first scrape warms caches on both sides
        for _ in range(ctx.sizes.metrics_scrapes):
            started = time.perf_counter()
            response = client.get(url)
            body = response.content
            times_ms.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()
            sizes.append(len(body) / 1000)
            series.append(float(sum(1 for line in body.splitlines() if line and not line.startswith(b"#"))))
    metrics = {
        "p50_ms": Metric("ms", False, (percentile(times_ms, 0.5),)),
        "p99_ms": Metric("ms", False, (percentile(times_ms, 0.99),)),
        "kbytes": Metric("kB", False, (sum(sizes) / len(sizes),)),
        "series": Metric("series", True, (sum(series) / len(series),)),
    }
    return SystemResult.measured(label, metrics)
