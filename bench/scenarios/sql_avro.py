"""The SQL sink's own work on Avro values, in one process: rows from AvroConverter's value columns next to
rows from Structs, on the same consumed records and the same PostgreSQL, in insert and upsert mode.

N Avro values of a 6-field struct (ints, a double, strings; about 60 bytes each) are consumed messages
already, in batches of 500 of one partition (what a poll hands a task). Each repetition writes them into
a new table (`auto.create`) with `SqlSinkTask` driven as the worker drives it: each batch's values decoded
by AvroConverter in one call, then `put_batches`. **value columns**: the task takes them
(`takes_value_columns`), so the values are decoded field by field and rows are made from the columns.
**Structs**: the same task fed batches decoded to one Struct per value (what every task that does not take
columns gets). **SinkRecords**: the same Structs as one `SinkRecord` each through `put` (a connector with
transforms). The three take turns within a repetition, each starting one turn in three. Timed from the
first decode to the last commit. Registry: confluent-kafka's in-memory one
(asked once per schema, not per record).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from bench.harness import RunContext, metrics
from bench.results import BenchmarkResult, Reference, SystemResult
from bench.scenarios.avro import ORDER, order
from connect.converters.schema_registry.avro import AvroConverter
from connect.runtime.pipeline.sink_batches import split_by_partition
from connectors.sql.sink_task import SqlSinkTask

TOPIC = "bench-sql-avro"
BATCH_RECORDS = 500
MODES = {
    "insert": {"insert.mode": "insert"},
    "upsert": {"insert.mode": "upsert", "pk.mode": "record_value", "pk.fields": "id"},
}
COLUMNS = "kconnect-sql-avro-columns"
STRUCTS = "kconnect-sql-avro-structs"
RECORDS = "kconnect-sql-avro-records"
LABELS = {
    COLUMNS: "SQL sink, Avro value columns (put_batches)",
    STRUCTS: "SQL sink, Avro values as Structs (put_batches)",
    RECORDS: "SQL sink, SinkRecords with Structs (put)",
}
UNITS = {"records_per_s": ("records/s", True)}


@dataclass(frozen=True, slots=True)
class _Consumed:
    """A consumed message as the runtime reads one (`KafkaMessage`): only what a sink batch reads."""

    offset_: int
    value_: bytes | None

    def topic(self) -> str:
        return TOPIC

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self.offset_

    def key(self) -> bytes | None:
        return None

    def value(self) -> bytes | None:
        return self.value_

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        return None

    def timestamp(self) -> tuple[int, int]:
        return (1, 1_700_000_000_000)

    def error(self) -> Any:
        return None


class _Context:
    """What a sink task asks of its worker: nothing is refused or retried here."""

    errant_record_reporter = None

    def configs(self) -> dict[str, str]:
        return {}

    def timeout(self, timeout_ms: int) -> None:
        raise RuntimeError(f"the database failed during the benchmark (retry in {timeout_ms} ms asked)")


def _write(
    url: str, table: str, mode: str, kind: str, polls: Sequence[Sequence[_Consumed]], avro: AvroConverter
) -> float:
    """Seconds for a fresh task to decode and write every poll into `table`."""
    task = SqlSinkTask()
    task.initialize(_Context())  # type: ignore[arg-type]
    task.start({"connection.url": url, "table.name.format": table, "auto.create": "true", **MODES[mode]})
    try:
        started = time.perf_counter()
        for poll in polls:
            batches = split_by_partition(poll, None, None, lambda _topic, _headers: ())
            for batch in batches:
                batch.convert(None, avro, value_columns=kind == COLUMNS)
            if kind == RECORDS:
                task.put([record for batch in batches for record in batch])
            else:
                task.put_batches(batches)
        return time.perf_counter() - started
    finally:
        task.stop()


def avro_sink_entries(ctx: RunContext, url: str, group: str) -> list[BenchmarkResult]:
    """The rows of the SQL sink on Avro values, into the database at `url` (SQLAlchemy URL)."""
    count = ctx.sizes.sql_records["100B"] // 10
    avro = AvroConverter()
    avro.configure({"schema.registry.url": "mock://bench-sql"}, False)
    values = avro.from_connect_data_batch(TOPIC, ORDER, [order(n) for n in range(count)])
    consumed = [_Consumed(n, value) for n, value in enumerate(values)]
    polls = [consumed[start : start + BATCH_RECORDS] for start in range(0, count, BATCH_RECORDS)]
    engine = sa.create_engine(url)
    entries = []
    try:
        for mode in MODES:
            samples: dict[str, list[float]] = {kind: [] for kind in LABELS}
            for repetition in range(ctx.sizes.warmups + ctx.sizes.repetitions):
                # The three run in turn, first one then the next: load from elsewhere and the database's own
                # background work (checkpoints after the writes before) weigh on each alike.
                kinds = list(LABELS)
                for kind in kinds[repetition % 3 :] + kinds[: repetition % 3]:
                    table = ctx.unique(f"sql_avro_{mode}").replace("-", "_")
                    seconds = _write(url, table, mode, kind, polls, avro)
                    _drop(engine, table)
                    if repetition >= ctx.sizes.warmups:
                        samples[kind].append(count / seconds)
            entries.append(
                ctx.entry(
                    f"sql-sink-avro-{mode}",
                    group,
                    f"Avro → PostgreSQL, SQL sink in one process, {mode}",
                    f"avro {mode}",
                    __doc__ or "",
                    tuple(UNITS),
                    {
                        kind: SystemResult.measured(LABELS[kind], metrics({"records_per_s": rates}, UNITS))
                        for kind, rates in samples.items()
                    },
                    comparisons=(Reference(LABELS[STRUCTS], STRUCTS),),
                    ratio_metrics=tuple(UNITS),
                    settings={"records": count, "batch_records": BATCH_RECORDS, "value_fields": len(ORDER.fields)},
                )
            )
    finally:
        engine.dispose()
    return entries


def _drop(engine: sa.Engine, table: str) -> None:
    with engine.begin() as connection:
        connection.execute(sa.text(f"DROP TABLE IF EXISTS {table}"))
