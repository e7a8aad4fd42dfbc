"""The Spark sink's own metrics, served by the worker beside Kafka Connect's (KIP-877 plug-in metrics):
`kafka_connect_connector_plugin_<name>{connector, task}`.

What a Spark Parquet sink user watches: how long each commit takes from its Spark job's start to its
files published (`flush-time-ms`), what was committed (epochs, files, rows, bytes), how long the task held its
partitions paused because buffered and unwritten bytes reached `flush.max.bytes` (back-pressure), and how
much it buffers now. Recorded once per commit outcome and per `put`, never per record.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from connect.api.metrics import PluginMetrics
from spark_sink.commit import EpochOutcome


class SparkSinkMetrics:
    def __init__(self, metrics: PluginMetrics, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._epochs = metrics.counter("epochs-committed-total", "Spark jobs whose files this task committed.")
        self._files = metrics.counter("files-committed-total", "Parquet files this task committed.")
        self._rows = metrics.counter("rows-committed-total", "Rows in the Parquet files this task committed.")
        self._bytes = metrics.counter(
            "bytes-committed-total",
            "Bytes of the rows this task committed, as handed to Spark (before Parquet encoding and compression).",
        )
        self._flush_ms = metrics.recorder(
            "flush-time-ms", "Milliseconds from a commit's Spark job starting to its files published"
        )
        self._backpressure_ms = metrics.counter(
            "backpressure-time-ms-total",
            "Milliseconds this task held its partitions paused because buffered and unwritten bytes reached "
            "flush.max.bytes.",
        )
        self._paused_since: float | None = None
        self.buffered_bytes = 0
        metrics.gauge("buffered-bytes", "Record bytes buffered by this task, not yet handed to Spark.", self._buffered)

    def _buffered(self) -> float:
        return float(self.buffered_bytes)

    def committed(self, outcome: EpochOutcome) -> None:
        self._epochs.add()
        self._files.add(outcome.files)
        self._rows.add(outcome.rows)
        self._bytes.add(outcome.row_bytes)
        self._flush_ms.record((outcome.spark_seconds + outcome.publish_seconds) * 1000)

    def back_pressure(self, paused: bool) -> None:
        """Whether back-pressure holds partitions paused after this call."""
        now = self._clock()
        if self._paused_since is not None:
            self._backpressure_ms.add((now - self._paused_since) * 1000)
        self._paused_since = now if paused else None
