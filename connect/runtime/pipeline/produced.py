"""`Produced`: one source record converted to what `producer.produce` takes.

librdkafka's "none" values are used throughout (partition -1: the partitioner chooses; timestamp 0: the
producer stamps the record), so every produce call passes the fields as they are.
"""

from __future__ import annotations

from typing import NamedTuple

KafkaHeaders = list[tuple[str, bytes | None]]


class Produced(NamedTuple):
    topic: str
    value: bytes | None
    key: bytes | None
    partition: int
    """-1: the producer's partitioner chooses."""
    timestamp: int
    """Milliseconds since the epoch; 0: the producer stamps the record."""
    headers: KafkaHeaders | None

    @classmethod
    def of(
        cls,
        topic: str,
        value: bytes | None,
        key: bytes | None,
        partition: int | None,
        timestamp: int | None,
        headers: KafkaHeaders | None,
    ) -> Produced:
        """A record's fields with Connect's None (no partition, no timestamp) turned into librdkafka's."""
        return cls(topic, value, key, -1 if partition is None else partition, timestamp or 0, headers)
