"""Mirror flows for the mirroring tests: a flow's connector configs between two clusters, records to mirror, and a
consumer group that commits on the source cluster."""

from __future__ import annotations

import time

from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition

from tests.support.mirrored_topics import TopicRecord

PARTITIONS = 3


BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"


def flow_config(
    source: str, target: str, topic_prefix: str, source_alias: str = "A", target_alias: str = "B"
) -> dict[str, str]:
    return {
        "source.cluster.alias": source_alias,
        "target.cluster.alias": target_alias,
        "source.cluster.bootstrap.servers": source,
        "target.cluster.bootstrap.servers": target,
        "topics": f"{topic_prefix}.*",
        "replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "heartbeats.topic.replication.factor": "1",
        "refresh.topics.interval.seconds": "1",
        "sync.topic.configs.interval.seconds": "1",
        "offset.lag.max": "10",
        "key.converter": BYTES,
        "value.converter": BYTES,
        "header.converter": BYTES,
    }


def checkpoint_flow_config(flow: dict[str, str], group_prefix: str) -> dict[str, str]:
    """The checkpoint connector of `flow` for the groups named `<group_prefix>...`, checkpointing every second."""
    return {
        **flow,
        "connector.class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
        "groups": f"{group_prefix}.*",
        "emit.checkpoints.interval.seconds": "1",
        "refresh.groups.interval.seconds": "1",
        "checkpoints.topic.replication.factor": "1",
    }


def produce(bootstrap: str, topic: str, count: int) -> list[TopicRecord]:
    """`count` records spread over the partitions, with a tombstone, headers (one repeated, one null) and
    timestamps of their own; returns what was sent, as it must arrive."""
    producer = Producer({"bootstrap.servers": bootstrap})
    sent: list[TopicRecord] = []
    # Timestamps of their own, but recent: records older than retention.ms (7 days by default) may be deleted
    # by the brokers, on either cluster, at any time.
    base = int(time.time() * 1000) - 60_000
    for n in range(count):
        partition = n % PARTITIONS
        value = None if n == 7 else f"value-{n}".encode()
        headers: list[tuple[str, str | bytes | None]] = [("h", f"{n}".encode()), ("h", b"again"), ("empty", None)]
        timestamp = base + n
        producer.produce(topic, value, f"key-{n}".encode(), partition, timestamp=timestamp, headers=headers)
        expected_headers = ((k, v if isinstance(v, bytes | None) else v.encode()) for k, v in headers)
        sent.append(TopicRecord(partition, f"key-{n}".encode(), value, tuple(expected_headers), timestamp))
    assert producer.flush(30) == 0
    return sent


def consume_and_commit(bootstrap: str, topic: str, group: str, per_partition: int) -> None:
    """A member of `group` reads `per_partition` records of each partition, commits, and leaves: the group is
    empty afterwards, as a consumer application's group is while it is stopped."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([topic])
    positions = dict.fromkeys(range(PARTITIONS), 0)
    deadline = time.monotonic() + 30
    while any(o < per_partition for o in positions.values()) and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is None or message.error() is not None:
            continue
        offset, partition = int(message.offset() or 0), int(message.partition() or 0)
        if offset < per_partition:
            positions[partition] = offset + 1
    consumer.commit(offsets=[KafkaTopicPartition(topic, p, o) for p, o in positions.items()], asynchronous=False)
    consumer.close()
    assert positions == dict.fromkeys(range(PARTITIONS), per_partition)
