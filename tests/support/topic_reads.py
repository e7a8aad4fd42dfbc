"""Reading a whole topic back, as a downstream consumer with a given isolation level would."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition


def read_topic(bootstrap: str, topic: str, partitions: int, isolation: str, timeout: float = 30) -> list[bytes]:
    """Every value of `topic` from the beginning to its end, partition by partition in offset order;
    `isolation`: `read_committed` (only committed transactions) or `read_uncommitted`."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"topic-read-{uuid.uuid4().hex}",
            "isolation.level": isolation,
            "enable.partition.eof": True,
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    values: list[bytes] = []
    at_end: set[int] = set()
    deadline = time.monotonic() + timeout
    try:
        while len(at_end) < partitions and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            partition = message.partition()
            if message.error() is not None:
                if partition is not None:
                    at_end.add(partition)
                continue
            value = message.value()
            assert value is not None
            values.append(value)
    finally:
        consumer.close()
    assert len(at_end) == partitions, f"did not reach the end of {topic}"
    return values


def messages_to_end(client_settings: Mapping[str, Any], topic: str) -> list[Any]:
    """Every message of `topic`, partition after partition as they arrive, with a consumer of its own
    (librdkafka settings: `bootstrap.servers`, security, `isolation.level`, ...)."""
    consumer = Consumer({**client_settings, "group.id": f"read-{uuid.uuid4().hex}", "enable.partition.eof": True})
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        messages: list[Any] = []
        at_end: set[int] = set()
        while len(at_end) < len(partitions):
            message = consumer.poll(10)
            assert message is not None, f"could not read {topic} to its end"
            if message.error() is not None:
                at_end.add(message.partition() or 0)
                continue
            messages.append(message)
        return messages
    finally:
        consumer.close()


_NO_LEADER_YET = (KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.LEADER_NOT_AVAILABLE)


def high_watermark(bootstrap: str, topic: str) -> int:
    """The end offset of partition 0 of `topic`: how many records it has held (0 while it does not exist yet;
    a topic just made, whose partition has no leader yet, is asked again for up to 10 s)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"kc-watermark-{uuid.uuid4().hex[:8]}"})
    deadline = time.monotonic() + 10
    try:
        while True:
            try:
                return int(consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1])
            except KafkaException as exc:
                code = exc.args[0].code()
                if code in (KafkaError._UNKNOWN_PARTITION, KafkaError.UNKNOWN_TOPIC_OR_PART):
                    return 0
                if code not in _NO_LEADER_YET or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
    finally:
        consumer.close()
