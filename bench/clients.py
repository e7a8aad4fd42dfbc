"""The raw confluent-kafka client loops: the limit a Python process reaches with the same settings.

The producer loop hands librdkafka one prebuilt value per call and no delivery callback, so it is
what Python + librdkafka can do at best; the consumer loop reads whole batches with `consume()`.
Both are also the harness's tools to fill topics and to stamp latency probes.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

from bench.settings import CONSUMER_SETTINGS

POLL_EVERY = 10_000


def new_producer(bootstrap_servers: str, settings: Mapping[str, str]) -> Producer:
    return Producer({"bootstrap.servers": bootstrap_servers, "log_level": 0, **settings})


def produce(producer: Producer, topic: str, value: bytes, count: int, flush_timeout: float = 120.0) -> None:
    """Send `count` copies of `value` to `topic` (partitions chosen by librdkafka) and wait for all acks."""
    send = producer.produce
    for index in range(count):
        while True:
            try:
                send(topic, value)
                break
            except BufferError:
                # librdkafka's queue is full: serve delivery reports until there is room.
                producer.poll(0.005)
        if index % POLL_EVERY == 0:
            producer.poll(0)
    remaining = producer.flush(flush_timeout)
    if remaining:
        raise KafkaException(f"{remaining} records still undelivered after {flush_timeout:.0f}s")


def timed_produce(bootstrap_servers: str, settings: Mapping[str, str], topic: str, value: bytes, count: int) -> float:
    """Seconds from the first `produce()` to the last acknowledgement; metadata is fetched before timing."""
    producer = new_producer(bootstrap_servers, settings)
    producer.list_topics(topic, timeout=10)
    started = time.perf_counter()
    produce(producer, topic, value, count)
    return time.perf_counter() - started


def timed_consume(bootstrap_servers: str, topic: str, count: int, partitions: int = 1, timeout: float = 120.0) -> float:
    """Seconds to read `count` records from the beginning of `topic` with an assigned (groupless) consumer.

    librdkafka's defaults plus the workers' consumer settings; its prefetch (`queued.min.messages`,
    100000 by default) bounds this loop, as it bounds a kconnect sink task's consumer.
    """
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap_servers,
            "group.id": f"kconnect-bench-{uuid.uuid4().hex[:8]}",
            "log_level": 0,
            **CONSUMER_SETTINGS,
        }
    )
    try:
        consumer.list_topics(topic, timeout=10)
        started = time.perf_counter()
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
        seen = 0
        deadline = started + timeout
        while seen < count:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"read {seen} of {count} records from {topic} in {timeout:.0f}s")
            for message in consumer.consume(num_messages=10_000, timeout=1.0):
                if message.error() is None:
                    seen += 1
        return time.perf_counter() - started
    finally:
        consumer.close()
