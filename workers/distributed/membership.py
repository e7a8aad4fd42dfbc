"""`Membership`: this worker's seat in the cluster: one consumer in the workers' group, on its own thread.

The consumer subscribes to the slots topic (N partitions) with the classic group protocol and the
`cooperative-sticky` assignor; owning partition s is owning slot s. Kafka's group coordinator is the
failure detector and the source of exclusivity (`docs/distributed.md`). The consumer carries no data:
all its partitions stay paused, and it is polled only to serve the rebalance callbacks, which run on
the membership thread inside `consume`:

- assigned: the slots are ours; the listener is told and must return at once (it only queues work);
- revoked: the slots move to another worker once the callback returns, so the listener stops their
  work before returning (bounded by `task.shutdown.graceful.timeout.ms`);
- lost: the group already gave the slots away (session expired, fenced); the listener stops their work
  at once.

`stop` leaves the group from the membership thread: `close()` revokes every slot (the listener stops
its work) and sends LeaveGroup, so the survivors take the slots without waiting for the session timeout.
A fatal consumer error counts as losing every slot; the thread then rejoins with a new consumer. So does
a process stall (`stall.py`): when the loop finds it stood still past the guard's threshold, or a sink
task's consumer raised the guard, every slot is dropped at once (before librdkafka may even know) and
the member rejoins; the guard is lowered when the new consumer subscribes (nothing runs until it is
assigned slots again).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from connect.api.errors import RetriableError
from connect.api.records import TopicPartition
from connect.runtime.kafka import SinkConsumer
from connect.runtime.metrics.windows import Windows
from workers.distributed.cluster_metrics import RebalanceMetrics
from workers.distributed.stall import StallGuard

log = logging.getLogger(__name__)

POLL_TIMEOUT_S = 0.2
_REJOIN_BACKOFF_S = 1.0


class SlotListener(Protocol):
    """What the herder does when slots change hands; called on the membership thread."""

    def slots_assigned(self, slots: frozenset[int]) -> None: ...

    def slots_revoked(self, slots: frozenset[int]) -> None: ...

    def slots_lost(self, slots: frozenset[int]) -> None: ...


ConsumerFactory = Callable[[], SinkConsumer]


class _Rejoin(Exception):
    """The process stood still: drop everything and rejoin with a new consumer."""


class Membership:
    def __init__(
        self,
        consumer_factory: ConsumerFactory,
        topic: str,
        listener: SlotListener,
        *,
        name: str,
        guard: StallGuard | None = None,
        rebalances: RebalanceMetrics | None = None,
    ) -> None:
        """`rebalances`: told of each slot change (a rebalance callback), for the worker's metrics."""
        self._factory = consumer_factory
        self.rebalances = rebalances or RebalanceMetrics(Windows())
        self._guard = guard
        self._busy = 0.0  # seconds spent in rebalance callbacks, which run inside consume
        self._topic = topic
        self._listener = listener
        self._name = name
        self._owned: frozenset[int] = frozenset()
        self._owned_lock = threading.Lock()
        self._stopping = threading.Event()
        self._joined = threading.Event()
        self._thread: threading.Thread | None = None

    # -- lifecycle (any thread) ------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"{self._name}-membership", daemon=True)
        self._thread.start()

    def stop(self, timeout: float) -> bool:
        """Leave the group (revoking every slot first); True if the thread ended within `timeout`."""
        self._stopping.set()
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def owned(self) -> frozenset[int]:
        with self._owned_lock:
            return self._owned

    def wait_joined(self, timeout: float) -> bool:
        """True once the first slots were assigned (an empty cooperative assignment is not reported)."""
        return self._joined.wait(timeout)

    # -- the membership thread -------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                consumer = self._factory()
            except Exception:
                log.exception("Could not create the membership consumer; retrying")
                self._stopping.wait(_REJOIN_BACKOFF_S)
                continue
            try:
                self._serve(consumer)
            except _Rejoin:
                self._lose_everything()
                self._close(consumer)
                continue
            except Exception:
                log.exception("Membership consumer failed: treating every slot as lost and rejoining")
                self._lose_everything()
                self._close(consumer)
                self._stopping.wait(_REJOIN_BACKOFF_S)
                continue
            self._close(consumer)
            return

    def _serve(self, consumer: SinkConsumer) -> None:
        consumer.set_pause_all(True)
        if self._guard is not None:
            self._guard.lower()  # a new consumer: whatever it is assigned is ours
        consumer.subscribe([self._topic], None, _Callbacks(self))
        log.info("Joining the workers' group through topic %s", self._topic)
        while not self._stopping.is_set():
            started, busy = time.monotonic(), self._busy
            try:
                consumer.consume(consumer.max_records, POLL_TIMEOUT_S)
            except RetriableError as exc:
                log.warning("Membership consumer: %s (retrying)", exc)
            self._check_stall(time.monotonic() - started - POLL_TIMEOUT_S - (self._busy - busy))

    def _check_stall(self, stood: float) -> None:
        guard = self._guard
        if guard is None:
            return
        if stood > guard.threshold:
            guard.raise_(stood, "the membership thread")
        if guard.raised:
            raise _Rejoin()

    def _close(self, consumer: SinkConsumer) -> None:
        started = time.monotonic()
        try:
            consumer.close()
        except Exception:
            log.exception("Closing the membership consumer failed")
        # close() revoked what it could; anything still held is gone now.
        self._lose_everything()
        log.info("Left the workers' group (%.2f s)", time.monotonic() - started)

    def _lose_everything(self) -> None:
        owned = self.owned()
        if owned:
            self._lost(owned)

    # -- callbacks (membership thread, inside consume/close) --------------------------------------

    def _assigned(self, slots: frozenset[int]) -> None:
        if self._guard is not None and self._guard.raised:
            return  # a consumer of before the stall: it is about to be replaced
        with self._owned_lock:
            self._owned = self._owned | slots
        self._joined.set()
        log.info("Slots assigned: %s (now %d owned)", _ranges(slots), len(self._owned))
        _guard(self._listener.slots_assigned, slots)

    def _revoked(self, slots: frozenset[int]) -> None:
        started = time.monotonic()
        _guard(self._listener.slots_revoked, slots)
        with self._owned_lock:
            self._owned = self._owned - slots
        log.info("Slots revoked: %s (handed over in %.2f s)", _ranges(slots), time.monotonic() - started)

    def _lost(self, slots: frozenset[int]) -> None:
        with self._owned_lock:
            self._owned = self._owned - slots
        log.warning("Slots lost: %s", _ranges(slots))
        _guard(self._listener.slots_lost, slots)


