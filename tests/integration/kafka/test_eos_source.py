"""Exactly-once sources on a real broker: a crash mid-transaction, a restart with the same transactional id,
a zombie that wakes up, and the herder's fencing of a running task."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from connect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask
from connect.converters import SimpleHeaderConverter, StringConverter
from connect.runtime.config.connector.keys import TransactionBoundary
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import KafkaClients
from connect.runtime.offsets import OffsetStorageReader, encode_key, encode_offset
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import KafkaOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.tasks.transactions import fence_zombie_tasks, transactional_id
from connect.runtime.tasks.worker_eos_source_task import WorkerEosSourceTask
from connect.runtime.worker import Worker
from tests.fixtures.kafka import TopicFactory
from tests.support.pipelines import record_pipeline
from tests.support.topic_reads import read_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

PARTITIONS = 3
BATCH = 50
SOURCE_PARTITION = {"generator": "seq"}


class SequenceTask(SourceTask):
    """Sequence numbers 0..count-1 (count -1: forever) in batches, resuming after the stored offset."""

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.count = int(props["count"])
        self.pause_s = int(props.get("poll.pause.ms", "0")) / 1000
        stored = self.context.offset_reader.offset(SOURCE_PARTITION)
        self.next = 0 if stored is None else int(stored["seq"]) + 1
        self.resumed_at = self.next
        self.idle = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if 0 <= self.count <= self.next:
            self.idle.wait(0.02)
            return None
        if self.pause_s:
            self.idle.wait(self.pause_s)
        end = self.next + BATCH if self.count < 0 else min(self.count, self.next + BATCH)
        batch = [
            SourceRecord(SOURCE_PARTITION, {"seq": n}, self.topic, kafka_partition=n % PARTITIONS, value=str(n))
            for n in range(self.next, end)
        ]
        self.next = end
        return batch

    def stop(self) -> None:
        self.idle.set()


class SequenceSource(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return SequenceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"topic": self.props["topic"], "count": self.props["count"]}]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


class FreezingConverter(StringConverter):
    """Blocks the task thread when it converts `freeze_at`, as a worker that stalls or dies mid-transaction."""

    def __init__(self, freeze_at: int) -> None:
        super().__init__()
        self.freeze_at = str(freeze_at)
        self.frozen = threading.Event()
        self.release = threading.Event()

    def from_connect_data(self, topic: str, schema: Any, value: Any, headers: Any = ()) -> bytes | None:
        if value == self.freeze_at and not self.release.is_set():
            self.frozen.set()
            self.release.wait(60)
        return super().from_connect_data(topic, schema, value, headers)


def read_values(bootstrap: str, topic: str, isolation: str) -> list[int]:
    return [int(value) for value in read_topic(bootstrap, topic, PARTITIONS, isolation)]


@pytest.fixture
def clients(kafka_bootstrap: str) -> KafkaClients:
    props = {"bootstrap.servers": kafka_bootstrap}
    return KafkaClients(producer_props=props, consumer_props=props, admin_props=props)


@pytest.fixture
def offsets_topic(topic_factory: TopicFactory) -> str:
    return topic_factory(partitions=5, config={"cleanup.policy": "compact"})


@pytest.fixture
def new_store(clients: KafkaClients, offsets_topic: str) -> Iterator[Callable[[], KafkaOffsetStore]]:
    """A started KafkaOffsetStore on the test's offsets topic, as another worker would have it."""
    stores: list[KafkaOffsetStore] = []

    def make() -> KafkaOffsetStore:
        store = KafkaOffsetStore(offsets_topic, clients, start_timeout=30)
        store.start()
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.stop()


class Runner:
    """A WorkerEosSourceTask for task 0 of `seq` with its own status store, as one worker would run it."""

    def __init__(
        self,
        clients: KafkaClients,
        store: KafkaOffsetStore,
        transactional: str,
        boundary: TransactionBoundary,
        topic: str,
        count: int,
        value_converter: StringConverter | None = None,
    ) -> None:
        self.task_id = ConnectorTaskId("seq", 0)
        self.status = MemoryStatusStore(f"worker-{uuid.uuid4().hex[:6]}")
        self.task = SequenceTask()
        self.runner = WorkerEosSourceTask(
            self.task_id,
            self.task,
            {"topic": topic, "count": str(count), "poll.pause.ms": "5"},
            self.status,
            TargetState.STARTED,
            producer=clients.transactional_producer(self.task_id, {}, transactional, failure_reports_only=True),
            pipeline=record_pipeline(self.task_id, value=value_converter, reporters=()),
            offset_store=store,
            transaction_boundary=boundary,
            transaction_boundary_interval_ms=50,
        )
        self.runner.start_thread()

    def state(self) -> State | None:
        status = self.status.task_status(self.task_id)
        return None if status is None else status.state


