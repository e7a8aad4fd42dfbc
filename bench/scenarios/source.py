"""Source throughput: FileStreamSource reading prepared files into topics, kconnect next to Java Connect.

Timed from `POST /connectors` to the topics' end offsets reaching N (polled every 20 ms), so connector
and task start-up count, as a user creating a connector would see it. Every repetition uses new
connectors (so no stored source offset applies) and new topics.

FileStreamSource runs one task whatever `tasks.max` says, in both systems, so "4 tasks" is 4 connectors,
each reading its own file of N/4 lines into its own 1-partition topic: the same total work as 1 task
reading N lines. This group runs one standalone worker per system; the same 1-and-4-task measurement on
3-worker distributed clusters (100B lines) is made in the failover group, on the clusters it starts anyway.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.catalog import JAVA_CONNECT, RAW_CLIENT
from bench.harness import Record, RunContext, repeat, wait_until
from bench.machine import busy_cpu_seconds
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios.common import (
    RECORDS_PER_S,
    THROUGHPUT_METRICS,
    payload,
    throughput,
    throughput_metrics,
    write_lines,
)
from bench.scenarios.raw import producer_name
from bench.settings import FILE_BATCH_SIZE, FILE_SOURCE, SOURCE_TASK_COUNTS, SOURCE_TASKS, VALUE_SIZES
from bench.stats import ratio
from bench.systems.base import Deployment

GROUP = "source"
# Machine-wide cores busy during a timed run (see TASKS_METHOD).
CORES_BUSY = "cores_busy"
TIMES = "\u00d7"  # ruff flags the character itself as a look-alike
# The value size of the 1-and-4-task measurement on distributed clusters (the failover group).
TASKS_SIZE = "100B"


def tasks_metric(tasks: int) -> str:
    return "records_per_s_1_task" if tasks == 1 else f"records_per_s_{tasks}_tasks"


def scaling_metric(tasks: int) -> str:
    return f"scaling_{tasks}_vs_1"


def cores_metric(tasks: int) -> str:
    return "cores_busy_1_task" if tasks == 1 else f"cores_busy_{tasks}_tasks"


def tasks_metrics(counts: Sequence[int]) -> tuple[str, ...]:
    """The rate for each task count, each count's scaling against one task, then the cores busy at each count."""
    return (
        *(tasks_metric(n) for n in counts),
        *(scaling_metric(n) for n in counts if n > 1),
        *(cores_metric(n) for n in counts),
    )


MANY_TASKS = tasks_metric(SOURCE_TASKS)
TASKS_METRICS = tasks_metrics(SOURCE_TASK_COUNTS)
METHOD = (
    "A file of N lines (each line one record value) is prepared before timing. Timed from `POST /connectors` "
    f"(FileStreamSourceConnector, `tasks.max=1`, `batch.size={FILE_BATCH_SIZE}`) until the new 1-partition topic's end "
    "offset reaches N, polled every 20 ms. StringConverter for keys and values; a new connector and topic "
    "per repetition. The raw producer row is the limit from the raw group's table (its settings say when it ran)."
)
TASKS_METHOD = (
    "FileStreamSource is single-task in both systems, so n tasks are n FileStreamSource connectors (`tasks.max=1` "
    "each), each reading its own file of N/n lines into its own 1-partition topic, created one after the other; "
    "timed from the first `POST /connectors` until all n topics hold their lines. The 1-task column is one "
    "connector reading N lines, measured in the same session. Scaling = median n-task rate ÷ median 1-task rate. "
    "Cores busy = CPU time of the whole machine over the timed interval (every process: worker, broker, harness; "
    "from /proc/stat) ÷ its length. The machine has 2 cores: at the same CPU time a record, n tasks can reach at "
    "most 2 ÷ (cores busy with 1 task) times the 1-task rate."
)


def source_name(size: str) -> str:
    return f"source-{size}"


def tasks_name(size: str) -> str:
    return f"source-tasks-{size}"


@dataclass(frozen=True)
class TimedRun:
    """How long connectors took to fill their topics, and how many of the machine's cores were busy meanwhile."""

    seconds: float
    cores_busy: float