class _Callbacks:
    """The consumer's RebalanceListener, translating partitions of the slots topic to slot numbers."""

    def __init__(self, membership: Membership) -> None:
        self._membership = membership

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        self._timed(self._membership._assigned, partitions)
        return {}

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        self._timed(self._membership._revoked, partitions)

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None:
        self._timed(self._membership._lost, partitions)

    def _timed(self, callback: Callable[[frozenset[int]], None], partitions: list[TopicPartition]) -> None:
        started = time.monotonic()
        rebalance = self._membership.rebalances.began()
        try:
            callback(frozenset(p.partition for p in partitions))
        finally:
            self._membership.rebalances.ended(rebalance)
            self._membership._busy += time.monotonic() - started


def _guard(callback: Callable[[frozenset[int]], None], slots: frozenset[int]) -> None:
    # An exception escaping a rebalance callback cannot undo the assignment change; log it and go on.
    try:
        callback(slots)
    except Exception:
        log.exception("Slot listener %s failed for slots %s", getattr(callback, "__name__", callback), _ranges(slots))


def _ranges(slots: frozenset[int]) -> str:
    """`0-3,7,9-10`: slot sets in logs stay short."""
    ordered = sorted(slots)
    if not ordered:
        return "none"
    parts: list[str] = []
    start = prev = ordered[0]
    for slot in ordered[1:]:
        if slot != prev + 1:
            parts.append(f"{start}-{prev}" if start != prev else str(start))
            start = slot
        prev = slot
    parts.append(f"{start}-{prev}" if start != prev else str(start))
    return ",".join(parts)
