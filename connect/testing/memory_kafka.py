"""Kafka in memory, for running a connector through the worker's real record path without a broker.

`MemoryKafka` holds topics (a log per partition) and consumer groups (members and committed offsets);
`MemoryKafkaClients` hands the worker producers, sink consumers and an admin client over it, built with the
worker's client settings and each connector's overrides (so the override policy still applies). What it
leaves out of Kafka: replication, retention, transactions (exactly-once source support needs a broker), and
the cooperative protocol — a change of a group's members or of its topics' partitions revokes every member's
partitions and assigns them afresh, in Kafka's eager manner.

As librdkafka does, a producer appends what it was given only when polled or flushed, and runs the delivery
callbacks there (for failures only with `delivery.report.only.error`). A keyed record without a partition
goes where CRC32 of its key says (librdkafka's `consistent` partitioner); an unkeyed one to the partitions
in turn. Topics a producer or a subscription names are created with `default_partitions` partitions, as a
broker with `auto.create.topics.enable` does.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connect.api.errors import ConnectError
from connect.api.records import TopicPartition
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import (
    TIMESTAMP_CREATE_TIME,
    KafkaClients,
    KafkaMessage,
    ProducerLike,
    RebalanceListener,
    SinkConsumer,
    TopicSpec,
    TransactionalProducer,
)
from connect.runtime.kafka.client_config import DEFAULT_MAX_POLL_RECORDS

Headers = tuple[tuple[str, bytes | None], ...]


@dataclass(frozen=True)
class TopicRecord:
    """A record as a topic holds it: bytes, as the converters made them."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: Headers = ()
    timestamp: int = 0
    """Milliseconds since the epoch (the record's create time)."""

    @classmethod
    def of(cls, message: KafkaMessage) -> TopicRecord:
        """A consumed message (confluent_kafka's or ours) as a record."""
        return cls(
            message.topic() or "",
            message.partition() or 0,
            message.offset() or 0,
            message.key(),
            message.value(),
            _headers(message.headers()),
            message.timestamp()[1],
        )


class _Message:
    """A `TopicRecord` in the shape of confluent_kafka's Message (a consumed message, a delivery report)."""

    __slots__ = ("_record",)

    def __init__(self, record: TopicRecord) -> None:
        self._record = record

    def topic(self) -> str:
        return self._record.topic

    def partition(self) -> int:
        return self._record.partition

    def offset(self) -> int:
        return self._record.offset

    def key(self) -> bytes | None:
        return self._record.key

    def value(self) -> bytes | None:
        return self._record.value

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        return list(self._record.headers) or None

    def timestamp(self) -> tuple[int, int]:
        return (TIMESTAMP_CREATE_TIME, self._record.timestamp)

    def error(self) -> None:
        return None


def _bytes(data: str | bytes | None) -> bytes | None:
    return data.encode() if isinstance(data, str) else data


def _headers(headers: Any) -> Headers:
    if not headers:
        return ()
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return tuple((name, _bytes(value)) for name, value in pairs)


@dataclass
class _Group:
    members: list[MemoryConsumer]
    committed: dict[TopicPartition, int]
    owners: dict[TopicPartition, MemoryConsumer]
    generation: int = 0


