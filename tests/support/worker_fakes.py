"""In-memory stand-ins for Kafka clients, for the worker's unit tests (where Kafka is not the point).

`FakeProducer` behaves like librdkafka as the runtime uses it: delivery callbacks run only inside
`poll`/`flush`, `flush` acknowledges what the "broker" accepts, `delivery.report.only.error` is honoured,
and a test can hold records back (broker slow) or fail chosen ones. `FakeConsumer` serves queued
messages to a `RebalanceListener`, assigning partitions on the first `consume`, and records commits,
pauses and seeks.
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from connect.api.records import TopicPartition
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import (
    ColumnNotBytesError,
    KafkaAdmin,
    KafkaClients,
    KafkaMessage,
    ProducerLike,
    RebalanceListener,
    SinkConsumer,
    TopicSpec,
)


class FakeError:
    def __init__(self, text: str, code: int = -1, fatal: bool = False, retriable: bool = False) -> None:
        self._text, self._code, self._fatal, self._retriable = text, code, fatal, retriable

    def code(self) -> int:
        return self._code

    def name(self) -> str:
        return self._text

    def str(self) -> builtins.str:
        return self._text

    def fatal(self) -> bool:
        return self._fatal

    def retriable(self) -> bool:
        return self._retriable

    def __str__(self) -> builtins.str:
        return self._text


@dataclass
class FakeMessage:
    topic_: str
    partition_: int
    offset_: int
    key_: bytes | None = None
    value_: bytes | None = None
    headers_: list[tuple[str, bytes | None]] | None = None
    timestamp_: tuple[int, int] = (1, 1_700_000_000_000)
    error_: Any = None

    def topic(self) -> str | None:
        return self.topic_

    def partition(self) -> int | None:
        return self.partition_

    def offset(self) -> int | None:
        return self.offset_

    def key(self) -> bytes | None:
        return self.key_

    def value(self) -> bytes | None:
        return self.value_

    def headers(self) -> list[tuple[str, bytes | None]] | None:
        return self.headers_

    def timestamp(self) -> tuple[int, int]:
        return self.timestamp_

    def error(self) -> Any:
        return self.error_


@dataclass
class Produced:
    topic: str
    value: bytes | None
    key: bytes | None
    partition: int
    timestamp: int
    headers: Any
    callback: Any
    offset: int = -1


class FakeProducer:
    """librdkafka-like: callbacks only inside poll/flush; `hold` keeps records unacknowledged."""

    def __init__(self, *, failure_reports_only: bool = False, capacity: int = 1_000_000, gapless: bool = False) -> None:
        """`gapless`: as librdkafka's `enable.gapless.guarantee`, a failed record fails every later one of its
        partition too (the producer's fatal error), so a partition's records are never written with a gap."""
        self.failure_reports_only = failure_reports_only
        self.gapless = gapless
        self.broken: set[tuple[str, int]] = set()
        self.capacity = capacity
        self.sent: list[Produced] = []
        self.in_flight: list[Produced] = []
        self.hold = False
        self.fail_values: set[bytes] = set()
        self.offsets: dict[tuple[str, int], int] = {}
        self.flushes = 0
        self.lock = threading.Lock()

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
        with self.lock:
            if len(self.in_flight) >= self.capacity:
                raise BufferError("Local: Queue full")
            record = Produced(
                topic,
                value.encode() if isinstance(value, str) else value,
                key.encode() if isinstance(key, str) else key,
                partition,
                timestamp,
                headers,
                callback or on_delivery,
            )
            self.in_flight.append(record)

    def _deliver(self, only: Callable[[Produced], bool] | None = None) -> int:
        with self.lock:
            if self.hold and only is None:
                return 0
            ready = [r for r in self.in_flight if only is None or only(r)]
            self.in_flight = [r for r in self.in_flight if r not in ready]
        for record in ready:
            partition = max(record.partition, 0)
            failed = record.value in self.fail_values or (record.topic, partition) in self.broken
            if failed and self.gapless:
                self.broken.add((record.topic, partition))
            if not failed:
                offset = self.offsets.get((record.topic, partition), 0)
                self.offsets[(record.topic, partition)] = offset + 1
                record.offset = offset
                self.sent.append(record)
            if record.callback is None or (self.failure_reports_only and not failed):
                continue
            message = FakeMessage(record.topic, partition, record.offset, record.key, record.value)
            record.callback(FakeError("Broker: Message size too large") if failed else None, message)
        return len(ready)

    def release(self, only: Callable[[Produced], bool]) -> None:
        """Acknowledge the held records matching `only` now (callbacks run in this call)."""
        self._deliver(only)

    def poll(self, timeout: float = -1) -> int:
        return self._deliver()

    def flush(self, timeout: float = -1) -> int:
        self.flushes += 1
        self._deliver()
        if self.in_flight and timeout > 0:
            time.sleep(min(timeout, 0.01))  # a held broker makes flush wait (briefly, in tests)
        return len(self.in_flight)

    def __len__(self) -> int:
        return len(self.in_flight)


class FakeBatchProducer(FakeProducer):
    """A FakeProducer that also takes a batch's values in one call, as `BatchProducer.produce_values` does:
    bytes only (TypeError before anything is queued), refusals named by index (`refuse_values`), and a
    full queue waits for room (`wait_for_room`) and goes on. `produce` refuses those values too."""

    def __init__(self, *, capacity: int = 1_000_000) -> None:
        super().__init__(failure_reports_only=True, capacity=capacity)
        self.refuse_values: set[bytes] = set()
        self.batch_calls: list[int] = []
        self.room_waits = 0

    def produce_values(
        self, topic: str, partition: int, values: Any, keys: Any, on_delivery: Any, wait_for_room: Any
    ) -> list[tuple[int, Any]]:
        if not all(isinstance(v, bytes) for v in [*values, *(keys or ())]):
            raise ColumnNotBytesError("values and keys must be bytes")
        self.batch_calls.append(len(values))
        refused: list[tuple[int, Any]] = []
        for index, value in enumerate(values):
            if value in self.refuse_values:
                refused.append((index, FakeError("Broker: Message size too large")))
                continue
            while True:
                try:
                    self.produce(topic, value, None if keys is None else keys[index], partition, None, on_delivery)
                    break
                except BufferError:
                    self.room_waits += 1
                    wait_for_room()
        return refused

    def produce(self, topic: str, value: Any = None, *args: Any, **kwargs: Any) -> None:
        if value in self.refuse_values:
            raise ValueError("Broker: Message size too large")  # refused alone as well
        super().produce(topic, value, *args, **kwargs)


class FakeConsumer:
    """A log per partition read from `positions`; partitions are assigned on the first consume."""

    def __init__(self, partitions: Iterable[TopicPartition], max_records: int = 500) -> None:
        self.max_records = max_records
        self.partitions = list(partitions)
        self.listener: RebalanceListener | None = None
        self.subscription: tuple[list[str], str | None] | None = None
        self.assigned: set[TopicPartition] = set()
        self.logs: dict[TopicPartition, list[FakeMessage]] = {}
        self.positions: dict[TopicPartition, int] = {}
        self.committed_offsets: dict[TopicPartition, int] = {}
        self.commits: list[dict[TopicPartition, int]] = []
        self.paused: set[TopicPartition] = set()
        self.pause_all = False
        self.seeks: list[tuple[TopicPartition, int]] = []
        self.closed = False
        self.fresh_lag_queries = 0
        self.lock = threading.Lock()
        self._pending_assignment = True

    def append(self, topic: str, partition: int, value: bytes | None, key: bytes | None = None, **kw: Any) -> None:
        """Append a message to the partition's log (offsets count from 0)."""
        tp = TopicPartition(topic, partition)
        with self.lock:
            log = self.logs.setdefault(tp, [])
            log.append(FakeMessage(topic, partition, len(log), key, value, **kw))

    def subscribe(self, topics: Sequence[str], pattern: str | None, listener: RebalanceListener) -> None:
        self.subscription = (list(topics), pattern)
        self.listener = listener

    def _assign(self) -> None:
        assert self.listener is not None
        self._pending_assignment = False
        start = self.listener.on_partitions_assigned(list(self.partitions))
        self.assigned = set(self.partitions)
        for tp in self.partitions:
            self.positions[tp] = start.get(tp, self.committed_offsets.get(tp, 0))

    def revoke(self) -> None:
        """Take every partition away (as a rebalance would, inside consume); reassigned on the next consume."""
        assert self.listener is not None
        self.listener.on_partitions_revoked(sorted(self.assigned))
        self.assigned = set()
        self._pending_assignment = True

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        if self._pending_assignment and self.listener is not None:
            self._assign()
        out: list[KafkaMessage] = []
        with self.lock:
            for tp in sorted(self.assigned):
                if self.pause_all or tp in self.paused:
                    continue
                log = self.logs.get(tp, [])
                position = self.positions.get(tp, 0)
                taken = log[position : position + max_records - len(out)]
                out.extend(taken)
                self.positions[tp] = position + len(taken)
        if not out:
            time.sleep(min(timeout, 0.002))
        return out

    def assignment(self) -> set[TopicPartition]:
        return set(self.assigned)

    def lags(self, *, fresh: bool, timeout: float) -> dict[TopicPartition, int]:
        with self.lock:
            self.fresh_lag_queries += fresh  # what would be a round trip to the brokers
            return {tp: len(self.logs.get(tp, [])) - self.positions.get(tp, 0) for tp in self.assigned}

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        self.paused |= set(partitions)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        self.paused -= set(partitions)

    def set_pause_all(self, paused: bool) -> None:
        self.pause_all = paused

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self.seeks.append((partition, offset))
        self.positions[partition] = offset

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]:
        return {p: self.committed_offsets[p] for p in partitions if p in self.committed_offsets}

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None:
        self.commits.append(dict(offsets))
        self.committed_offsets.update(offsets)

    def close(self) -> None:
        self.closed = True


