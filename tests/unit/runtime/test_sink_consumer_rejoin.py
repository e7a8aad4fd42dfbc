"""A sink consumer that lost its partitions and is not given any again within its rejoin timeout is replaced
by a new consumer that joins the group afresh; the replaced one closes without touching the task."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from confluent_kafka import TopicPartition as KafkaTopicPartition

from connect.api.records import TopicPartition
from connect.runtime.kafka.consumer import KafkaSinkConsumer
from connect.runtime.kafka.factory import rejoin_timeout

Callback = Callable[[Any, list[KafkaTopicPartition]], None]


class FakeConsumer:
    """What KafkaSinkConsumer uses of confluent_kafka.Consumer; the test plays the group coordinator by
    calling the rebalance callbacks, as librdkafka does inside poll."""

    def __init__(self) -> None:
        self.subscription: list[str] | None = None
        self.callbacks: dict[str, Callback] = {}
        self.assigned: list[KafkaTopicPartition] = []
        self.closed = threading.Event()

    def subscribe(self, topics: list[str], **callbacks: Callback) -> None:
        self.subscription = topics
        self.callbacks = callbacks

    def consume(self, num_messages: int, timeout: float) -> list[Any]:
        return []

    def poll(self, timeout: float) -> Any:
        return None

    def assign(self, partitions: list[KafkaTopicPartition]) -> None:
        self.assigned = list(partitions)

    def unassign(self) -> None:
        self.assigned = []

    def pause(self, partitions: list[KafkaTopicPartition]) -> None:
        pass

    def assignment(self) -> list[KafkaTopicPartition]:
        return self.assigned

    def close(self) -> None:
        self.closed.set()

    def rebalance(self, kind: str, *partitions: int) -> None:
        self.callbacks[f"on_{kind}"](self, [KafkaTopicPartition("t", p) for p in partitions])


class Listener:
    def __init__(self) -> None:
        self.events: list[tuple[str, list[int]]] = []

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        self.events.append(("assigned", [tp.partition for tp in partitions]))
        return {}

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        self.events.append(("revoked", [tp.partition for tp in partitions]))

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None:
        self.events.append(("lost", [tp.partition for tp in partitions]))


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Subscribed:
    """A sink consumer subscribed to topic `t`, with its clock, the fake consumers made for it (the first, then
    each replacement), how many had been made at each join, and its listener."""

    consumer: KafkaSinkConsumer
    clock: Clock
    made: list[FakeConsumer]
    joins: list[int]
    listener: Listener


def subscribed() -> Subscribed:
    clock, made, joins, listener = Clock(), [FakeConsumer()], [], Listener()

    def rebuild() -> Any:
        made.append(FakeConsumer())
        return made[-1]

    consumer = KafkaSinkConsumer(
        made[0],  # type: ignore[arg-type]
        False,
        500,
        before_join=lambda: joins.append(len(made)),
        rebuild=rebuild,
        rejoin_timeout=10.0,
        clock=clock,
    )
    consumer.subscribe(["t"], None, listener)
    return Subscribed(consumer, clock, made, joins, listener)


def test_a_consumer_that_lost_its_partitions_and_did_not_rejoin_is_replaced_by_one_that_subscribes_afresh() -> None:
    it = subscribed()
    it.made[0].rebalance("assign", 0, 1)
    it.made[0].rebalance("lost", 0, 1)

    it.clock.now += 9.9
    it.consumer.consume(500, 0)
    assert len(it.made) == 1, "replaced before its rejoin timeout"

    it.clock.now += 0.2
    it.consumer.consume(500, 0)
    assert len(it.made) == 2
    assert it.made[1].subscription == ["t"]
    assert it.joins == [1, 2], "the predecessor check runs before each join"
    assert it.made[0].closed.wait(5), "the replaced consumer is closed"

    it.made[1].rebalance("assign", 0, 1)
    assert it.listener.events == [("assigned", [0, 1]), ("lost", [0, 1]), ("assigned", [0, 1])]
    assert it.consumer.assignment() == {TopicPartition("t", 0), TopicPartition("t", 1)}


def test_a_consumer_that_rejoins_in_time_is_kept_and_one_never_lost_is_never_replaced() -> None:
    it = subscribed()
    it.made[0].rebalance("assign", 0)
    it.clock.now += 1000
    it.consumer.consume(500, 0)
    it.made[0].rebalance("lost", 0)
    it.clock.now += 5
    it.made[0].rebalance("assign", 0)
    it.clock.now += 1000
    it.consumer.consume(500, 0)
    assert len(it.made) == 1


def test_a_replacement_that_does_not_join_either_is_replaced_in_turn() -> None:
    it = subscribed()
    it.made[0].rebalance("lost")
    it.clock.now += 11
    it.consumer.consume(500, 0)
    it.clock.now += 5
    it.consumer.consume(500, 0)
    assert len(it.made) == 2, "the replacement has its own rejoin timeout"
    it.clock.now += 6
    it.consumer.consume(500, 0)
    assert len(it.made) == 3


def test_the_replaced_consumers_late_callbacks_do_not_reach_the_task() -> None:
    it = subscribed()
    it.made[0].rebalance("assign", 3)
    it.made[0].rebalance("lost", 3)
    it.clock.now += 11
    it.consumer.consume(500, 0)

    it.made[0].rebalance("assign", 3)
    it.made[0].rebalance("revoke", 3)
    assert it.listener.events == [("assigned", [3]), ("lost", [3])]
    assert it.made[0].assigned == []


def test_the_rejoin_timeout_is_the_consumers_session_timeout() -> None:
    assert rejoin_timeout({"session.timeout.ms": "10000"}) == 10.0
    assert rejoin_timeout({}) == 45.0, "librdkafka's and Java's default session timeout"
