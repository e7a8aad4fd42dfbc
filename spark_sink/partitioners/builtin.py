"""The built-in partitioners: Default (Kafka partition), Field and TimeBased with its Hourly/Daily presets.

Each follows Confluent's storage-common partitioner of the same name; see `spark_sink.partitioners.base`
for the interface. Configured once per task, then called on the task thread.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from connect.api import ConfigError, DataError
from spark_sink.config import (
    LOCALE_CONFIG,
    PARTITION_DURATION_MS_CONFIG,
    PARTITION_FIELD_NAME_CONFIG,
    PATH_FORMAT_CONFIG,
    TIMEZONE_CONFIG,
)
from spark_sink.partitioners import hive
from spark_sink.partitioners.base import Labels, Partitioner, PartitionInput, TimestampExtractor
from spark_sink.partitioners.columns import field_column
from spark_sink.partitioners.extractor_loader import load_timestamp_extractor
from spark_sink.partitioners.path_format import PathFormat, compile_path_format
from spark_sink.timezones import LocalClock, resolve

_QUARTER_HOUR_MS = 900_000
_EPOCH = dt.datetime(1970, 1, 1)


class DefaultPartitioner(Partitioner):
    """`partition=<kafka partition>`."""

    def encode_partitions(self, batch: PartitionInput) -> Labels:
        return f"partition={batch.partition}"

    def partition_fields(self) -> list[str]:
        return ["partition"]

    @property
    def reads_records(self) -> bool:
        return False


class FieldPartitioner(Partitioner):
    """`name=value` per configured field (dotted names reach nested fields), joined with '/'."""

    def __init__(self) -> None:
        self.fields: list[str] = []

    def configure(self, config: Mapping[str, Any]) -> None:
        fields = config.get(PARTITION_FIELD_NAME_CONFIG) or []
        if isinstance(fields, str):
            fields = [f.strip() for f in fields.split(",") if f.strip()]
        if not fields:
            raise ConfigError(f"FieldPartitioner needs {PARTITION_FIELD_NAME_CONFIG}")
        self.fields = list(fields)

    def encode_partitions(self, batch: PartitionInput) -> Labels:
        segments = [self._segment(batch, name) for name in self.fields]
        labels = segments[0] if len(segments) == 1 else pc.binary_join_element_wise(*segments, "/")
        return _constant_or_array(labels)

    def _segment(self, batch: PartitionInput, name: str) -> pa.Array:
        column = field_column(batch.values, name)
        kind = column.type
        if not (
            pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_boolean(kind) or pa.types.is_null(kind)
        ):
            raise DataError(f"FieldPartitioner: field '{name}' has type {kind}; only integer, string or boolean")
        values = hive.escape_array(column.cast(pa.string()))
        return pc.binary_join_element_wise(hive.escape(name) + "=", values, "")

    def partition_fields(self) -> list[str]:
        return list(self.fields)

    @property
    def reads_records(self) -> bool:
        return False


class TimeBasedPartitioner(Partitioner):
    """Buckets of `partition.duration.ms` in `timezone`, rendered with the Joda pattern `path.format`."""

    duration_ms: int = -1
    path_format_pattern: str = ""

    def __init__(self) -> None:
        self.path_format: PathFormat | None = None
        self.clock = LocalClock(dt.UTC)
        self.extractor: TimestampExtractor | None = None
        self._labels: dict[int, str] = {}

    def configure(self, config: Mapping[str, Any]) -> None:
        duration = self.duration_ms if self.duration_ms > 0 else int(config.get(PARTITION_DURATION_MS_CONFIG) or -1)
        pattern = self.path_format_pattern or str(config.get(PATH_FORMAT_CONFIG) or "")
        if duration <= 0:
            raise ConfigError(f"{type(self).__name__} needs {PARTITION_DURATION_MS_CONFIG} > 0")
        if not pattern:
            raise ConfigError(f"{type(self).__name__} needs {PATH_FORMAT_CONFIG}")
        for key in (LOCALE_CONFIG, TIMEZONE_CONFIG):
            if not str(config.get(key) or "").strip():
                raise ConfigError(f"{type(self).__name__} needs {key}")
        self.duration_ms = duration
        self.path_format = compile_path_format(pattern)
        self.clock = LocalClock(resolve(str(config[TIMEZONE_CONFIG])))
        self.extractor = load_timestamp_extractor(config)

    def encode_partitions(self, batch: PartitionInput) -> Labels:
        if self.extractor is None:
            raise ConfigError(f"{type(self).__name__} was not configured")
        times = self.extractor.extract(batch)
        if len(times) and pc.min(times).as_py() < 0:
            return pa.array([self.label(t) for t in times.to_pylist()], pa.string())
        # Vectorised: zone offsets only change on quarter hours, buckets are few: format each once.
        quarters = pc.divide(times, _QUARTER_HOUR_MS)
        unique_quarters = pc.unique(quarters)
        offsets = pa.array([self.clock.offset_ms(q * _QUARTER_HOUR_MS) for q in unique_quarters.to_pylist()])
        local = pc.add(times, pc.take(offsets, pc.index_in(quarters, value_set=unique_quarters)))
        buckets = pc.multiply(pc.divide(local, self.duration_ms), self.duration_ms)
        unique_buckets = pc.unique(buckets)
        labels = pa.array([self._format_local(b) for b in unique_buckets.to_pylist()], pa.string())
        if len(labels) == 1:
            return str(labels[0].as_py())
        return pc.take(labels, pc.index_in(buckets, value_set=unique_buckets))

    def label(self, epoch_ms: int) -> str:
        """The encoded partition of one instant (Confluent's bucketing: floor in local time)."""
        local = self.clock.to_local_ms(epoch_ms)
        return self._format_local(local - local % self.duration_ms)

    def _format_local(self, bucket_local_ms: int) -> str:
        label = self._labels.get(bucket_local_ms)
        if label is None:
            if self.path_format is None:
                raise ConfigError(f"{type(self).__name__} was not configured")
            wall = (_EPOCH + dt.timedelta(milliseconds=bucket_local_ms)).replace(tzinfo=self.clock.zone)
            label = self.path_format.format(wall)
            if len(self._labels) > 10_000:
                self._labels.clear()
            self._labels[bucket_local_ms] = label
        return label

    def partition_fields(self) -> list[str]:
        return self.path_format.partition_fields() if self.path_format else []

    @property
    def reads_records(self) -> bool:
        return self.extractor is None or self.extractor.reads_records


class HourlyPartitioner(TimeBasedPartitioner):
    duration_ms = 3_600_000
    path_format_pattern = "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH"


class DailyPartitioner(TimeBasedPartitioner):
    duration_ms = 86_400_000
    path_format_pattern = "'year'=YYYY/'month'=MM/'day'=dd"


def _constant_or_array(labels: pa.Array) -> Labels:
    if len(labels) and pc.count_distinct(labels).as_py() == 1:
        return str(labels[0].as_py())
    return labels