@dataclass(frozen=True)
class SourceJob:
    """One FileStreamSource connector of a timed run: its file, its topic, and how many lines it holds."""

    file: Path
    count: int


def source_config(source: Path, topic: str) -> dict[str, str]:
    return {
        "connector.class": FILE_SOURCE,
        "tasks.max": "1",
        "file": str(source),
        "topic": topic,
        "batch.size": str(FILE_BATCH_SIZE),
    }


def timed_connector_run(ctx: RunContext, worker: Deployment, config: dict[str, str], topic: str, count: int) -> float:
    """Seconds from creating the connector (writing to `topic`) until `topic` holds `count` records."""
    return timed_connectors_run(ctx, worker, [(config, topic, count)]).seconds


def timed_connectors_run(
    ctx: RunContext, worker: Deployment, jobs: Sequence[tuple[dict[str, str], str, int]]
) -> TimedRun:
    """From creating the first of `jobs` (config, topic, count) until every topic holds its count."""
    names = [ctx.unique("bench-source") for _ in jobs]
    timeout = 60.0 + sum(count for _, _, count in jobs) / 1000
    busy_at_start = busy_cpu_seconds()
    started = time.monotonic()
    for name, (config, _, _) in zip(names, jobs, strict=True):
        worker.rest.create(name, config)
    pending = list(jobs)
    busy_at_end = busy_at_start

    def done() -> bool:
        nonlocal busy_at_end
        worker.ensure_alive()
        pending[:] = [job for job in pending if ctx.admin.end_offset(job[1]) < job[2]]
        if not pending:
            busy_at_end = busy_cpu_seconds()
        return not pending

    finished = wait_until(done, timeout, what=f"{len(jobs)} topic(s) filled")
    for name in names:
        worker.rest.delete(name)
    seconds = finished - started
    return TimedRun(seconds, (busy_at_end - busy_at_start) / seconds)


def measure_jobs(ctx: RunContext, worker: Deployment, jobs: Sequence[SourceJob], value_size: int) -> dict[str, float]:
    """One repetition: each job a new connector into a new topic; throughput of all of them together."""
    topics = [ctx.unique(f"source-{value_size}") for _ in jobs]
    for topic in topics:
        ctx.admin.create_topic(topic)
    try:
        runs = [(source_config(job.file, topic), topic, job.count) for job, topic in zip(jobs, topics, strict=True)]
        total = sum(job.count for job in jobs)
        run = timed_connectors_run(ctx, worker, runs)
        return {**throughput(total, value_size, run.seconds), CORES_BUSY: run.cores_busy}
    finally:
        ctx.admin.delete_topics(topics)


def measure_repeated(
    ctx: RunContext, worker: Deployment, jobs: Sequence[SourceJob], value_size: int, repetitions: int
) -> dict[str, list[float]]:
    """`measure_jobs` after the warm-ups, `repetitions` times."""
    return repeat(lambda _: measure_jobs(ctx, worker, jobs, value_size), ctx.sizes.warmups, repetitions)


def measure_file_source(
    ctx: RunContext, worker: Deployment, source: Path, value_size: int, count: int
) -> dict[str, list[float]]:
    return measure_repeated(ctx, worker, [SourceJob(source, count)], value_size, ctx.sizes.repetitions)


def tasks_row(label: str, runs: Mapping[int, Mapping[str, Sequence[float]]]) -> SystemResult:
    """The rate for each task count side by side, with each one's scaling (ratio of the medians to 1 task's)
    and the cores busy; `runs` maps a task count to `measure_repeated`'s samples."""
    metrics = {tasks_metric(n): Metric("records/s", True, tuple(samples[RECORDS_PER_S])) for n, samples in runs.items()}
    one = metrics[tasks_metric(1)].summary.median
    for n in runs:
        if n > 1:
            scaling = ratio(metrics[tasks_metric(n)].summary.median, one) or 0.0
            metrics[scaling_metric(n)] = Metric(TIMES, True, (scaling,))
    for n, samples in runs.items():
        metrics[cores_metric(n)] = Metric("cores", False, tuple(samples[CORES_BUSY]))
    return SystemResult.measured(label, metrics)


