"""Consecutive polls of one topic partition gathered into one batch before decoding. Task thread only.

Why: with small records the decode's cost is mostly per call, not per byte. A poll brings one
partition's fetch (500 records by default, 50 KB of 100 B records), and each JSON parse of one pays
a fixed cost on top of the parse itself (waiting for Arrow's I/O thread while Spark keeps the cores
busy). Parsing a partition's records about 4,000 at a time makes far fewer calls, and the parse and
the run faster (`docs/spark_sink.md`, "Gathering polls as columns").

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

from connect.api import ConnectError, SinkRecord, SinkRecordBatch
from spark_sink.decoding.values import raw_bytes_schema

GATHER_ROWS = 4096
GATHER_BYTES = 1 << 20
GATHER_MAX_AGE_MS = 200


class GatheredBatch(SinkRecordBatch):
    """The columns of consecutive batches of one topic partition, in offset order."""

    offsets: list[int]
    timestamps: list[int | None]
    values: list[bytes]

    def __init__(self, first: SinkRecordBatch, now_ms: int, with_keys: bool) -> None:
        self._keys: list[Any] | None = [] if with_keys else None
        """The keys gathered (the base's `keys`); None when the sink does not store them."""
        keys = _NOT_GATHERED if self._keys is None else self._keys
        super().__init__(first.topic_partition, [], [], keys, [], first.key_schema, first.value_schema)
        self.first_seen_ms = now_ms
        """The wall clock of the first poll gathered: its rows are decoded as of then."""
        self.nbytes = 0
        """The values' bytes (what back-pressure and the decode bound count)."""
        self.extend(first)

    def accepts(self, batch: SinkRecordBatch) -> bool:
        """Whether `batch` may join: the same schemas (a batch has one of each)."""
        return batch.value_schema is self.value_schema and batch.key_schema is self.key_schema

    def extend(self, batch: SinkRecordBatch) -> None:
        values = batch.values
        self.offsets += batch.offsets
        self.timestamps += batch.timestamps
        if self._keys is not None:
            self._keys += batch.keys
        self.values += values
        self.nbytes += sum(map(len, values))

    @property
    def due_ms(self) -> int:
        """From when the next `put` decodes it even if no more came (a partition that trickles among busy ones)."""
        return self.first_seen_ms + GATHER_MAX_AGE_MS

    def full(self, rows_until_full: int) -> bool:
        rows = len(self.offsets)
        return rows >= GATHER_ROWS or rows >= rows_until_full or self.nbytes >= GATHER_BYTES

    def record(self, index: int) -> SinkRecord:
        # Unreachable while `may_gather` holds: nothing that asks for records is configured.
        raise ConnectError("A gathered batch keeps no headers and gives no records")


class _NotGathered(Sequence[Any]):
    """The keys of a batch gathered without them (the sink does not store them): reading them fails."""

    MESSAGE = "Keys were not gathered: the sink does not store them"

    def __len__(self) -> int:
        raise ConnectError(self.MESSAGE)

    def __getitem__(self, index: Any) -> Any:
        raise ConnectError(self.MESSAGE)


_NOT_GATHERED = _NotGathered()


def may_gather(batch: SinkRecordBatch) -> bool:
    """Raw bytes values (ByteArrayConverter's, the runtime's columnar delivery), none of them null: the
    batches whose decode costs per call. Tombstones and converted values (value columns among them,
    whose `values` are not read) take the direct path."""
    if batch.value_columns is not None or not raw_bytes_schema(batch.value_schema):
        return False
    return set(map(type, batch.values)) == {bytes}
