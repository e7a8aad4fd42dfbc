"""Translates a consumer group's upstream offset to the target cluster from the offset syncs (Java's
`OffsetSyncStore`, with Kafka 3.6's sync history, KAFKA-14666 and KAFKA-15202).

Pure decisions, no I/O: the caller feeds every offset sync read from the offset-syncs topic, in order, and says
when its first read to the end is done. Each upstream partition keeps 64 syncs, `syncs[0]` the latest and
`syncs[63]` the oldest kept, spread so that precision is finest near the live end and halves with each step
back (invariants of Java's store, `i < j`):

- A: `syncs[0]` is the latest sync read;
- B (recent enough): `syncs[i].up <= syncs[j].up + 2**j - 2**i`;
- C (spread out): `syncs[i].up >= syncs[j].up + 2**max(i - 2, 0)`.

Translation of upstream offset `o` uses the newest kept sync at or before `o`: its downstream offset when `o`
is exactly its upstream offset, else one past it, since records after a sync may or may not be mirrored and
guessing more could skip one. So a translated offset is never ahead of the first unconsumed record (no loss,
no negative lag), and what a group re-reads after failing over grows with the age of its offset instead of
being unbounded.

Beyond Java (kconnect's `offset-syncs.history.size`, `history` here): the latest `history` syncs of each
partition are also kept in full, two packed longs each. A group whose offset is within them is translated from
the newest sync at or before it, one of those the source task emits every `offset.lag.max` records, so it
re-reads less than about `offset.lag.max` records however far behind the mirror it is; older offsets fall back
to the 64 spread-out syncs. Java's store keeps only those: a group 2,000 records behind the head of its
partitions (`offset.lag.max=100`) was translated by Java 4.3.1 to where it re-read up to three quarters of
what it had read. The full history is what this task read: syncs compacted away before it started are not in
it, and it follows the same rules (a rewind clears it; during a first read that must reach the end it keeps
only the last sync), so every translation is still never ahead.

Syncs are compared by identity, as Java's store does, so two equal syncs read from two records stay two.
Offsets are Java longs: bounds that overflow wrap as they do there.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence

from connect.mirror.records import OffsetSync

SYNCS_PER_PARTITION = 64
_LONG_RANGE = 1 << 64
_LONG_MAX = (1 << 63) - 1


def _long(value: int) -> int:
    """`value` as a Java long computes it (two's complement, 64 bits)."""
    value %= _LONG_RANGE
    return value - _LONG_RANGE if value > _LONG_MAX else value


def _recent_enough(i_sync: OffsetSync, j_sync: OffsetSync, i: int, j: int) -> bool:
    """Invariant B for `syncs[i]` and `syncs[j]`."""
    bound = _long(j_sync.upstream_offset + _long(1 << j) - (1 << i))
    return i_sync is j_sync or bound < 0 or i_sync.upstream_offset <= bound


def _spread_out(i_sync: OffsetSync, j_sync: OffsetSync, i: int) -> bool:
    """Invariant C for `syncs[i]` and the sync kept after it."""
    bound = _long(j_sync.upstream_offset + (1 << max(i - 2, 0)))
    return i_sync is j_sync or (bound >= 0 and i_sync.upstream_offset >= bound)


class _FullHistory:
    """The latest syncs of one partition, every one, oldest first, as two arrays of longs."""

    def __init__(self, size: int) -> None:
        self._size = size
        self.upstream = array("q")
        self.downstream = array("q")

    def add(self, sync: OffsetSync) -> None:
        if self.upstream and sync.upstream_offset <= self.upstream[-1]:
            if sync.upstream_offset < self.upstream[-1]:  # a rewind: as for the spread-out syncs
                self.clear()
            else:  # the same upstream offset again: the newer sync stands for it
                self.upstream.pop()
                self.downstream.pop()
        self.upstream.append(sync.upstream_offset)
        self.downstream.append(sync.downstream_offset)
        if len(self.upstream) >= 2 * self._size:  # trimmed in halves, not one sync at a time
            del self.upstream[: -self._size]
            del self.downstream[: -self._size]

    def clear(self) -> None:
        del self.upstream[:]
        del self.downstream[:]

    def translate(self, upstream_offset: int) -> int | None:
        """From the newest sync at or before `upstream_offset`; None if it is older than every one kept."""
        index = bisect_right(self.upstream, upstream_offset) - 1
        if index < 0:
            return None
        step = 0 if self.upstream[index] == upstream_offset else 1
        return self.downstream[index] + step


class OffsetSyncStore:
    """The kept syncs of every upstream partition; the caller reads the offset-syncs topic into it.

    `initialization_must_read_to_end`: during the first read, keep only the last sync of each partition (what
    Java's checkpoint task asks for when it could not read its checkpoints back, so translations stay
    monotonic with checkpoints it cannot see). Not thread-safe: one reader thread, or the caller's lock."""

    def __init__(self, initialization_must_read_to_end: bool = True, history: int = 0) -> None:
        self._initialization_must_read_to_end = initialization_must_read_to_end
        self._read_to_end = False
        self._syncs: dict[tuple[str, int], list[OffsetSync]] = {}
        self._history_size = history
        self._history: dict[tuple[str, int], _FullHistory] = {}

    def read_to_end_done(self) -> None:
        """The first read of the offset-syncs topic reached its end: translation may begin."""
        self._read_to_end = True

    def handle(self, sync: OffsetSync) -> None:
        """Take the next offset sync read from the topic."""
        partition = (sync.topic, sync.partition)
        if self._history_size > 0:
            history = self._history.setdefault(partition, _FullHistory(self._history_size))
            if not self._read_to_end and self._initialization_must_read_to_end:
                history.clear()
            history.add(sync)
        current = self._syncs.get(partition)
        if current is None:
            self._syncs[partition] = [sync] * SYNCS_PER_PARTITION
            return
        self._syncs[partition] = self._updated(current, sync)

    def translate_downstream(self, topic: str, partition: int, upstream_offset: int) -> int | None:
        """The target offset for a group at `upstream_offset` of `topic`-`partition`: None before the first
        read to the end or without syncs for the partition, -1 when the offset is older than every kept sync
        (the caller emits no checkpoint for it)."""
        if not self._read_to_end:
            return None
        syncs = self._syncs.get((topic, partition))
        if syncs is None:
            return None
        history = self._history.get((topic, partition))
        precise = None if history is None else history.translate(upstream_offset)
        if precise is not None:
            return precise
        sync = _latest_at_or_before(syncs, upstream_offset)
        if sync.upstream_offset > upstream_offset:
            return -1
        step = 0 if upstream_offset == sync.upstream_offset else 1
        return sync.downstream_offset + step

    def kept(self, topic: str, partition: int) -> list[OffsetSync]:
        """The distinct syncs kept for a partition, newest first (for tests and diagnostics)."""
        distinct: list[OffsetSync] = []
        for sync in self._syncs.get((topic, partition), []):
            if not distinct or distinct[-1] is not sync:
                distinct.append(sync)
        return distinct

    def _updated(self, original: list[OffsetSync], sync: OffsetSync) -> list[OffsetSync]:
        only_last = not self._read_to_end and self._initialization_must_read_to_end
        if only_last or sync.upstream_offset < original[0].upstream_offset:  # an upstream rewind voids the past
            return [sync] * SYNCS_PER_PARTITION
        syncs = list(original)
        syncs[0] = sync  # invariant A
        replacement = sync
        replacement_index = 0  # the next old sync considered as a replacement, never past `current`
        for current in range(1, SYNCS_PER_PARTITION):
            previous = current - 1
            while True:
                old = original[replacement_index]
                recent = _recent_enough(syncs[previous], old, previous, current)
                apart_from_previous = _spread_out(syncs[previous], old, previous)
                following = current + 1
                apart_from_next = following >= SYNCS_PER_PARTITION or _spread_out(old, syncs[following], current)
                duplicate = replacement_index + 1 < SYNCS_PER_PARTITION and old is original[replacement_index + 1]
                # An old sync valid here is kept in preference to the new one, so more distinct syncs survive.
                promote = recent and apart_from_previous and apart_from_next
                if promote:
                    replacement = old
                # Too close to the previous slot, it can never be valid further back either.
                skip = duplicate or not apart_from_previous
                if promote or skip:
                    replacement_index += 1
                if not (replacement_index < current and skip):
                    break
            if _recent_enough(syncs[previous], syncs[current], previous, current):
                break  # B holds here, so it holds for every later slot: keep the older tail as it is
            syncs[current] = replacement
        return syncs


def _latest_at_or_before(syncs: Sequence[OffsetSync], upstream_offset: int) -> OffsetSync:
    for sync in syncs:
        if sync.upstream_offset <= upstream_offset:
            return sync
    return syncs[-1]