def split_files(directory: Path, value: bytes, count: int, parts: int) -> list[SourceJob]:
    """`parts` files whose line counts add up to `count`."""
    share, extra = divmod(count, parts)
    jobs = []
    for index in range(parts):
        lines = share + (1 if index < extra else 0)
        path = directory / f"part-{index}.txt"
        write_lines(path, value, lines)
        jobs.append(SourceJob(path, lines))
    return jobs


def task_inputs(directory: Path, value_size: int, count: int) -> tuple[SourceJob, list[SourceJob]]:
    """One file of `count` lines, and the same lines split over SOURCE_TASKS files."""
    whole = SourceJob(directory / "lines.txt", count)
    write_lines(whole.file, payload(value_size), count)
    return whole, split_files(directory, payload(value_size), count, SOURCE_TASKS)


def measure_tasks(
    ctx: RunContext,
    worker: Deployment,
    label: str,
    inputs: tuple[SourceJob, list[SourceJob]],
    value_size: int,
    repetitions: int,
) -> SystemResult:
    """The 1-task and SOURCE_TASKS-task row: one connector on the whole file, then one per part."""
    whole, parts = inputs
    one = measure_repeated(ctx, worker, [whole], value_size, repetitions)
    many = measure_repeated(ctx, worker, parts, value_size, repetitions)
    return tasks_row(label, {1: one, len(parts): many})


def run(ctx: RunContext) -> list[BenchmarkResult]:
    files: dict[str, Path] = {}
    inputs = ctx.scratch("source-input")
    for size, value_size in VALUE_SIZES.items():
        files[size] = inputs / f"lines-{size}.txt"
        write_lines(files[size], payload(value_size), ctx.sizes.connect_records[size])
    parts = {
        (size, n): split_files(
            ctx.scratch(f"source-parts-{size}-{n}"), payload(value_size), ctx.sizes.connect_records[size], n
        )
        for size, value_size in VALUE_SIZES.items()
        for n in SOURCE_TASK_COUNTS
        if n > 1
    }

    def body(worker: Deployment, record: Record, label: str) -> None:
        for size, value_size in VALUE_SIZES.items():
            samples = measure_file_source(ctx, worker, files[size], value_size, ctx.sizes.connect_records[size])
            record(source_name(size), SystemResult.measured(label, throughput_metrics(samples)))
            runs = {1: samples}
            for n in SOURCE_TASK_COUNTS[1:]:
                runs[n] = measure_repeated(ctx, worker, parts[size, n], value_size, ctx.sizes.repetitions)
            record(tasks_name(size), tasks_row(label, runs))

    standalone = ctx.each_system(
        [*(source_name(size) for size in VALUE_SIZES), *(tasks_name(size) for size in VALUE_SIZES)],
        lambda worker, record: body(worker, record, worker.system.label),
    )
    settings = {f"{system.key}.{key}": value for system in ctx.systems for key, value in system.settings().items()}
    entries = [
        ctx.entry(
            source_name(size),
            GROUP,
            f"FileStreamSource → Kafka, {size} lines",
            size,
            METHOD,
            THROUGHPUT_METRICS,
            standalone[source_name(size)],
            comparisons=(
                Reference("raw producer", RAW_CLIENT, producer_name(size)),
                Reference("Java Connect", JAVA_CONNECT),
            ),
            ratio_metrics=(RECORDS_PER_S,),
            settings={"records": ctx.sizes.connect_records[size], "value_bytes": VALUE_SIZES[size], **settings},
        )
        for size in VALUE_SIZES
    ]
    tasks_list = "/".join(str(n) for n in SOURCE_TASK_COUNTS)
    entries += [
        ctx.entry(
            tasks_name(size),
            GROUP,
            f"FileStreamSource → Kafka, {size} lines, {tasks_list} tasks, one standalone worker",
            f"{size}, {tasks_list} tasks",
            TASKS_METHOD,
            TASKS_METRICS,
            standalone[tasks_name(size)],
            comparisons=(Reference("Java Connect", JAVA_CONNECT),),
            ratio_metrics=(MANY_TASKS,),
            settings={
                "records": ctx.sizes.connect_records[size],
                "value_bytes": VALUE_SIZES[size],
                "tasks": tasks_list,
                **settings,
            },
        )
        for size in VALUE_SIZES
    ]
    return entries