class MemoryKafka:
    """Topics and consumer groups shared by every client made over it (thread-safe)."""

    def __init__(self, default_partitions: int = 1) -> None:
        self.default_partitions = default_partitions
        self._changed = threading.Condition(threading.RLock())
        self._logs: dict[str, list[list[TopicRecord]]] = {}
        self._groups: dict[str, _Group] = {}
        self._round_robin = itertools.count()
        self.metadata_version = 0
        """Bumped whenever a topic appears or grows, so that groups rebalance onto the new partitions."""

    # -- topics ------------------------------------------------------------------------------------------

    def create_topic(self, name: str, partitions: int | None = None) -> bool:
        """Create `name` (False if it exists); `partitions` defaults to `default_partitions`."""
        with self._changed:
            if name in self._logs:
                return False
            self._logs[name] = [[] for _ in range(max(partitions or self.default_partitions, 1))]
            self.metadata_version += 1
            self._changed.notify_all()
            return True

    def partition_count(self, topic: str) -> int | None:
        with self._changed:
            log = self._logs.get(topic)
            return None if log is None else len(log)

    def topics(self) -> list[str]:
        with self._changed:
            return sorted(self._logs)

    def records(self, topic: str) -> list[TopicRecord]:
        """Every record of `topic`, partition by partition, each partition's in offset order."""
        with self._changed:
            return [record for log in self._logs.get(topic, []) for record in log]

    def end_offset(self, partition: TopicPartition) -> int:
        with self._changed:
            logs = self._logs.get(partition.topic, [])
            return len(logs[partition.partition]) if partition.partition < len(logs) else 0

    def append(
        self,
        topic: str,
        value: bytes | None,
        key: bytes | None = None,
        partition: int = -1,
        headers: Headers = (),
        timestamp: int = 0,
    ) -> TopicRecord:
        """Write one record; `partition` -1 lets the partitioner choose. The new record, with its offset."""
        with self._changed:
            if topic not in self._logs:
                self.create_topic(topic)
            logs = self._logs[topic]
            if partition < 0:
                chosen = next(self._round_robin) if key is None else zlib.crc32(key)
                partition = chosen % len(logs)
            elif partition >= len(logs):
                raise ConnectError(f"Topic {topic} has {len(logs)} partition(s): there is no partition {partition}")
            log = logs[partition]
            stamp = timestamp or int(time.time() * 1000)
            record = TopicRecord(topic, partition, len(log), key, value, headers, stamp)
            log.append(record)
            self._changed.notify_all()
            return record

    def read(self, partition: TopicPartition, position: int, limit: int) -> list[TopicRecord]:
        with self._changed:
            logs = self._logs.get(partition.topic, [])
            if partition.partition >= len(logs):
                return []
            return logs[partition.partition][position : position + limit]

    def wait(self, timeout: float) -> None:
        """Block until something is written or changes (or `timeout` passes)."""
        with self._changed:
            self._changed.wait(timeout)

    # -- groups --------------------------------------------------------------------------------------------

    def _group(self, group_id: str) -> _Group:
        return self._groups.setdefault(group_id, _Group([], {}, {}))

    def join(self, group_id: str, member: MemoryConsumer) -> None:
        with self._changed:
            group = self._group(group_id)
            if member not in group.members:
                group.members.append(member)
                group.generation += 1
                self._changed.notify_all()

    def leave(self, group_id: str, member: MemoryConsumer) -> None:
        with self._changed:
            group = self._group(group_id)
            self.release(group_id, member, [p for p, owner in group.owners.items() if owner is member])
            if member in group.members:
                group.members.remove(member)
                group.generation += 1
                self._changed.notify_all()

    def claim(self, group_id: str, member: MemoryConsumer, partitions: Sequence[TopicPartition]) -> bool:
        """Make `member` the owner of all of `partitions` if no other member still owns one of them (a member
        gives its partitions up at its next poll after a change, as it would in Kafka's join barrier)."""
        with self._changed:
            owners = self._group(group_id).owners
            if any(owners.get(p, member) is not member for p in partitions):
                return False
            owners.update((p, member) for p in partitions)
            return True

    def release(self, group_id: str, member: MemoryConsumer, partitions: Iterable[TopicPartition]) -> None:
        with self._changed:
            owners = self._group(group_id).owners
            for partition in partitions:
                if owners.get(partition) is member:
                    del owners[partition]
            self._changed.notify_all()

    def share_of(self, group_id: str, member: MemoryConsumer) -> tuple[int, int, list[TopicPartition]]:
        """The group's generation, the metadata version and the partitions `member` should own now: every
        partition its subscription matches, dealt out to the members in the order they joined."""
        with self._changed:
            group = self._group(group_id)
            if member not in group.members:
                return group.generation, self.metadata_version, []
            for topic in member.subscribed_topics():
                if topic not in self._logs:
                    self.create_topic(topic)
            matched = sorted(
                TopicPartition(topic, p)
                for topic, logs in self._logs.items()
                if member.subscribes_to(topic)
                for p in range(len(logs))
            )
            index, count = group.members.index(member), len(group.members)
            return group.generation, self.metadata_version, matched[index::count]

    def committed(self, group_id: str) -> dict[TopicPartition, int]:
        """The group's committed offsets (the next record each partition's consumer will read)."""
        with self._changed:
            return dict(self._group(group_id).committed)

    def commit(self, group_id: str, offsets: Mapping[TopicPartition, int]) -> None:
        with self._changed:
            self._group(group_id).committed.update(offsets)


