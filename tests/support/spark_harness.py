"""The Spark sink driven in process: a sink task on a SparkSession with a fake context, records to put, and what it
wrote."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

from connect.api import RecordListBatch, SinkRecord, TimestampType, TopicPartition
from connect.api.context import ErrantRecordReporter
from connect.runtime.metrics.plugin_metrics import TaskPluginMetrics
from connect.runtime.metrics.windows import Windows
from spark_sink.task import SparkParquetSinkTask

SPARK_OPTIONS = {"spark.master": "local[2]", "spark.driver.memory": "1g"}


BASE_TIME_MS = 1_700_000_000_000


class FakeSinkTaskContext:
    def __init__(self, configs: Mapping[str, str] | None = None) -> None:
        self._configs = dict(configs or {})
        self.offsets: dict[TopicPartition, int] = {}
        self.assigned: set[TopicPartition] = set()
        self.paused: set[TopicPartition] = set()
        self.pause_calls = 0
        self.commit_requested = False
        self.reporter: ErrantRecordReporter | None = None
        self.metrics = TaskPluginMetrics((), Windows())

    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.offsets.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        pass

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    def pause(self, *partitions: TopicPartition) -> None:
        assert set(partitions) <= self.assigned, "paused a partition that is not assigned"
        self.paused.update(partitions)
        self.pause_calls += 1

    def resume(self, *partitions: TopicPartition) -> None:
        self.paused.difference_update(partitions)

    def request_commit(self) -> None:
        self.commit_requested = True

    @property
    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self.reporter

    @property
    def plugin_metrics(self) -> TaskPluginMetrics:
        return self.metrics

    def take_offsets(self) -> dict[TopicPartition, int]:
        offsets, self.offsets = self.offsets, {}
        return offsets


class SinkHarness:
    """One task on `root` with its fake context; `feed` replays a partition from where the task wants it."""

    def __init__(self, root: Path, props: Mapping[str, str], reporter: ErrantRecordReporter | None = None) -> None:
        self.root = root
        self.context = FakeSinkTaskContext(props)
        self.context.reporter = reporter
        self.task = SparkParquetSinkTask()
        self.task.initialize(self.context)
        self.task.start(props)

    def open(self, *partitions: TopicPartition) -> dict[TopicPartition, int]:
        self.context.assigned.update(partitions)
        self.task.open(partitions)
        return self.context.take_offsets()

    def put(self, records: Sequence[SinkRecord]) -> None:
        self.task.put(records)

    def put_batches(self, records: Sequence[SinkRecord]) -> None:
        """The records as the runtime delivers consumed bytes: one batch per run of a partition."""
        self.task.put_batches([RecordListBatch(run) for run in partition_runs(records)])

    def idle_poll(self) -> None:
        """What the runtime calls when a poll brings nothing: the task decodes what it gathered."""
        self.task.put([])

    def flush_all(self, timeout_s: float = 60.0) -> dict[TopicPartition, int]:
        """The topic drained: a poll that brings nothing, the writer done, the published offsets."""
        self.idle_poll()
        assert self.task.wait_until_written(timeout_s), "the writer did not finish"
        return dict(self.task.pre_commit({}))

    def stop(self) -> None:
        self.task.stop()


def json_records(
    tp: TopicPartition,
    offsets: range,
    value: Callable[[int], bytes] | None = None,
    timestamp: Callable[[int], int] | None = None,
) -> list[SinkRecord]:
    make_value = value or (lambda o: b'{"id":%d,"name":"user-%d","score":%d.5}' % (o, o % 7, o))
    make_time = timestamp or (lambda o: BASE_TIME_MS + o)
    return [
        SinkRecord(
            tp.topic, tp.partition, None, b"k%d" % o, None, make_value(o), o, make_time(o), TimestampType.CREATE_TIME
        )
        for o in offsets
    ]


def partition_runs(records: Sequence[SinkRecord]) -> list[list[SinkRecord]]:
    runs: list[list[SinkRecord]] = []
    for record in records:
        if runs and runs[-1][-1].topic_partition == record.topic_partition:
            runs[-1].append(record)
        else:
            runs.append([record])
    return runs


def interleave(*batches: Sequence[SinkRecord]) -> list[SinkRecord]:
    """Records of several partitions mixed as a consumer delivers them (each partition stays in order)."""
    merged: list[SinkRecord] = []
    longest = max(len(b) for b in batches)
    for i in range(0, longest, 7):
        for batch in batches:
            merged.extend(batch[i : i + 7])
    return merged


def read_dataset(root: Path) -> pa.Table:
    """Everything published under root, as pyarrow's dataset discovery reads it (Hive partitions on)."""
    return ds.dataset(str(root), format="parquet", partitioning="hive").to_table()


def offsets_by_partition(table: pa.Table) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for partition, offset in zip(
        table.column("_partition").to_pylist(), table.column("_offset").to_pylist(), strict=True
    ):
        found.setdefault(partition, []).append(offset)
    return {p: sorted(o) for p, o in found.items()}