@pytest.mark.parametrize("boundary", [TransactionBoundary.POLL, TransactionBoundary.INTERVAL])
def test_a_task_killed_mid_transaction_and_restarted_delivers_every_sequence_number_once(
    boundary: TransactionBoundary,
    kafka_bootstrap: str,
    clients: KafkaClients,
    topic_factory: TopicFactory,
    new_store: Callable[[], KafkaOffsetStore],
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    count = 2000
    transactional = f"it-{uuid.uuid4().hex[:8]}-seq-0"
    freezer = FreezingConverter(freeze_at=1230)
    first = Runner(clients, new_store(), transactional, boundary, topic, count, freezer)
    wait_until(freezer.frozen.is_set, timeout=60, what="the first runner to reach sequence number 1230")
    # What it sent of its open transaction reaches the broker; then it is as good as dead.
    wait_until(
        lambda: 1229 in read_values(kafka_bootstrap, topic, "read_uncommitted"), timeout=30, what="records in the log"
    )
    assert first.runner.transactions_committed > 0

    second = Runner(clients, new_store(), transactional, boundary, topic, count)
    wait_until(lambda: second.state() is State.RUNNING, timeout=60, what="the second runner RUNNING")
    assert 0 < second.task.resumed_at <= 1200 and second.task.resumed_at % BATCH == 0
    reader = OffsetStorageReader("seq", new_store())
    wait_until(lambda: reader.offset(SOURCE_PARTITION) == {"seq": count - 1}, timeout=60, what="all committed")

    # The first runner wakes up as a zombie: fenced, it stops without failing and without touching the data.
    freezer.release.set()
    wait_until(lambda: first.runner.fenced, timeout=30, what="the zombie to be fenced")
    assert first.runner.await_stop(10)
    assert first.state() is State.UNASSIGNED
    assert second.state() is State.RUNNING and second.runner.is_running
    second.runner.stop()
    assert second.runner.await_stop(10)

    committed = read_values(kafka_bootstrap, topic, "read_committed")
    assert sorted(committed) == list(range(count))
    # The aborted transaction of the first runner is in the log: only read_committed hides it.
    uncommitted = read_values(kafka_bootstrap, topic, "read_uncommitted")
    assert len(uncommitted) > count


def test_offsets_written_in_an_aborted_transaction_are_never_read(
    clients: KafkaClients, new_store: Callable[[], KafkaOffsetStore]
) -> None:
    store = new_store()
    producer = clients.transactional_producer(ConnectorTaskId("x", 0), {}, f"it-{uuid.uuid4().hex[:8]}-x-0")
    producer.init_transactions(30)
    aborted_key, committed_key = encode_key("x", {"p": "aborted"}), encode_key("x", {"p": "committed"})
    for key, commit in ((aborted_key, False), (committed_key, True)):
        producer.begin_transaction()
        for record in store.offset_records({key: encode_offset({"n": 1})}):
            producer.produce(record.topic, record.value, record.key, record.partition)
        if commit:
            producer.commit_transaction(30)
        else:
            producer.flush(30)  # on the broker, yet aborted
            producer.abort_transaction(30)
    expected = {committed_key: encode_offset({"n": 1})}
    wait_until(lambda: store.get([aborted_key, committed_key]) == expected, timeout=30, what="the committed offset")
    assert new_store().snapshot() == expected


def test_the_herders_fencing_stops_a_running_exactly_once_task_without_failing_it(
    kafka_bootstrap: str, clients: KafkaClients, topic_factory: TopicFactory, offsets_topic: str
) -> None:
    topic = topic_factory(partitions=PARTITIONS)
    group = f"it-cluster-{uuid.uuid4().hex[:8]}"
    config = WorkerConfig.from_props(
        {
            "bootstrap.servers": kafka_bootstrap,
            "group.id": group,
            "exactly.once.source.support": "enabled",
            "key.converter": "StringConverter",
            "value.converter": "StringConverter",
        }
    )
    store = KafkaOffsetStore(offsets_topic, clients)
    status = MemoryStatusStore("w1")
    worker = Worker(
        worker_id="w1",
        config=config,
        plugins=PluginRegistry.of(SequenceSource, StringConverter, SimpleHeaderConverter),
        offset_store=store,
        status=status,
    )
    worker.start()
    task_id = ConnectorTaskId("seq", 0)
    try:
        connector = {"name": "seq", "connector.class": "SequenceSource", "topic": topic, "count": "-1"}
        worker.start_task(task_id, connector, {"topic": topic, "count": "-1"}, TargetState.STARTED)
        runner = worker.task(task_id)
        assert isinstance(runner, WorkerEosSourceTask)
        assert runner.transactional_producer.transactional_id == transactional_id(group, task_id)
        reader = OffsetStorageReader("seq", store)
        wait_until(lambda: (reader.offset(SOURCE_PARTITION) or {}).get("seq", 0) > 500, timeout=60, what="progress")

        fence_zombie_tasks(clients, group, "seq", previous_task_count=1)
        wait_until(lambda: runner.fenced, timeout=30, what="the task to be fenced")
        assert runner.await_stop(10)
        task_status = status.task_status(task_id)
        assert task_status is not None and task_status.state is State.UNASSIGNED
        assert not worker.is_running(task_id)
    finally:
        worker.stop()
    committed = read_values(kafka_bootstrap, topic, "read_committed")
    assert sorted(committed) == list(range(len(committed)))  # every number up to the last commit, once
    assert len(committed) > 500