class FakeAdmin:
    def __init__(self) -> None:
        self.topics: dict[str, int] = {}
        self.created: list[TopicSpec] = []

    def partition_count(self, topic: str, timeout: float = 10.0) -> int | None:
        return self.topics.get(topic)

    def broker_count(self, timeout: float = 10.0) -> int:
        return 1

    def create_topics(self, topics: Iterable[TopicSpec], timeout: float = 30.0) -> set[str]:
        made = set()
        for spec in topics:
            self.created.append(spec)
            if spec.name not in self.topics:
                self.topics[spec.name] = max(spec.partitions, 1)
                made.add(spec.name)
        return made

    def close(self) -> None:
        pass


@dataclass
class FakeClients(KafkaClients):
    """A KafkaClients whose clients are fakes; records what it handed out per task."""

    partitions: list[TopicPartition] = field(default_factory=list)
    producers: dict[ConnectorTaskId, FakeProducer] = field(default_factory=dict)
    dlq_producers: dict[ConnectorTaskId, FakeProducer] = field(default_factory=dict)
    batch_calls: dict[ConnectorTaskId, bool] = field(default_factory=dict)
    gapless: dict[ConnectorTaskId, bool] = field(default_factory=dict)
    consumers: dict[ConnectorTaskId, FakeConsumer] = field(default_factory=dict)
    fake_admin: FakeAdmin = field(default_factory=FakeAdmin)
    policy: str = "All"

    def __post_init__(self) -> None:
        super().__init__(producer_props={}, consumer_props={}, admin_props={}, override_policy=self.policy)

    def producer(
        self,
        task: ConnectorTaskId,
        connector_config: Mapping[str, str],
        *,
        failure_reports_only: bool = False,
        batch_calls: bool = False,
        gapless: bool = False,
    ) -> ProducerLike:
        self.producer_config("x", connector_config)  # the override policy still applies
        self.batch_calls[task] = batch_calls
        self.gapless[task] = gapless
        producer = FakeProducer(failure_reports_only=failure_reports_only)
        self.producers[task] = producer
        return producer

    def dlq_producer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> ProducerLike:
        producer = FakeProducer()
        self.dlq_producers[task] = producer
        return producer

    def sink_consumer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> SinkConsumer:
        consumer = FakeConsumer(self.partitions)
        self.consumers[task] = consumer
        return consumer

    def admin(self, client_id: str = "kconnect-admin", connector_config: Mapping[str, str] | None = None) -> KafkaAdmin:
        return self.fake_admin  # type: ignore[return-value]
