"""Zombie protection for a worker that was stopped (SIGSTOP, a paused VM, a long GC or swap stall).

While the process stood still the group may have given its slots to other workers; librdkafka learns
that only at its next heartbeat, and until the membership thread has served `on_lost`, the task threads,
woken at the same moment, would carry on. Kafka-side fencing covers Kafka writes (transactional ids of
exactly-once sources, the consumer-group generation of sink commits), but not what a sink task hands to
an external system. So:

- `StallGuard` is raised by whichever thread first notices that the process stood still for longer than
  `threshold` (the session timeout minus a heartbeat and a margin: past that, the membership may be
  gone). The membership thread then drops every slot and rejoins with a new consumer; the guard is
  lowered when the new consumer subscribes, with nothing running until it is assigned slots again.
- `GuardedSinkConsumer` wraps each sink task's consumer: a `consume` call that itself stood still past
  the threshold raises the guard; while the guard is up, records just fetched are not handed to the
  task but rewound (seek back), so nothing is lost if the membership turns out to be intact.

Threads: the guard is shared by the membership thread and every sink task thread (an Event inside).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence

from connect.api.errors import ConnectError
from connect.api.records import TopicPartition
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import KafkaClients, KafkaMessage, RebalanceListener, SinkConsumer

log = logging.getLogger(__name__)


def stall_threshold(session_timeout_s: float, heartbeat_s: float) -> float:
    """A stall longer than this may have cost the membership (its last heartbeat may be H old already)."""
    return max(0.5, session_timeout_s - heartbeat_s - 0.5)


class StallGuard:
    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self._raised = threading.Event()

    @property
    def raised(self) -> bool:
        return self._raised.is_set()

    def raise_(self, stood_still: float, where: str) -> None:
        if not self._raised.is_set():
            log.warning(
                "This process stood still for %.1f s (noticed by %s): its slots may belong to other workers now; "
                "stopping all work and rejoining the group",
                stood_still,
                where,
            )
        self._raised.set()

    def lower(self) -> None:
        if self._raised.is_set():
            log.info("Rejoined the group after standing still; work resumes")
        self._raised.clear()


class _TimedListener:
    """A RebalanceListener that adds up the time its callbacks take (they run inside `consume`)."""

    def __init__(self, inner: RebalanceListener) -> None:
        self._inner = inner
        self.busy = 0.0

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        started = time.monotonic()
        try:
            return self._inner.on_partitions_assigned(partitions)
        finally:
            self.busy += time.monotonic() - started

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        started = time.monotonic()
        try:
            self._inner.on_partitions_revoked(partitions)
        finally:
            self.busy += time.monotonic() - started

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None:
        started = time.monotonic()
        try:
            self._inner.on_partitions_lost(partitions)
        finally:
            self.busy += time.monotonic() - started


class GuardedSinkConsumer:
    """A `SinkConsumer` that holds records back while the stall guard is up (see the module docstring)."""

    def __init__(self, inner: SinkConsumer, guard: StallGuard) -> None:
        self._inner = inner
        self._guard = guard
        self._listener: _TimedListener | None = None
        self.max_records = inner.max_records

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        listener = self._listener
        busy_before = listener.busy if listener is not None else 0.0
        started = time.monotonic()
        messages = self._inner.consume(max_records, timeout)
        # Time in rebalance callbacks (a sink flushing on revocation) is work, not standing still.
        stood = time.monotonic() - started - timeout - ((listener.busy if listener is not None else 0.0) - busy_before)
        if stood > self._guard.threshold:
            self._guard.raise_(stood, "a sink task's consumer")
        if not self._guard.raised or not messages:
            return messages
        self._rewind(messages)
        return []

    def _rewind(self, messages: Sequence[KafkaMessage]) -> None:
        first: dict[TopicPartition, int] = {}
        for message in messages:
            topic, partition, offset = message.topic(), message.partition(), message.offset()
            if topic is None or partition is None or offset is None:
                continue
            key = TopicPartition(topic, partition)
            first[key] = min(offset, first.get(key, offset))
        for rewound, offset in first.items():
            try:
                self._inner.seek(rewound, offset)
            except ConnectError as exc:
                # Not ours any more (lost in the meantime): the new owner reads from the committed offset.
                log.debug("Could not rewind %s to %d: %s", rewound, offset, exc)

    # -- everything else goes straight through ----------------------------------------------------

    def subscribe(self, topics: Sequence[str], pattern: str | None, listener: RebalanceListener) -> None:
        self._listener = _TimedListener(listener)
        self._inner.subscribe(topics, pattern, self._listener)

    def assignment(self) -> set[TopicPartition]:
        return self._inner.assignment()

    def lags(self, *, fresh: bool, timeout: float) -> dict[TopicPartition, int]:
        return self._inner.lags(fresh=fresh, timeout=timeout)

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        self._inner.pause(partitions)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        self._inner.resume(partitions)

    def set_pause_all(self, paused: bool) -> None:
        self._inner.set_pause_all(paused)

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self._inner.seek(partition, offset)

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]:
        return self._inner.committed(partitions, timeout)

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None:
        self._inner.commit(offsets, timeout)

    def close(self) -> None:
        self._inner.close()


class GuardedClients(KafkaClients):
    """The connectors' client factory, with every sink consumer behind the stall guard."""

    def __init__(
        self,
        *,
        producer_props: Mapping[str, str],
        consumer_props: Mapping[str, str],
        admin_props: Mapping[str, str],
        override_policy: str,
        guard: StallGuard,
    ) -> None:
        super().__init__(
            producer_props=producer_props,
            consumer_props=consumer_props,
            admin_props=admin_props,
            override_policy=override_policy,
        )
        self._guard = guard

    def sink_consumer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> SinkConsumer:
        return GuardedSinkConsumer(super().sink_consumer(task, connector_config), self._guard)
