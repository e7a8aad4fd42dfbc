"""The Worker against a real broker: source → Kafka → sink, offsets after acks, DLQ, admin helpers."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest
from confluent_kafka import Consumer

from connect.api import (
    ConfigDef,
    RetriableError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceRecordBatch,
    SourceTask,
    TopicPartition,
)
from connect.converters import JsonConverter, SimpleHeaderConverter, StringConverter
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import KafkaClients, TopicSpec
from connect.runtime.offsets import OffsetStorageReader
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

RECEIVED: dict[str, list[SinkRecord]] = {}
RECEIVED_LOCK = threading.Lock()


class SequenceSourceTask(SourceTask):
    """Records n = 0..count-1 of one source partition, spread over Kafka partitions by n."""

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.count = int(props["count"])
        self.partitions = int(props["partitions"])
        self.partition = {"generator": props["task.id"]}
        stored = self.context.offset_reader.offset(self.partition)
        self.next = 0 if stored is None else int(stored["n"]) + 1
        self.stopped = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self.next >= self.count:
            self.stopped.wait(0.05)
            return None
        end = min(self.count, self.next + 250)
        batch = [
            SourceRecord(
                self.partition,
                {"n": n},
                self.topic,
                kafka_partition=n % self.partitions,
                key=f"k{n}",
                value={"n": n},
            )
            for n in range(self.next, end)
        ]
        self.next = end
        return batch

    def stop(self) -> None:
        self.stopped.set()


class SequenceBatchSourceTask(SequenceSourceTask):
    """The same records as columns: one batch per Kafka partition per poll (a batch has one Kafka partition)."""

    def poll(self) -> list[SourceRecord] | None:
        batches = self.poll_batches()
        return [record for batch in batches for record in batch] if batches else None

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        if self.next >= self.count:
            self.stopped.wait(0.05)
            return None
        end = min(self.count, self.next + 250)
        batches = []
        for kafka_partition in range(self.partitions):
            numbers = range(self.next + (kafka_partition - self.next) % self.partitions, end, self.partitions)
            if numbers:
                batches.append(
                    SourceRecordBatch(
                        self.topic,
                        [{"n": n} for n in numbers],
                        keys=[f"k{n}" for n in numbers],
                        source_partition=self.partition,
                        source_offsets=[{"n": n} for n in numbers],
                        kafka_partition=kafka_partition,
                    )
                )
        # The batch holding the poll's last record goes last, so that its offset is the one stored.
        batches.sort(key=lambda batch: batch.source_offsets[-1]["n"])  # type: ignore[index]
        self.next = end
        return batches


class SequenceSource(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return SequenceSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        keys = ("topic", "count", "partitions")
        return [{"task.id": str(i), **{k: self.props[k] for k in keys}} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


class SequenceBatchSource(SequenceSource):
    def task_class(self) -> type[SourceTask]:
        return SequenceBatchSourceTask


class CollectingSinkTask(SinkTask):
    """Collects into RECEIVED[name]; `fail.first.puts` non-empty puts raise a RetriableError first."""

    def start(self, props: Mapping[str, str]) -> None:
        self.name = props["collect.into"]
        self.failures_left = int(props.get("fail.first.puts", "0"))

    def put(self, records: Sequence[SinkRecord]) -> None:
        if records and self.failures_left > 0:
            self.failures_left -= 1
            raise RetriableError("the target is busy")
        with RECEIVED_LOCK:
            RECEIVED.setdefault(self.name, []).extend(records)

    def stop(self) -> None:
        pass


class CollectingSink(SinkConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SinkTask]:
        return CollectingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        extra = {k: v for k, v in self.props.items() if k == "fail.first.puts"}
        return [{"collect.into": self.props["name"], **extra} for _ in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


PLUGINS = (SequenceSource, SequenceBatchSource, CollectingSink, JsonConverter, StringConverter, SimpleHeaderConverter)


class Harness:
    def __init__(self, bootstrap: str, **worker_props: str) -> None:
        props = {
            "bootstrap.servers": bootstrap,
            "key.converter": "StringConverter",
            "value.converter": "JsonConverter",
            "value.converter.schemas.enable": "false",
            "offset.flush.interval.ms": "200",
            **worker_props,
        }
        self.status = MemoryStatusStore("it-worker")
        self.store = MemoryOffsetStore()
        self.config = WorkerConfig.from_props(props)
        self.clients = KafkaClients.from_worker_config(self.config)
        self.worker = Worker(
            worker_id="it-worker",
            config=self.config,
            plugins=PluginRegistry.of(*PLUGINS),
            offset_store=self.store,
            status=self.status,
        )
        self.worker.start()

    def run(self, name: str, config: dict[str, str], tasks: int) -> list[ConnectorTaskId]:
        config = {"name": name, "tasks.max": str(tasks), **config}
        self.worker.start_connector(name, config, TargetState.STARTED, lambda _: None)
        ids = []
        for i, task_config in enumerate(self.worker.connector_task_configs(name, tasks)):
            task_id = ConnectorTaskId(name, i)
            self.worker.start_task(task_id, config, task_config, TargetState.STARTED)
            ids.append(task_id)
        return ids

    def state(self, task_id: ConnectorTaskId) -> State | None:
        status = self.status.task_status(task_id)
        return None if status is None else status.state


@pytest.fixture
def harness(kafka_bootstrap: str) -> Iterator[Harness]:
    h = Harness(kafka_bootstrap)
    yield h
    h.worker.stop()


@pytest.mark.parametrize("connector_class", ["SequenceSource", "SequenceBatchSource"], ids=["records", "batches"])
def test_source_records_reach_a_sink_in_partition_order_with_offsets_committed(
    harness: Harness, topic_factory: Callable[..., str], connector_class: str
) -> None:
    topic = topic_factory(partitions=3)
    count = 3000
    source = f"gen-{uuid.uuid4().hex[:8]}"
    source_config = {"connector.class": connector_class, "topic": topic, "count": str(count), "partitions": "3"}
    source_ids = harness.run(source, source_config, tasks=1)
    reader = OffsetStorageReader(source, harness.store)
    wait_until(lambda: reader.offset({"generator": "0"}) == {"n": count - 1}, 60, what="source offsets")
    assert harness.state(source_ids[0]) is State.RUNNING
    assert harness.worker.active_topics(source) == {topic}

    sink = f"collect-{uuid.uuid4().hex[:8]}"
    sink_ids = harness.run(sink, {"connector.class": "CollectingSink", "topics": topic}, tasks=2)
    wait_until(lambda: len(RECEIVED.get(sink, [])) >= count, 60, what="all records at the sink")
    with RECEIVED_LOCK:
        records = list(RECEIVED[sink])
    assert len(records) == count  # nothing twice
    for partition in range(3):
        mine = [r for r in records if r.kafka_partition == partition]
        assert [r.kafka_offset for r in mine] == list(range(len(mine)))
        assert [r.value["n"] for r in mine] == list(range(partition, count, 3))
        assert all(r.key == f"k{r.value['n']}" for r in mine)
    end_offsets = {TopicPartition(topic, p): count // 3 for p in range(3)}
    admin = harness.clients.admin()
    wait_until(
        lambda: admin.consumer_group_offsets(f"connect-{sink}") == end_offsets, 60, what="committed group offsets"
    )
    harness.worker.stop_tasks(sink_ids)
    assert all(harness.state(t) is State.UNASSIGNED for t in sink_ids)


def test_a_regex_subscription_reads_every_matching_topic(
    harness: Harness, kafka_admin: Any, kafka_bootstrap: str
) -> None:
    prefix = f"rx-{uuid.uuid4().hex[:8]}"
    topics = [f"{prefix}-a", f"{prefix}-b"]
    admin = harness.clients.admin()
    admin.create_topics([TopicSpec(t, 1, 1) for t in topics])
    producer = harness.clients.producer(ConnectorTaskId("test", 0), {})
    for topic in topics:
        producer.produce(topic, b'{"from":"' + topic.encode() + b'"}')
    assert producer.flush(10) == 0
    sink = f"regex-{uuid.uuid4().hex[:8]}"
    harness.run(sink, {"connector.class": "CollectingSink", "topics.regex": f"{prefix}-.*"}, tasks=1)
    wait_until(lambda: len(RECEIVED.get(sink, [])) == 2, 60, what="a record from each topic")
    assert sorted(r.topic for r in RECEIVED[sink]) == topics
    wait_until(lambda: harness.worker.active_topics(sink) == set(topics), 60, what="both topics tracked")
    kafka_admin.delete_topics(topics)


def test_a_retriable_put_failure_redelivers_without_loss_or_duplicates(
    harness: Harness, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory(partitions=2)
    producer = harness.clients.producer(ConnectorTaskId("test", 0), {})
    for i in range(200):
        producer.produce(topic, b'{"i":%d}' % i, None, i % 2)
    assert producer.flush(10) == 0
    sink = f"retry-{uuid.uuid4().hex[:8]}"
    harness.run(sink, {"connector.class": "CollectingSink", "topics": topic, "fail.first.puts": "3"}, tasks=1)
    wait_until(lambda: len(RECEIVED.get(sink, [])) >= 200, 60, what="all records")
    time.sleep(0.5)  # anything redelivered twice would show up now
    assert sorted(r.value["i"] for r in RECEIVED[sink]) == list(range(200))
    admin = harness.clients.admin()
    expected = {TopicPartition(topic, 0): 100, TopicPartition(topic, 1): 100}
    wait_until(lambda: admin.consumer_group_offsets(f"connect-{sink}") == expected, 60, what="committed offsets")


def test_offsets_of_records_kafka_never_acknowledged_are_never_stored(kafka_bootstrap: str, unique_topic: str) -> None:
    h = Harness(kafka_bootstrap, **{"offset.flush.timeout.ms": "300", "task.shutdown.graceful.timeout.ms": "3000"})
    try:
        name = f"unreachable-{uuid.uuid4().hex[:8]}"
        config = {
            "connector.class": "SequenceSource",
            "topic": unique_topic,
            "count": "10",
            "partitions": "1",
            # This task's producer talks to a port where no broker listens: nothing is ever acknowledged.
            "producer.override.bootstrap.servers": "127.0.0.1:1",
        }
        [task_id] = h.run(name, config, tasks=1)
        wait_until(lambda: h.state(task_id) is State.RUNNING, 60, what="RUNNING")
        time.sleep(1.0)  # several flush intervals pass without an acknowledgement
        assert h.store.snapshot() == {}
        h.worker.stop_tasks([task_id])
        assert h.store.snapshot() == {}
    finally:
        h.worker.stop()


def test_bad_records_go_to_the_dead_letter_queue_and_the_sink_moves_on(
    harness: Harness, topic_factory: Callable[..., str], kafka_bootstrap: str
) -> None:
    topic = topic_factory(partitions=1)
    dlq = f"dlq-{uuid.uuid4().hex[:8]}"
    producer = harness.clients.producer(ConnectorTaskId("test", 0), {})
    for value in (b'{"ok":1}', b"not json", b'{"ok":2}'):
        producer.produce(topic, value, b"key")
    assert producer.flush(10) == 0
    sink = f"dlq-sink-{uuid.uuid4().hex[:8]}"
    harness.run(
        sink,
        {
            "connector.class": "CollectingSink",
            "topics": topic,
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.context.headers.enable": "true",
        },
        tasks=1,
    )
    wait_until(lambda: len(RECEIVED.get(sink, [])) == 2, 60, what="the two good records")
    assert [r.value for r in RECEIVED[sink]] == [{"ok": 1}, {"ok": 2}]
    dead = _read_all(kafka_bootstrap, dlq, expected=1)
    assert [(m.key(), m.value()) for m in dead] == [(b"key", b"not json")]
    headers = dict(dead[0].headers() or [])
    assert headers["__connect.errors.topic"] == topic.encode()
    assert headers["__connect.errors.offset"] == b"1"
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"


def test_admin_helpers_for_the_herder(harness: Harness, topic_factory: Callable[..., str]) -> None:
    admin = harness.clients.admin()
    assert admin.cluster_id()
    assert admin.broker_count() >= 1
    name = f"created-{uuid.uuid4().hex[:8]}"
    assert admin.create_topics([TopicSpec(name, 2, 1)]) == {name}
    assert admin.create_topics([TopicSpec(name, 2, 1)]) == set()  # exists already: not an error
    # The broker's metadata may lag the controller's acknowledgement of the creation for a moment.
    wait_until(lambda: admin.partition_count(name) == 2, 10, what="the new topic in the broker's metadata")
    assert admin.partition_count(f"missing-{uuid.uuid4().hex}") is None

    topic = topic_factory(partitions=2)
    producer = harness.clients.producer(ConnectorTaskId("test", 0), {})
    for i in range(5):
        producer.produce(topic, b"x", None, i % 2)
    assert producer.flush(10) == 0
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    assert admin.end_offsets([tp0, tp1]) == {tp0: 3, tp1: 2}

    group = f"connect-{uuid.uuid4().hex[:8]}"
    assert admin.consumer_group_offsets(group) == {}
    admin.alter_consumer_group_offsets(group, {tp0: 2, tp1: 1})
    assert admin.consumer_group_offsets(group) == {tp0: 2, tp1: 1}
    assert admin.delete_consumer_group(group) is True
    assert admin.consumer_group_offsets(group) == {}


def test_settings_librdkafka_does_not_know_are_dropped(kafka_bootstrap: str, unique_topic: str) -> None:
    clients = KafkaClients(
        producer_props={"bootstrap.servers": kafka_bootstrap, "some.java.only.setting": "1", "buffer.memory": "1"},
        consumer_props={"bootstrap.servers": kafka_bootstrap},
        admin_props={"bootstrap.servers": kafka_bootstrap},
    )
    producer = clients.producer(ConnectorTaskId("c", 0), {})
    producer.produce(unique_topic, b"v")
    assert producer.flush(10) == 0


def _read_all(bootstrap: str, topic: str, expected: int, timeout: float = 30.0) -> list[Any]:
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"reader-{uuid.uuid4().hex}", "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([topic])
    messages: list[Any] = []
    deadline = time.monotonic() + timeout
    try:
        while len(messages) < expected and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                messages.append(message)
    finally:
        consumer.close()
    return messages
