"""The partitioner plug-in interface and what it is given: one topic partition's slice of a batch.

Partitioners work column-wise on the decoded Arrow table (no per-record Python objects), and return
either one label for the whole slice or a string array with one label per row. A label is the
encoded partition: the directories under `<topics.dir>/<topic>/`, Hive-style `name=value` segments
joined by '/'. Called on the task thread; implementations keep no per-batch state.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import pyarrow as pa

from connect.api import SinkRecord

Labels: TypeAlias = "str | pa.Array"
"""One encoded partition for every row, or a string array with one per row."""


@dataclass(frozen=True)
class PartitionInput:
    """Rows of one topic partition, in offset order.

    `values` holds the decoded value columns; `offsets` (int64) and `timestamps` (int64 epoch ms, null
    when Kafka had none) are Kafka's; `records` are the original records, row for row, for partitioners
    that need keys or headers; `now_ms` is the wall clock of this batch.
    """

    topic: str
    partition: int
    values: pa.Table
    offsets: pa.Array
    timestamps: pa.Array
    records: Sequence[SinkRecord]
    now_ms: int

    @property
    def num_rows(self) -> int:
        return int(self.values.num_rows)


class TimestampExtractor(abc.ABC):
    """Gives each row its time in epoch milliseconds (Confluent's TimestampExtractor)."""

    def configure(self, config: Mapping[str, Any]) -> None:
        """The connector's settings (parsed values and the original strings)."""

    @abc.abstractmethod
    def extract(self, batch: PartitionInput) -> pa.Array:
        """An int64 array of epoch milliseconds, one per row, without nulls (raise DataError instead)."""

    @property
    def is_wallclock(self) -> bool:
        """True when the time is processing time: rotation by time then also fires without new records."""
        return False

    @property
    def reads_records(self) -> bool:
        """Whether `extract` reads `PartitionInput.records`. Return False when it reads the columns only:
        the sink may then gather several polls of a partition before decoding them (`spark_sink.gathering`)."""
        return True


class Partitioner(abc.ABC):
    """Decides the encoded partition of rows. Subclass it for your own and register the class under the
    entry point group `kconnect.spark_partitioners`; `configure` gets the connector's settings first."""

    def configure(self, config: Mapping[str, Any]) -> None:
        """The connector's settings (parsed values and the original strings); raise ConfigError if invalid."""

    @abc.abstractmethod
    def encode_partitions(self, batch: PartitionInput) -> Labels:
        """The encoded partition of every row of `batch`."""

    def partition_fields(self) -> list[str]:
        """The Hive partition column names this partitioner writes, in path order."""
        return []

    @property
    def reads_records(self) -> bool:
        """Whether `encode_partitions` reads `PartitionInput.records`. Return False when it reads the columns
        only: the sink may then gather several polls of a partition before decoding them
        (`spark_sink.gathering`), fewer and larger parses."""
        return True
