"""Reading a whole topic back with everything a mirror must keep: partition, key, value, headers, timestamp."""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka.admin import AdminClient

from connect.mirror.records import Checkpoint
from tests.support.topic_reads import messages_to_end


@dataclass(frozen=True)
class TopicRecord:
    partition: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]
    timestamp: int


def read_records(bootstrap: str, topic: str) -> list[TopicRecord]:
    """Every record of `topic` from the beginning to its current end, by partition in offset order (empty if
    the topic does not exist yet: it is looked for without naming it, which would create it)."""
    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics.get(topic)
    if metadata is None or metadata.error is not None:
        return []
    records = []
    for message in messages_to_end({"bootstrap.servers": bootstrap}, topic):
        headers = tuple((str(k), v.encode() if isinstance(v, str) else v) for k, v in _header_list(message.headers()))
        key, value, timestamp = message.key(), message.value(), message.timestamp()[1]
        records.append(TopicRecord(int(message.partition() or 0), key, value, headers, timestamp))
    return sorted(records, key=lambda r: r.partition)


def _header_list(headers: object) -> list[tuple[str, str | bytes | None]]:
    return list(headers) if isinstance(headers, list) else []


def latest_checkpoints(bootstrap: str, topic: str, group: str) -> dict[int, Checkpoint]:
    """`group`'s last checkpoint of each partition on the checkpoints topic `topic`."""
    latest = {}
    for record in read_records(bootstrap, topic):
        checkpoint = Checkpoint.read(record.key or b"", record.value or b"")
        if checkpoint.group == group:
            latest[checkpoint.partition] = checkpoint
    return latest