class MemoryProducer:
    """A `ProducerLike` over `MemoryKafka`: records are written, and their callbacks run, in `poll`/`flush`."""

    def __init__(self, kafka: MemoryKafka, *, failure_reports_only: bool = False) -> None:
        self._kafka = kafka
        self._failure_reports_only = failure_reports_only
        self._lock = threading.Lock()
        self._queued: list[tuple[str, bytes | None, bytes | None, int, Headers, int, Any]] = []

    def produce(
        self,
        topic: str,
        value: str | bytes | None = None,
        key: str | bytes | None = None,
        partition: int = -1,
        callback: Any = None,
        on_delivery: Any = None,
        timestamp: int = 0,
        headers: Any = None,
    ) -> None:
        entry = (topic, _bytes(value), _bytes(key), partition, _headers(headers), timestamp, callback or on_delivery)
        with self._lock:
            self._queued.append(entry)

    def _deliver(self) -> int:
        with self._lock:
            queued, self._queued = self._queued, []
        for topic, value, key, partition, headers, timestamp, callback in queued:
            record = self._kafka.append(topic, value, key, partition, headers, timestamp)
            if callback is not None and not self._failure_reports_only:
                callback(None, _Message(record))
        return len(queued)

    def poll(self, timeout: float = -1) -> int:
        return self._deliver()

    def flush(self, timeout: float = -1) -> int:
        self._deliver()
        return 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._queued)


class MemoryConsumer:
    """A sink task's consumer (`SinkConsumer`) in a `MemoryKafka` group."""

    def __init__(self, kafka: MemoryKafka, group_id: str, max_records: int = 500, *, from_latest: bool = False) -> None:
        self.max_records = max_records
        self._kafka = kafka
        self._group_id = group_id
        self._from_latest = from_latest
        self._topics: tuple[str, ...] = ()
        self._pattern: re.Pattern[str] | None = None
        self._listener: RebalanceListener | None = None
        self._seen: tuple[int, int] | None = None
        self._waiting = False
        self._assigned: list[TopicPartition] = []
        self._positions: dict[TopicPartition, int] = {}
        self._paused: set[TopicPartition] = set()
        self._pause_all = False

    def subscribed_topics(self) -> tuple[str, ...]:
        return self._topics

    def subscribes_to(self, topic: str) -> bool:
        return topic in self._topics or (self._pattern is not None and self._pattern.fullmatch(topic) is not None)

    def subscribe(self, topics: Sequence[str], pattern: str | None, listener: RebalanceListener) -> None:
        self._topics = tuple(topics)
        self._pattern = re.compile(pattern) if pattern else None
        self._listener = listener
        self._kafka.join(self._group_id, self)

    def _rebalance_if_needed(self) -> None:
        """Eager rebalancing: when the group or its topics changed, give up every partition, then take this
        member's share once no other member holds any of it."""
        generation, version, share = self._kafka.share_of(self._group_id, self)
        if self._listener is None or (self._seen == (generation, version) and not self._waiting):
            return
        if share == self._assigned and not self._waiting:
            self._seen = (generation, version)
            return
        if self._assigned:
            self._listener.on_partitions_revoked(list(self._assigned))
            self._kafka.release(self._group_id, self, self._assigned)
            self._assigned, self._positions = [], {}
        self._waiting = not self._kafka.claim(self._group_id, self, share)
        if self._waiting:
            return
        self._seen = (generation, version)
        chosen = self._listener.on_partitions_assigned(list(share))
        committed = self._kafka.committed(self._group_id)
        for partition in share:
            start = self._kafka.end_offset(partition) if self._from_latest else 0
            self._positions[partition] = chosen.get(partition, committed.get(partition, start))
        self._assigned = list(share)

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            self._rebalance_if_needed()
            taken: list[KafkaMessage] = []
            if not self._pause_all:
                for partition in self._assigned:
                    if partition in self._paused or len(taken) >= max_records:
                        continue
                    position = self._positions[partition]
                    records = self._kafka.read(partition, position, max_records - len(taken))
                    self._positions[partition] = position + len(records)
                    taken.extend(_Message(record) for record in records)
            remaining = deadline - time.monotonic()
            if taken or remaining <= 0:
                return taken
            self._kafka.wait(min(remaining, 0.1))

    def assignment(self) -> set[TopicPartition]:
        return set(self._assigned)

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        self._paused.update(partitions)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        self._paused.difference_update(partitions)

    def set_pause_all(self, paused: bool) -> None:
        self._pause_all = paused

    def lags(self, *, fresh: bool, timeout: float) -> dict[TopicPartition, int]:
        return {p: self._kafka.end_offset(p) - self._positions.get(p, 0) for p in self._assigned}

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self._positions[partition] = offset

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]:
        stored = self._kafka.committed(self._group_id)
        return {p: stored[p] for p in partitions if p in stored}

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None:
        self._kafka.commit(self._group_id, offsets)

    def close(self) -> None:
        self._kafka.leave(self._group_id, self)


