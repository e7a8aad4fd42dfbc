"""The stall guard: a sink consumer that stood still holds its records back (and rewinds) instead of
handing them to the task; time spent in rebalance callbacks does not count as standing still."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from connect.api.records import TopicPartition
from connect.runtime.kafka import RebalanceListener
from workers.distributed.stall import GuardedSinkConsumer, StallGuard, stall_threshold


@dataclass
class Message:
    _topic: str
    _partition: int
    _offset: int

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def key(self) -> bytes | None:
        return None

    def value(self) -> bytes | None:
        return None

    def headers(self) -> None:
        return None

    def timestamp(self) -> tuple[int, int]:
        return (0, 0)

    def error(self) -> Any:
        return None


@dataclass
class FakeConsumer:
    """Returns `batches` one per consume; `stand_still` seconds pass inside the call (monkeypatched clock)."""

    batches: list[list[Message]]
    clock: list[float]
    stand_still: float = 0.0
    callback_time: float = 0.0
    max_records: int = 500
    seeks: dict[TopicPartition, int] = field(default_factory=dict)
    listener: RebalanceListener | None = None

    def consume(self, max_records: int, timeout: float) -> list[Any]:
        self.clock[0] += timeout + self.stand_still
        if self.listener is not None:
            self.listener.on_partitions_revoked([TopicPartition("t", 0)])
        return self.batches.pop(0) if self.batches else []

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self.seeks[partition] = offset

    def subscribe(self, topics: Sequence[str], pattern: str | None, listener: RebalanceListener) -> None:
        self.listener = listener

    def assignment(self) -> set[TopicPartition]:
        return set()

    def lags(self, *, fresh: bool, timeout: float) -> dict[TopicPartition, int]:
        return {}

    def pause(self, partitions: Iterable[TopicPartition]) -> None: ...

    def resume(self, partitions: Iterable[TopicPartition]) -> None: ...

    def set_pause_all(self, paused: bool) -> None: ...

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]:
        return {}

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None: ...

    def close(self) -> None: ...


@dataclass
class Listener:
    """The task's listener; a revocation takes `busy` seconds (a sink flushing)."""

    clock: list[float]
    busy: float

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        return {}

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        self.clock[0] += self.busy

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None: ...


def guarded(consumer: FakeConsumer, guard: StallGuard, monkeypatch: Any) -> GuardedSinkConsumer:
    monkeypatch.setattr(time, "monotonic", lambda: consumer.clock[0])
    wrapper = GuardedSinkConsumer(consumer, guard)
    wrapper.subscribe(["t"], None, Listener(consumer.clock, consumer.callback_time))
    return wrapper


BATCH = [Message("t", 0, 7), Message("t", 0, 8), Message("t", 1, 3)]


def test_records_pass_while_the_process_keeps_running(monkeypatch: Any) -> None:
    guard = StallGuard(2.0)
    consumer = FakeConsumer([list(BATCH)], [0.0], stand_still=0.3)

    assert guarded(consumer, guard, monkeypatch).consume(500, 1.0) == BATCH
    assert not guard.raised


def test_a_consume_that_stood_still_rewinds_its_records_and_raises_the_guard(monkeypatch: Any) -> None:
    guard = StallGuard(2.0)
    consumer = FakeConsumer([list(BATCH)], [0.0], stand_still=5.0)

    assert guarded(consumer, guard, monkeypatch).consume(500, 1.0) == []
    assert guard.raised
    assert consumer.seeks == {TopicPartition("t", 0): 7, TopicPartition("t", 1): 3}


def test_while_the_guard_is_up_nothing_reaches_the_task(monkeypatch: Any) -> None:
    guard = StallGuard(2.0)
    guard.raise_(9.0, "the membership thread")
    consumer = FakeConsumer([list(BATCH)], [0.0])
    wrapper = guarded(consumer, guard, monkeypatch)

    assert wrapper.consume(500, 1.0) == []
    guard.lower()
    consumer.batches.append(list(BATCH))
    assert wrapper.consume(500, 1.0) == BATCH


def test_time_in_rebalance_callbacks_is_not_standing_still(monkeypatch: Any) -> None:
    guard = StallGuard(2.0)
    consumer = FakeConsumer([list(BATCH)], [0.0], callback_time=10.0)

    assert guarded(consumer, guard, monkeypatch).consume(500, 1.0) == BATCH
    assert not guard.raised


def test_the_threshold_leaves_a_heartbeat_and_a_margin_of_the_session() -> None:
    assert stall_threshold(10.0, 3.0) == 6.5
    assert stall_threshold(3.0, 0.5) == 2.0
    assert stall_threshold(1.0, 0.5) == 0.5
