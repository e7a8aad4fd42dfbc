"""Kafka → Parquet: kconnect's Spark Parquet sink next to Spark Structured Streaming and a plain pyarrow writer.

Group `spark`. Four topics (100 B and 1 KB JSON records, 1 and 8 partitions) are filled before any
timing. Each system drains every topic into Parquet files of the same number of records (`flush.size`
for the sink, `maxOffsetsPerTrigger` for Structured Streaming, a record count for pyarrow). The
repetitions are interleaved, one system after the other in each round, so that other work on the
machine weighs on all three alike; a round never runs two systems at once. A second table gives each
system's fixed cost per flush; the throughput tables also give the files per hour the measured rate
makes with those settings.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.catalog import KCONNECT, SYSTEM_LABELS
from bench.harness import RunContext, short_reason
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.scenarios.common import MB_PER_S, RECORDS_PER_S, THROUGHPUT_UNITS, throughput
from bench.settings import VALUE_SIZES
from bench.spark_kafka import arrow_writer, flush_cost
from bench.spark_kafka import jars as spark_kafka_jars
from bench.spark_kafka.cells import (
    AVG_FILE_MB,
    CODEC,
    FILES_PER_HOUR,
    FILES_PER_PARTITION,
    SCHEMA,
    SPARK_OPTIONS,
    Cell,
    file_stats,
    fill,
    json_value,
    settle_writeback,
)
from bench.spark_kafka.jars import SparkKafkaJars
from bench.spark_kafka.kconnect_sink import KconnectSink
from bench.spark_kafka.streaming import StreamingPeer
from spark_sink.config import CONFIG_DEF, FLUSH_MAX_BYTES_CONFIG

log = logging.getLogger(__name__)

GROUP = "spark"
KCONNECT_ARROW = "kconnect-arrow"
STREAMING = "spark-streaming"
ARROW = "pyarrow"
LABELS = {
    KCONNECT: SYSTEM_LABELS[KCONNECT],
    KCONNECT_ARROW: "kconnect, batch.handoff=arrow",
    STREAMING: "Spark Structured Streaming",
    ARROW: "plain pyarrow writer",
}
SYSTEM_ORDER = (KCONNECT, KCONNECT_ARROW, STREAMING, ARROW)
PARTITION_COUNTS = (1, 8)
# Full mode's 1 KB cells hold 100,000-record files (100 MB): twice that would pass half of the sink's
# default `flush.max.bytes`, which closes files early by size (see `check_file_sizes`).
RECORDS = {"quick": {"100B": 600_000, "1KB": 150_000}, "full": {"100B": 3_000_000, "1KB": 300_000}}
# The sink's default `flush.max.bytes`: open files close early once together they hold half of it
# (`spark_sink.rotation.early_flushes`).
SINK_FLUSH_MAX_BYTES: int = CONFIG_DEF.keys[FLUSH_MAX_BYTES_CONFIG].default
COST_REPETITIONS = {"quick": 10, "full": 30}
COST_RECORDS = 21  # a multiple of the files per partition

FLUSH_1 = "flush_1_record"
FLUSH_10K = "flush_10k_records"
UNITS = {
    **THROUGHPUT_UNITS,
    AVG_FILE_MB: ("MB", True),
    FILES_PER_HOUR: ("files/h", False),
    FLUSH_1: ("ms", False),
    FLUSH_10K: ("ms", False),
}
THROUGHPUT_ORDER = (RECORDS_PER_S, MB_PER_S, AVG_FILE_MB, FILES_PER_HOUR)

METHOD = (
    "The topic is filled before timing with N JSON objects of exactly the value size (`id`, `user`, `score`, "
    "`ts` and a `pad` string that differs between records), spread evenly over its partitions. Every system "
    f"writes {CODEC} Parquet files of N / partitions / {FILES_PER_PARTITION} records per partition with the "
    "five fields as typed columns, and the repetitions are interleaved (kconnect with each hand-off, "
    "Structured Streaming, pyarrow, then again), so load from elsewhere weighs on all of them alike. "
    "**kconnect**: `kconnect standalone` with SparkParquetSinkConnector (`tasks.max=1`, ByteArrayConverter, so "
    "the task gets the consumed bytes column by column through `put_batches`, "
    "`flush.size` = that file size, everything else default: `batch.handoff=auto`, which is the Parquet "
    "hand-off file with this local master), timed from `POST /connectors` until every partition's newest "
    "commit manifest covers its last offset; the worker's SparkSession is up already (a second connector on "
    "an idle topic keeps it, as any running Spark sink does). The row `batch.handoff=arrow` is the same "
    "worker with batches handed over by `createDataFrame` instead. **Structured Streaming**: pyspark's own Spark with "
    "`spark-sql-kafka-0-10` from Maven Central in `spark.jars`: pyspark's version when Central has it, else "
    "the newest release that resolves (settings `spark_sql_kafka` and `token_provider`), "
    "`from_json` with the schema, `writeStream.format('parquet')`, `Trigger.AvailableNow` and "
    "`maxOffsetsPerTrigger` = file size * partitions (one file per partition and micro-batch), timed from "
    "`start()` until the query ends, its session up already. **pyarrow**: one confluent-kafka consumer, "
    "`pyarrow.json` + `pq.write_table` per file on a second thread, in the harness process: no framework, no "
    "Spark, no commit protocol, the upper bound of a Python process. Both Spark sides run `local[*]` with a "
    "2 GB driver. Files per hour = files "
    "written / seconds * 3600 at the measured rate. At another sustained rate r (records/s per partition) "
    "the sink's default rotation (no time-based rotation, `flush.max.bytes` 256 MB) closes "
    "3600 * r / `flush.size` files per partition and hour, as long as flush.size * record size * partitions "
    "stays below half of flush.max.bytes (past it, files close early by size); a partition that never fills "
    "a file keeps it open until `rotate.interval.ms` or `rotate.schedule.interval.ms` are set."
)
COST_METHOD = (
    "kconnect: one SparkParquetSinkTask driven directly (no Kafka), each `put` a full file of one partition "
    "(`flush.size` = 1 or 10,000 100-byte JSON records), timed until its epoch is published (decode, the Spark "
    "job into staging, the manifest, the move), the session up already; median over the repetitions, for "
    "each `batch.handoff`. "
    "Structured Streaming: a query on a topic of 1-record micro-batches (`maxOffsetsPerTrigger=1`), the "
    "median `triggerExecution` of its batches after the first. pyarrow: `pyarrow.json` + `pq.write_table` "
    "of one file in process, median of 20."
)

Measure = Callable[[Cell], Mapping[str, float]]


def measured(key: str, samples: Mapping[str, list[float]], **details: Any) -> SystemResult:
    metrics = {name: Metric(*UNITS[name], tuple(values)) for name, values in samples.items()}
    return SystemResult.measured(LABELS[key], metrics, **details)


def interleaved(ctx: RunContext, cell: Cell, systems: Mapping[str, Measure]) -> dict[str, SystemResult]:
    """Warm-ups then repetitions, each round every system once in turn; a system that fails is dropped."""
    samples: dict[str, dict[str, list[float]]] = {key: {} for key in systems}
    failures: dict[str, str] = {}
    for index in range(ctx.sizes.warmups + ctx.sizes.repetitions):
        for key, measure in systems.items():
            if key in failures:
                continue
            try:
                values = measure(cell)
            except Exception as error:
                log.exception("%s failed in %s", LABELS[key], cell.name)
                failures[key] = short_reason(error)
                continue
            if index >= ctx.sizes.warmups:
                for name, value in values.items():
                    samples[key].setdefault(name, []).append(value)
    return {
        key: SystemResult.failed(LABELS[key], failures[key]) if key in failures else measured(key, samples[key])
        for key in systems
    }


def streaming_measure(ctx: RunContext, peer: StreamingPeer) -> Measure:
    def measure(cell: Cell) -> dict[str, float]:
        request = {"op": "run", "topic": cell.topic, "records": cell.records}
        answer = peer.request({**request, "max_offsets": cell.file_records * cell.partitions}, 300 + cell.records / 500)
        seconds = float(answer["seconds"])
        stats = file_stats(int(answer["files"]), int(answer["bytes"]), seconds)
        return {**throughput(cell.records, cell.value_bytes, seconds), **stats}

    return measure


def arrow_measure(ctx: RunContext) -> Measure:
    def measure(cell: Cell) -> dict[str, float]:
        output = ctx.scratch("spark-arrow")
        try:
            run = arrow_writer.timed_arrow_write(
                ctx.bootstrap_servers, cell.topic, cell.partitions, cell.records, cell.file_records, output, CODEC
            )
        finally:
            shutil.rmtree(output, ignore_errors=True)
        return {
            **throughput(cell.records, cell.value_bytes, run.seconds),
            **file_stats(run.files, run.bytes, run.seconds),
        }

    return measure


@dataclass
class Systems:
    """The measure function of each system that started, rows for those that did not, how to stop them."""

    measures: dict[str, Measure] = field(default_factory=dict)
    unavailable: dict[str, SystemResult] = field(default_factory=dict)
    closers: list[Callable[[], None]] = field(default_factory=list)
    streaming: StreamingPeer | None = None
    jars: SparkKafkaJars | None = None

    def close(self) -> None:
        for close in reversed(self.closers):
            close()


def start_systems(ctx: RunContext, systems: Systems) -> None:
    worker_system = next((s for s in ctx.systems if s.key == KCONNECT), None)
    reason = ctx.unavailable.get(KCONNECT) if worker_system is not None else "kconnect is not among the systems"
    try:
        if worker_system is None or reason:
            raise RuntimeError(reason)
        kconnect = KconnectSink(ctx, worker_system)
        systems.closers.append(kconnect.close)
        systems.measures[KCONNECT] = kconnect.measure
        systems.measures[KCONNECT_ARROW] = lambda cell: kconnect.measure(cell, "arrow")
    except Exception as error:
        log.exception("kconnect's worker did not start")
        for key in (KCONNECT, KCONNECT_ARROW):
            systems.unavailable[key] = SystemResult.failed(LABELS[key], short_reason(error))
    try:
        systems.jars = spark_kafka_jars.fetch()
        settings = {
            "bootstrap": ctx.bootstrap_servers,
            "schema": SCHEMA,
            "codec": CODEC,
            "jars": [str(jar) for jar in systems.jars.jars],
            "spark_options": SPARK_OPTIONS,
        }
        systems.streaming = StreamingPeer(ctx.processes, ctx.scratch("spark-streaming"), settings)
        systems.closers.append(systems.streaming.close)
        systems.measures[STREAMING] = streaming_measure(ctx, systems.streaming)
    except Exception as error:
        log.exception("Structured Streaming did not start")
        systems.unavailable[STREAMING] = SystemResult.not_measurable(LABELS[STREAMING], short_reason(error))
    systems.measures[ARROW] = arrow_measure(ctx)


def flush_costs(ctx: RunContext, peer: StreamingPeer | None, cost_topic: str) -> dict[str, SystemResult]:
    value = json_value(0, VALUE_SIZES["100B"], "x" * 8192)
    rows: dict[str, SystemResult] = {}
    handoffs = {KCONNECT: "auto", KCONNECT_ARROW: "arrow"}
    try:
        ms = flush_cost.run_child(ctx, value, SPARK_OPTIONS, COST_REPETITIONS[ctx.mode], tuple(handoffs.values()))
        for key, handoff in handoffs.items():
            rows[key] = measured(key, {FLUSH_1: [ms[handoff][1]], FLUSH_10K: [ms[handoff][10_000]]})
    except Exception as error:
        log.exception("the sink's flush cost could not be measured")
        for key in handoffs:
            rows[key] = SystemResult.failed(LABELS[key], short_reason(error))
    if peer is None:
        rows[STREAMING] = SystemResult.not_measurable(LABELS[STREAMING], "Structured Streaming did not start")
    else:
        try:
            answer = peer.request({"op": "batch_cost", "topic": cost_topic}, 600)
            rows[STREAMING] = measured(STREAMING, {FLUSH_1: [float(answer["batch_ms"])]})
        except Exception as error:
            log.exception("Structured Streaming's micro-batch cost could not be measured")
            rows[STREAMING] = SystemResult.failed(LABELS[STREAMING], short_reason(error))
    output = ctx.scratch("spark-arrow-cost")
    costs = {n: [arrow_writer.write_cost_ms(output, value, n)] for n in (1, 10_000)}
    rows[ARROW] = measured(ARROW, {FLUSH_1: costs[1], FLUSH_10K: costs[10_000]})
    return rows


def check_file_sizes(cells: list[Cell]) -> None:
    """Refuse cells whose open files the sink would close early by size: they would be measured with
    smaller files than Structured Streaming's, and the last file of each partition would then wait for a
    time-based rotation that the benchmark does not configure (a timeout instead of a figure)."""
    for cell in cells:
        held = cell.file_records * cell.value_bytes * cell.partitions
        if held >= SINK_FLUSH_MAX_BYTES // 2:
            raise ValueError(
                f"{cell.name}: {cell.partitions} open file(s) of {cell.file_records} records of {cell.value_bytes} B "
                f"reach half of the sink's flush.max.bytes ({SINK_FLUSH_MAX_BYTES} B); use fewer records"
            )


def run(ctx: RunContext) -> list[BenchmarkResult]:
    counts = RECORDS.get(ctx.mode, RECORDS["quick"])
    cells = [
        Cell(size, VALUE_SIZES[size], partitions, counts[size], ctx.unique(f"spark-input-{size}-{partitions}p"))
        for size in VALUE_SIZES
        for partitions in PARTITION_COUNTS
    ]
    check_file_sizes(cells)
    cost_topic = ctx.unique("spark-batch-cost")
    rows: dict[str, dict[str, SystemResult]] = {}
    systems = Systems()
    try:
        for cell in [*cells, Cell("100B", VALUE_SIZES["100B"], 1, COST_RECORDS, cost_topic)]:
            fill(ctx.admin, ctx.bootstrap_servers, cell)
        settle_writeback()
        start_systems(ctx, systems)
        for cell in cells:
            rows[cell.name] = {**interleaved(ctx, cell, systems.measures), **systems.unavailable}
        cost_rows = flush_costs(ctx, systems.streaming, cost_topic)
    finally:
        systems.close()
        ctx.admin.delete_topics([cell.topic for cell in cells] + [cost_topic])
    jars = systems.jars
    versions = (
        {"spark_sql_kafka": jars.connector_version, "token_provider": jars.token_provider_version} if jars else {}
    )
    entries = [
        ctx.entry(
            cell.name,
            GROUP,
            f"Kafka → Parquet, {cell.size} JSON, {cell.partitions} partition{'s' if cell.partitions > 1 else ''}",
            f"{cell.size} {cell.partitions}p",
            METHOD,
            THROUGHPUT_ORDER,
            {key: rows[cell.name][key] for key in SYSTEM_ORDER},
            comparisons=(Reference("Structured Streaming", STREAMING), Reference("pyarrow", ARROW)),
            ratio_metrics=(RECORDS_PER_S,),
            settings={
                "records": cell.records,
                "value_bytes": cell.value_bytes,
                "partitions": cell.partitions,
                "records_per_file": cell.file_records,
                "parquet.codec": CODEC,
                **SPARK_OPTIONS,
                **versions,
            },
        )
        for cell in cells
    ]
    entries.append(
        ctx.entry(
            "spark-flush-cost",
            GROUP,
            "Fixed cost per flush (100 B JSON records)",
            "per flush",
            COST_METHOD,
            (FLUSH_1, FLUSH_10K),
            cost_rows,
            comparisons=(Reference("Structured Streaming", STREAMING),),
            ratio_metrics=(FLUSH_1,),
            settings={"repetitions": COST_REPETITIONS[ctx.mode], **SPARK_OPTIONS},
        )
    )
    return entries
