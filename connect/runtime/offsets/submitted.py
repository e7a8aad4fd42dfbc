"""Which source offsets may be committed: those Kafka acknowledged, in order per source partition.

A source task sends each poll batch as one `SubmittedBatch`, which remembers, per source partition, the
offset of the batch's last record of that partition (`submit` for records; `submit_batches` for the
`SourceRecordBatch`es of one poll, which reads only each batch's last offset). For a source partition
the committable offset is the one of the newest batch such that it and every earlier batch holding that
partition are complete: every record acknowledged by Kafka, or dropped by a transform or the error
policy.

A batch completes in one of two ways:
- per record: the producer's delivery callback calls `ack()` for each record (tasks that override
  `commit_record` need these reports anyway);
- all at once: the producer was flushed empty, so every record sent before has an outcome, and the
  error-only delivery reports marked the batches that had a failure (`acknowledge_all`). This is the
  fast path: librdkafka then emits no report for successful records, which saves a Python callback
  per record, a large part of the producer's cost (docs/architecture.md, "Hot paths").
Either way, a batch with a failed record (under `errors.tolerance=none`) never completes, so neither
its offsets nor any later ones of the same source partitions are ever committed.

Not thread-safe: the task thread submits, and delivery callbacks run on the task thread too, because
it is the only caller of the producer's `poll`/`flush`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from connect.api.batch import SourceRecordBatch
from connect.api.records import SourceOffset, SourceRecord
from connect.runtime.offsets.codec import encode_key, encode_offset


class SubmittedBatch:
    """One poll batch in flight. `outstanding` counts records without an outcome yet."""

    __slots__ = ("failed", "offsets", "outstanding")

    def __init__(self, offsets: dict[bytes, SourceOffset | None], outstanding: int) -> None:
        self.offsets = offsets
        self.outstanding = outstanding
        self.failed = False

    @property
    def done(self) -> bool:
        return self.outstanding <= 0 and not self.failed

    def ack(self, count: int = 1) -> None:
        """`count` records were acknowledged by Kafka or dropped."""
        self.outstanding -= count


class SubmittedRecords:
    def __init__(self, connector: str) -> None:
        self.connector = connector
        self._pending: dict[bytes, deque[tuple[SubmittedBatch, SourceOffset | None]]] = {}
        self._unfinished: deque[SubmittedBatch] = deque()
        # The partition map encoded last, a copy of it as it was then, and its key (see `_key_of`).
        self._last_partition: Any = None
        self._last_copy: dict[str, Any] | None = None
        self._last_key = b""

    def _key_of(self, partition: Any) -> bytes:
        # Tasks pass the same partition map poll after poll, and encoding it (with its checks) was a tenth
        # of the fixed cost of a small poll: encode again only for another map, or one changed in place.
        if partition is self._last_partition and partition == self._last_copy:
            return self._last_key
        key = encode_key(self.connector, partition)
        self._last_partition, self._last_copy, self._last_key = partition, dict(partition), key
        return key

    def submit(self, records: Iterable[SourceRecord], outstanding: int) -> SubmittedBatch:
        """Track a batch (as polled, before transforms) of which `outstanding` records go to Kafka."""
        key_of = self._key_of
        latest: dict[bytes, SourceOffset | None] = {}
        # Tasks usually reuse one partition map for a run of records: look its key up once per run.
        last_partition: Any = None
        last_key: bytes | None = None
        for record in records:
            partition = record.source_partition
            if partition is not last_partition:
                last_partition = partition
                last_key = None if partition is None else key_of(partition)
            if last_key is not None:
                latest[last_key] = record.source_offset
        return self._track(latest, outstanding)

    def submit_batches(self, batches: Sequence[SourceRecordBatch], outstanding: int) -> SubmittedBatch:
        """Track one poll's batches as one submitted batch, of which `outstanding` records go to Kafka."""
        key_of = self._key_of
        latest: dict[bytes, SourceOffset | None] = {}
        for batch in batches:
            partition = batch.source_partition
            if partition is not None and batch.values:
                latest[key_of(partition)] = batch.last_source_offset
        return self._track(latest, outstanding)

    def _track(self, latest: dict[bytes, SourceOffset | None], outstanding: int) -> SubmittedBatch:
        batch = SubmittedBatch(latest, outstanding)
        pending = self._pending
        for key, offset in latest.items():
            queue = pending.get(key)
            if queue is None:
                queue = pending[key] = deque()
            queue.append((batch, offset))
        self._unfinished.append(batch)
        return batch

    def acknowledge_all(self) -> None:
        """The producer is empty: every batch submitted so far is complete, except those marked failed."""
        for batch in self._unfinished:
            batch.outstanding = 0
        self._unfinished.clear()

    def committable(self) -> dict[bytes, bytes | None]:
        """Encoded offsets that became committable since the last call (and forget them)."""
        result: dict[bytes, bytes | None] = {}
        emptied: list[bytes] = []
        for key, queue in self._pending.items():
            found = False
            offset: SourceOffset | None = None
            while queue and queue[0][0].done:
                offset = queue.popleft()[1]
                found = True
            if found:
                result[key] = encode_offset(offset)
            if not queue:
                emptied.append(key)
        for key in emptied:
            del self._pending[key]
        unfinished = self._unfinished
        while unfinished and unfinished[0].outstanding <= 0:
            unfinished.popleft()
        return result

    def outstanding_records(self) -> int:
        """Records submitted whose delivery is not known yet (read from other threads: a best effort)."""
        try:
            return sum(batch.outstanding for batch in list(self._unfinished))
        except RuntimeError:  # the task thread changed the queue while it was copied
            return 0

    def pending_partitions(self) -> int:
        """Source partitions with offsets not committable yet."""
        return len(self._pending)
