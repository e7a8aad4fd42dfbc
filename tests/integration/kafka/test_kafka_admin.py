"""KafkaAdmin against a real broker: topics looked up without creating them, end offsets across a restart."""

from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from connect.api.records import TopicPartition
from connect.runtime.kafka import KafkaClients, TopicSpec
from local_kafka import LocalKafka

pytestmark = pytest.mark.integration

# Kafka creates an auto-created topic within ~0.1 s of the metadata request that named it (measured).
AUTO_CREATION_WINDOW_S = 2.0


def clients_for(bootstrap: str) -> KafkaClients:
    props = {"bootstrap.servers": bootstrap}
    return KafkaClients(producer_props=props, consumer_props=props, admin_props=props)


def test_partition_count_of_a_missing_topic_does_not_create_it(kafka_bootstrap: str, kafka_admin: AdminClient) -> None:
    # The session broker runs with Kafka's default auto.create.topics.enable=true.
    admin = clients_for(kafka_bootstrap).admin()
    name = f"never-created-{uuid.uuid4().hex[:8]}"

    assert admin.partition_count(name) is None

    # No event tells that a creation did not happen: watch the topic list for longer than one takes.
    deadline = time.monotonic() + AUTO_CREATION_WINDOW_S
    while time.monotonic() < deadline:
        assert name not in kafka_admin.list_topics(timeout=10).topics, "partition_count created the topic"
        time.sleep(0.1)
    assert admin.create_topics([TopicSpec(name, 3, 1)]) == {name}
    try:
        assert admin.partition_count(name) == 3
    finally:
        kafka_admin.delete_topics([name])


def test_end_offsets_are_found_again_after_a_broker_restart(restartable_kafka: LocalKafka) -> None:
    cluster = restartable_kafka  # the session broker must stay up
    topic = f"restarted-{uuid.uuid4().hex[:8]}"
    admin = clients_for(cluster.bootstrap_servers).admin()
    admin.create_topics([TopicSpec(topic, 3, 1)])
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers})
    for i in range(9):
        producer.produce(topic, b"x", partition=i % 3)
    assert producer.flush(30) == 0
    partitions = [TopicPartition(topic, p) for p in range(3)]
    expected = dict.fromkeys(partitions, 3)
    assert admin.end_offsets(partitions, timeout=30) == expected

    cluster.stop()
    cluster.start()

    # The same admin client: its cached leader epochs are stale now (FENCED_LEADER_EPOCH).
    assert admin.end_offsets(partitions, timeout=30) == expected
