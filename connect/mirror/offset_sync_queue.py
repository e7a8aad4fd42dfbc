"""Which offset syncs a mirror source task sends, and when (Java's `OffsetSyncWriter` and its `PartitionState`).

For every mirrored record the target acknowledged, `(upstream offset, downstream offset)` of its partition is
offered. A sync is due at once when the translation of the partition would otherwise be too stale or wrong:

- no sync yet in this task's lifetime;
- the downstream offset is `offset.lag.max` or more past one after the last sync (translation answers "one
  past the last sync", so that is where the staleness is measured from);
- the upstream offset did not follow the previous one by exactly 1 (compaction, transaction markers,
  records filtered by a transform, a rewind);
- the downstream offset went back (the remote topic was truncated or re-created).

A due sync is *pending* (sent as soon as fewer than 10 are in flight); any other is *delayed*, the latest per
partition, and becomes pending at the next offset commit, so a partition that goes idle still gets a sync for
its last record. Pending syncs are sent in the order they became pending.

Unlike Java's, a pending sync is never replaced by a newer one of its partition while the 10 in flight are
outstanding: in a burst (a task catching up) Java sends only the latest and the syncs between are lost, so
translation of a group between them is coarser than `offset.lag.max`. Here every due sync is sent (one per
`offset.lag.max` records at most), which is what keeps the checkpoint task's full history
(`offset_sync_store`) within `offset.lag.max`.

Thread rules: `offer` runs on the producer's delivery thread, `promote_delayed` on the offset-commit thread,
`take_sendable` and `sent` wherever the task sends; one lock guards the queues.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from connect.mirror.records import OffsetSync

MAX_IN_FLIGHT = 10


@dataclass
class _PartitionState:
    previous_upstream: int = -1
    previous_downstream: int = -1
    last_sync_downstream: int = -1


def _both_contiguous(upstream: Sequence[int], downstream: Sequence[int]) -> bool:
    """Whether the run's offsets follow each other by 1 on both sides (a `range` downstream: offsets derived
    from a gap-less run's ends; upstream offsets only ever increase, so their span says it)."""
    return (
        isinstance(downstream, range)
        and len(downstream) > 1
        and downstream.step == 1
        and downstream.start >= 0
        and len(upstream) == len(downstream)
        and upstream[-1] - upstream[0] == len(upstream) - 1
    )


class OffsetSyncQueue:
    def __init__(self, max_offset_lag: int) -> None:
        self._max_offset_lag = max_offset_lag
        self._states: dict[tuple[str, int], _PartitionState] = {}
        self._pending: deque[OffsetSync] = deque()
        self._delayed: dict[tuple[str, int], OffsetSync] = {}
        self._in_flight = 0
        self._lock = threading.Lock()

    def offer(self, topic: str, partition: int, upstream_offset: int, downstream_offset: int) -> bool:
        """Take the offsets of an acknowledged record of upstream `topic`-`partition`; True if its sync is due."""
        return self.offer_run(topic, partition, (upstream_offset,), (downstream_offset,))

    def offer_run(
        self, topic: str, partition: int, upstream_offsets: Sequence[int], downstream_offsets: Sequence[int]
    ) -> bool:
        """`offer` for acknowledged records of one partition, in order, under one lock (a negative downstream
        offset: a record not on the target, or at an offset not reported, skipped); True if any sync became due."""
        key = (topic, partition)
        lag = self._max_offset_lag
        due_any = False
        with self._lock:
            state = self._states.setdefault(key, _PartitionState())
            previous_upstream, previous_downstream = state.previous_upstream, state.previous_downstream
            last_sync = state.last_sync_downstream
            # In a run contiguous on both sides, only staleness can make a record after the first due: at every
            # `offset.lag.max + 1`-th downstream offset, found below without a step per record.
            contiguous = lag > 0 and _both_contiguous(upstream_offsets, downstream_offsets)
            if contiguous:
                offsets = zip(upstream_offsets[:1], downstream_offsets[:1], strict=True)
            else:
                offsets = zip(upstream_offsets, downstream_offsets, strict=True)
            for upstream, downstream in offsets:
                if downstream < 0:
                    continue
                due = (
                    last_sync == -1
                    or downstream - (last_sync + 1) >= lag
                    or upstream - previous_upstream != 1
                    or downstream < previous_downstream
                )
                previous_upstream, previous_downstream = upstream, downstream
                if due:
                    last_sync = downstream
                    self._pending.append(OffsetSync(topic, partition, upstream, downstream))
                    due_any = True
            if contiguous:
                first_upstream, first_downstream = upstream_offsets[0], downstream_offsets[0]
                for downstream in range(last_sync + 1 + lag, downstream_offsets[-1] + 1, lag + 1):
                    upstream = first_upstream + downstream - first_downstream
                    self._pending.append(OffsetSync(topic, partition, upstream, downstream))
                    last_sync, due_any = downstream, True
                previous_upstream, previous_downstream = upstream_offsets[-1], downstream_offsets[-1]
            state.previous_upstream, state.previous_downstream = previous_upstream, previous_downstream
            state.last_sync_downstream = last_sync
            if previous_downstream == last_sync:
                self._delayed.pop(key, None)  # the latest record's sync is pending already
            elif previous_downstream >= 0:
                self._delayed[key] = OffsetSync(topic, partition, previous_upstream, previous_downstream)
        return due_any

    def promote_delayed(self) -> None:
        """At an offset commit: every delayed sync becomes pending."""
        with self._lock:
            self._pending.extend(self._delayed.values())
            self._delayed.clear()

    def take_sendable(self) -> list[OffsetSync]:
        """The pending syncs that may be sent now (each counts as in flight until `sent`), oldest first."""
        taken: list[OffsetSync] = []
        with self._lock:
            while self._pending and self._in_flight < MAX_IN_FLIGHT:
                taken.append(self._pending.popleft())
                self._in_flight += 1
        return taken

    def waiting(self) -> bool:
        """Whether pending syncs wait for room (10 in flight); read without the lock, as a hint."""
        return bool(self._pending)

    def sent(self) -> None:
        """A sync's send completed, delivered or failed (a lost sync only delays translation; it is not retried)."""
        with self._lock:
            self._in_flight -= 1

    def forget(self, topic: str, partition: int) -> None:
        """The partition is no longer this task's: its state and queued syncs go."""
        key = (topic, partition)
        with self._lock:
            self._states.pop(key, None)
            self._pending = deque(s for s in self._pending if (s.topic, s.partition) != key)
            self._delayed.pop(key, None)