class MemoryAdmin:
    """The admin calls the worker makes (topic creation for sources and dead letter queues)."""

    def __init__(self, kafka: MemoryKafka) -> None:
        self._kafka = kafka

    def cluster_id(self, timeout: float = 10.0) -> str:
        return "memory"

    def broker_count(self, timeout: float = 10.0) -> int:
        return 1

    def partition_count(self, topic: str, timeout: float = 10.0) -> int | None:
        return self._kafka.partition_count(topic)

    def create_topics(
        self, topics: Iterable[TopicSpec], timeout: float = 30.0, *, refusals_tolerated: bool = False
    ) -> set[str]:
        return {spec.name for spec in topics if self._kafka.create_topic(spec.name, max(spec.partitions, 0) or None)}

    def close(self) -> None:
        pass


class MemoryKafkaClients(KafkaClients):
    """The worker's client factory over a `MemoryKafka`: same settings and override policy, no broker."""

    def __init__(self, kafka: MemoryKafka, config: Any) -> None:
        """`config`: the worker's `WorkerConfig`."""
        super().__init__(
            producer_props=config.producer_props(),
            consumer_props=config.consumer_props(),
            admin_props=config.admin_props(),
            override_policy=config.client_config_override_policy,
        )
        self.kafka = kafka

    def producer(
        self,
        task: ConnectorTaskId,
        connector_config: Mapping[str, str],
        *,
        failure_reports_only: bool = False,
        batch_calls: bool = False,
        gapless: bool = False,
    ) -> ProducerLike:
        self.source_producer_config(task, connector_config)  # the override policy applies as with a broker
        return MemoryProducer(self.kafka, failure_reports_only=failure_reports_only)

    def dlq_producer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> ProducerLike:
        self.producer_config(f"connector-dlq-producer-{task.connector}-{task.task}", connector_config)
        return MemoryProducer(self.kafka)

    def sink_consumer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> SinkConsumer:
        config = self.consumer_config(task, connector_config)
        max_records = int(config.get("max.poll.records", DEFAULT_MAX_POLL_RECORDS))
        from_latest = config.get("auto.offset.reset", "earliest") == "latest"
        return MemoryConsumer(self.kafka, config["group.id"], max_records, from_latest=from_latest)

    def admin(self, client_id: str = "kconnect-admin", connector_config: Mapping[str, str] | None = None) -> Any:
        if connector_config:
            self.admin_config(client_id, connector_config)
        return MemoryAdmin(self.kafka)

    def transactional_producer(
        self,
        task: ConnectorTaskId,
        connector_config: Mapping[str, str],
        transactional_id: str,
        *,
        failure_reports_only: bool = False,
    ) -> TransactionalProducer:
        raise ConnectError("Exactly-once source support needs a Kafka broker: give the harness bootstrap servers")

    def fence_producers(
        self, transactional_ids: Iterable[str], connector_config: Mapping[str, str] | None = None, timeout: float = 60.0
    ) -> None:
        raise ConnectError("Fencing producers needs a Kafka broker: give the harness bootstrap servers")
