"""A sink task's consumer that lost its partitions and is not given any again (as one was after a run of
broker restarts) is replaced by a new consumer, which gets the partitions back and reads on."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from connect.api.records import TopicPartition
from connect.runtime.kafka.consumer import KafkaSinkConsumer
from connect.runtime.kafka.group_eviction import GroupEviction
from tests.fixtures.kafka import TopicFactory
from tests.support.partition_recorder import PartitionRecorder
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


class DeafAfterLoss:
    """A consumer that, once it has lost its partitions, takes no assignment again: as the consumer seen
    after a run of broker restarts, stuck outside its group. The group still counts it as a member."""

    def __init__(self, consumer: Consumer) -> None:
        self.consumer = consumer
        self.lost = False

    def subscribe(self, topics: list[str], on_assign: Any, on_revoke: Any, on_lost: Any) -> None:
        def assign(_consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
            if self.lost:
                self.consumer.assign([])
            else:
                on_assign(self, partitions)

        def lose(_consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
            self.lost = True
            on_lost(self, partitions)

        self.consumer.subscribe(
            topics, on_assign=assign, on_revoke=lambda _c, parts: on_revoke(self, parts), on_lost=lose
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.consumer, name)


def test_a_sink_consumer_that_lost_its_partitions_and_did_not_rejoin_in_time_is_replaced_and_consumes_on(
    kafka_bootstrap: str, topic_factory: TopicFactory
) -> None:
    """Evicted (as a session expiry would drop it), the consumer loses its partitions and then takes none
    again; after its rejoin timeout it is replaced. The new member gets the partitions from the committed
    offsets and reads on; the old one has left the group."""
    topic = topic_factory(partitions=2)
    group = f"rejoin-{topic}"
    config = {
        "bootstrap.servers": kafka_bootstrap,
        "group.id": group,
        "client.id": "connector-consumer-rejoin-0",
        "session.timeout.ms": 30000,
        "heartbeat.interval.ms": 300,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    }
    made: list[Consumer] = []

    def build() -> Consumer:
        made.append(Consumer(config))
        return made[-1]

    deaf = DeafAfterLoss(build())
    consumer = KafkaSinkConsumer(deaf, False, 500, rebuild=build, rejoin_timeout=2.0)  # type: ignore[arg-type]
    recorder = PartitionRecorder()
    produce = Producer({"bootstrap.servers": kafka_bootstrap})
    read: list[bytes] = []

    def read_all(count: int) -> bool:
        read.extend(message.value() or b"" for message in consumer.consume(500, 0.1))
        return len(read) >= count

    try:
        consumer.subscribe([topic], None, recorder)
        for n in range(10):
            produce.produce(topic, f"before-{n}".encode(), partition=n % 2)
        produce.flush(10)
        wait_until(lambda: read_all(10) and recorder.assigned == {0, 1}, 30.0, "the first records")
        consumer.commit({TopicPartition(topic, 0): 5, TopicPartition(topic, 1): 5}, 10)
        eviction = GroupEviction({"bootstrap.servers": kafka_bootstrap})
        (first,) = eviction.members(group)

        eviction.evict(group, lambda member: True)
        wait_until(lambda: read_all(0) and deaf.lost and recorder.assigned == set(), 10.0, "the loss")

        def deaf_member_back() -> list[str]:
            read_all(0)
            ids = [member.member_id for member in eviction.members(group)]
            return ids if ids and ids != [first.member_id] else []

        (deaf_id,) = wait_until(deaf_member_back, 10.0, "the deaf consumer to join again")
        for n in range(4):
            produce.produce(topic, f"after-{n}".encode(), partition=n % 2)
        produce.flush(10)

        wait_until(lambda: read_all(14) and recorder.assigned == {0, 1}, 30.0, "a new member to read on")
        assert len(made) == 2
        assert sorted(read[10:]) == [f"after-{n}".encode() for n in range(4)], "it reads on from the commits"
        (second,) = eviction.members(group)
        assert second.member_id not in (first.member_id, deaf_id) and second.client_id == first.client_id
    finally:
        consumer.close()
