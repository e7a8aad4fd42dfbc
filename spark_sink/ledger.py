"""What the task knows is committed per topic partition, shared by the task and writer threads.

A partition's `Ledger` is installed by recovery when the partition is assigned and removed when it is
revoked. Each installation gets a new `generation`: batches carry the generation they were buffered
under, and the writer creates a manifest only while holding the lock and only if the partition's
ledger still has that generation. So once `close(partitions)` has removed a ledger, this task can
no longer commit anything for it, and after a lost manifest race the stale batches die quietly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

from connect.api import TopicPartition


@dataclass(frozen=True)
class Ledger:
    generation: int
    next_seq: int
    published_end: int | None


class Ledgers:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ledgers: dict[TopicPartition, Ledger] = {}
        self._generations = 0

    def install(self, tp: TopicPartition, next_seq: int, published_end: int | None) -> Ledger:
        with self._lock:
            self._generations += 1
            ledger = Ledger(self._generations, next_seq, published_end)
            self._ledgers[tp] = ledger
            return ledger

    def remove(self, tp: TopicPartition) -> None:
        with self._lock:
            self._ledgers.pop(tp, None)

    def clear(self) -> None:
        with self._lock:
            self._ledgers.clear()

    def get(self, tp: TopicPartition) -> Ledger | None:
        with self._lock:
            return self._ledgers.get(tp)

    def partitions(self) -> set[TopicPartition]:
        with self._lock:
            return set(self._ledgers)

    def published(self) -> dict[TopicPartition, int]:
        """The last committed offset of every assigned partition that has one."""
        with self._lock:
            return {tp: lg.published_end for tp, lg in self._ledgers.items() if lg.published_end is not None}

    def commit(self, tp: TopicPartition, generation: int, seq: int, end_offset: int, create: Callable[[], bool]) -> str:
        """Runs `create` (the exclusive manifest create) if the ledger is still current.

        Returns "committed", "lost" (the sequence number was taken: another writer is ahead) or
        "stale" (the partition was revoked or re-recovered since the batch was buffered).
        """
        with self._lock:
            ledger = self._ledgers.get(tp)
            if ledger is None or ledger.generation != generation or ledger.next_seq != seq:
                return "stale"
            if not create():
                return "lost"
            self._ledgers[tp] = replace(ledger, next_seq=seq + 1, published_end=end_offset)
            return "committed"
