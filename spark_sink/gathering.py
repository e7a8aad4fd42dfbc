"""Consecutive polls of one topic partition gathered into one batch before decoding. Task thread only.

Why: with small records the decode's cost is mostly per call, not per byte. A poll brings one
partition's fetch (500 records by default, 50 KB of 100 B records), and each JSON parse of one pays
a fixed cost on top of the parse itself (about 140 us waiting for Arrow's I/O thread while Spark keeps
the cores busy). Parsing a partition's records about 4,000 at a time cut the parse of 100 B records
in 8 partitions from 6,335 calls and 2.5-3.2 s to 695 calls and 1.75-2.0 s, and the run went from
about 458,000 to 518,000 records/s (`docs/spark_sink.md`).

Only the columns are kept across polls (offsets, timestamps, values and, when stored, keys: plain
lists of ints and bytes), never the consumed messages: thousands of message objects alive across
polls reach the garbage collector's oldest generation, and its full collections then walk the whole
heap, pyspark's included, dozens of times a run.

A gathered batch has no headers, so it cannot give a record back: gathering is off when something
may ask for one (an errant record reporter, a partitioner or timestamp extractor that reads
`PartitionInput.records`). Its rows share the wall clock of its first poll (`now_ms` of the
partitioners and extractors). What a partition gathered is decoded before anything else of that
partition, and when it reaches `GATHER_ROWS` rows, `GATHER_BYTES` bytes or the rows left until
`flush.size` (so a file closes on the same poll as without gathering); at the next `put` once it is
`GATHER_MAX_AGE_MS` old, a time rotation is due or memory runs short; and when a poll brings nothing.
Only `put` decodes: from `pre_commit` a value that cannot be decoded would not fail the task. Its bytes
count toward back-pressure; revoking the partition drops it, like the rest of its open file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from connect.api import ConnectError, Schema, SinkRecord, SinkRecordBatch, TopicPartition
from spark_sink.decoding.values import raw_bytes_schema

GATHER_ROWS = 4096
GATHER_BYTES = 1 << 20
GATHER_MAX_AGE_MS = 200


class GatheredBatch(SinkRecordBatch):
    """The columns of consecutive batches of one topic partition, in offset order."""

    def __init__(self, first: SinkRecordBatch, now_ms: int, with_keys: bool) -> None:
        self._topic_partition = first.topic_partition
        self._key_schema = first.key_schema
        self._value_schema = first.value_schema
        self._with_keys = with_keys
        self.first_seen_ms = now_ms
        """The wall clock of the first poll gathered: its rows are decoded as of then."""
        self._offsets: list[int] = []
        self._timestamps: list[int | None] = []
        self._keys: list[Any] = []
        self._values: list[bytes] = []
        self.nbytes = 0
        """The values' bytes (what back-pressure and the decode bound count)."""
        self.extend(first)

    def accepts(self, batch: SinkRecordBatch) -> bool:
        """Whether `batch` may join: the same schemas (a batch has one of each)."""
        return batch.value_schema is self._value_schema and batch.key_schema is self._key_schema

    def extend(self, batch: SinkRecordBatch) -> None:
        values = batch.values
        self._offsets += batch.offsets
        self._timestamps += batch.timestamps
        if self._with_keys:
            self._keys += batch.keys
        self._values += values
        self.nbytes += sum(map(len, values))

    @property
    def due_ms(self) -> int:
        """From when the next `put` decodes it even if no more came (a partition that trickles among busy ones)."""
        return self.first_seen_ms + GATHER_MAX_AGE_MS

    def full(self, rows_until_full: int) -> bool:
        rows = len(self._offsets)
        return rows >= GATHER_ROWS or rows >= rows_until_full or self.nbytes >= GATHER_BYTES

    @property
    def topic_partition(self) -> TopicPartition:
        return self._topic_partition

    @property
    def offsets(self) -> Sequence[int]:
        return self._offsets

    @property
    def timestamps(self) -> Sequence[int | None]:
        return self._timestamps

    @property
    def keys(self) -> Sequence[Any]:
        if not self._with_keys:
            raise ConnectError("Keys were not gathered: the sink does not store them")
        return self._keys

    @property
    def values(self) -> Sequence[Any]:
        return self._values

    @property
    def key_schema(self) -> Schema | None:
        return self._key_schema

    @property
    def value_schema(self) -> Schema | None:
        return self._value_schema

    def record(self, index: int) -> SinkRecord:
        # Unreachable while `may_gather` holds: nothing that asks for records is configured.
        raise ConnectError("A gathered batch keeps no headers and gives no records")


def may_gather(batch: SinkRecordBatch) -> bool:
    """Raw bytes values (ByteArrayConverter's, the runtime's columnar delivery), none of them null: the
    batches whose decode costs per call. Tombstones and converted values take the direct path."""
    return raw_bytes_schema(batch.value_schema) and set(map(type, batch.values)) == {bytes}
