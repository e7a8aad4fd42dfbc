"""The distributed stores (config log, offsets, statuses) on a real broker, as several workers see them."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import orjson
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from connect.runtime.domain.info import InstanceStatus, RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import KafkaClients
from connect.runtime.kafka.internal_topics import InternalTopicSpec, ensure_internal_topics
from connect.runtime.offsets import OffsetStorageReader, encode_key, encode_offset
from connect.runtime.stores import (
    ChangeKind,
    ConfigChange,
    ConfigLog,
    KafkaOffsetStore,
    KafkaStatusStore,
    key_partition,
)
from local_kafka import LocalKafka
from tests.fixtures.kafka import TopicFactory
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

T = TypeVar("T")
COMPACT = {"cleanup.policy": "compact"}


def read_all(bootstrap: str, topic: str, partitions: int) -> list[tuple[int, bytes | None, bytes | None]]:
    """Every record of `topic` as (partition, key, value), read by a plain consumer."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"test-{uuid.uuid4().hex}", "enable.partition.eof": True}
    )
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    records: list[tuple[int, bytes | None, bytes | None]] = []
    at_end: set[int] = set()
    deadline = time.monotonic() + 30
    while len(at_end) < partitions and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is None:
            continue
        partition = message.partition()
        assert partition is not None
        if message.error() is not None:
            at_end.add(partition)
        else:
            records.append((partition, message.key(), message.value()))
    consumer.close()
    return records


@pytest.fixture
def clients(kafka_bootstrap: str) -> KafkaClients:
    props = {"bootstrap.servers": kafka_bootstrap}
    return KafkaClients(producer_props=props, consumer_props=props, admin_props=props)


@pytest.fixture
def stopper() -> Iterator[Callable[[T], T]]:
    """`stopper(store)` stops the store when the test ends (also when it failed)."""
    stores: list[Any] = []

    def track(store: T) -> T:
        stores.append(store)
        return store

    yield track
    for store in reversed(stores):
        store.stop()


# -- config log --------------------------------------------------------------------------------


@pytest.fixture
def config_topic(topic_factory: TopicFactory) -> str:
    return topic_factory(partitions=1, config=COMPACT)


def test_a_write_is_in_the_writers_snapshot_when_the_call_returns(
    config_topic: str, clients: KafkaClients, stopper: Callable[[ConfigLog], ConfigLog]
) -> None:
    log = stopper(ConfigLog(config_topic, clients))
    log.start(30)

    offset = log.put_connector_config("orders", {"connector.class": "A"}, TargetState.PAUSED)

    snapshot = log.snapshot()
    assert snapshot.connector_config("orders") == {"connector.class": "A"}
    assert snapshot.target_state("orders") is TargetState.PAUSED
    assert snapshot.offset == offset + 1


def test_any_worker_reads_what_another_wrote_and_listeners_hear_of_it(
    config_topic: str, clients: KafkaClients, stopper: Callable[[ConfigLog], ConfigLog]
) -> None:
    first = stopper(ConfigLog(config_topic, clients))
    second = stopper(ConfigLog(config_topic, clients))
    first.start(30)
    second.start(30)
    heard: list[ConfigChange] = []
    lock = threading.Lock()

    def listen(change: ConfigChange) -> None:
        with lock:
            heard.append(change)

    second.add_listener(listen)

    first.put_connector_config("orders", {"connector.class": "A", "tasks.max": "2"})
    first.put_task_configs("orders", [{"task": "0"}, {"task": "1"}], epoch=1)
    first.put_target_state("orders", TargetState.STOPPED)
    first.put_restart_request(RestartRequest("orders", only_failed=True, include_tasks=True))
    second.read_to_end(30)

    snapshot = second.snapshot()
    assert snapshot.tasks("orders") == [ConnectorTaskId("orders", 0), ConnectorTaskId("orders", 1)]
    assert snapshot.task_config(ConnectorTaskId("orders", 1)) == {"task": "1"}
    assert snapshot.target_state("orders") is TargetState.STOPPED
    restart = snapshot.restart_requests["orders"].request
    assert (restart.only_failed, restart.include_tasks) == (True, True)
    with lock:
        kinds = [c.kind for c in heard]
    assert kinds == [
        ChangeKind.CONNECTOR_CONFIG,
        ChangeKind.TASK_CONFIGS,
        ChangeKind.TARGET_STATE,
        ChangeKind.RESTART_REQUEST,
    ]


def test_a_restarted_reader_recovers_the_state_from_the_topic(
    config_topic: str, clients: KafkaClients, stopper: Callable[[ConfigLog], ConfigLog]
) -> None:
    writer = stopper(ConfigLog(config_topic, clients))
    writer.start(30)
    writer.put_connector_config("kept", {"v": "1"})
    writer.put_connector_config("kept", {"v": "2"}, TargetState.PAUSED)
    writer.put_task_configs("kept", [{"t": "a"}, {"t": "b"}], epoch=3)
    writer.put_task_configs("kept", [{"t": "c"}], epoch=4)
    writer.put_connector_config("deleted", {"v": "x"})
    writer.put_task_configs("deleted", [{"t": "x"}], epoch=1)
    writer.remove_connector("deleted")
    writer.put_task_restart_request(ConnectorTaskId("kept", 0))
    writer.put_extension("kconnect-placement", {"kept-0": "worker-1"})
    expected = writer.snapshot()
    writer.stop()

    restarted = stopper(ConfigLog(config_topic, clients))
    restarted.start(30)

    assert restarted.snapshot() == expected
    assert restarted.snapshot().connectors() == ["kept"]
    assert restarted.snapshot().task_config(ConnectorTaskId("kept", 0)) == {"t": "c"}


def test_config_records_are_kafka_connects(
    kafka_bootstrap: str, config_topic: str, clients: KafkaClients, stopper: Callable[[ConfigLog], ConfigLog]
) -> None:
    log = stopper(ConfigLog(config_topic, clients))
    log.start(30)
    log.put_connector_config("c", {"connector.class": "A"}, TargetState.STOPPED)
    log.put_task_configs("c", [{"k": "v"}], epoch=7)
    log.put_restart_request(RestartRequest("c", include_tasks=True))
    log.remove_connector("c")

    records = [
        (key, None if value is None else orjson.loads(value))
        for _, key, value in read_all(kafka_bootstrap, config_topic, 1)
    ]

    assert records == [
        (b"target-state-c", {"state": "PAUSED", "state.v2": "STOPPED"}),
        (b"connector-c", {"properties": {"connector.class": "A"}}),
        (b"task-c-0", {"properties": {"k": "v"}, "epoch": 7}),
        (b"commit-c", {"tasks": 1, "epoch": 7}),
        (b"restart-connector-c", {"include-tasks": True, "only-failed": False}),
        (b"connector-c", None),
        (b"target-state-c", None),
    ]


def test_records_a_java_worker_wrote_are_understood(
    kafka_bootstrap: str, config_topic: str, clients: KafkaClients, stopper: Callable[[ConfigLog], ConfigLog]
) -> None:
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for key, value in [
        (b"connector-java", b'{"properties":{"connector.class":"FileStreamSource","tasks.max":"1"}}'),
        (b"task-java-0", b'{"properties":{"file":"/tmp/a"}}'),
        (b"commit-java", b'{"tasks":1}'),
        (b"target-state-java", b'{"state":"PAUSED","state.v2":"STOPPED"}'),
        (b"session-key", b'{"key":"c2VjcmV0","algorithm":"HmacSHA256","creation-timestamp":1700000000000}'),
    ]:
        producer.produce(config_topic, key=key, value=value)
    assert producer.flush(30) == 0

    log = stopper(ConfigLog(config_topic, clients))
    log.start(30)

    snapshot = log.snapshot()
    assert snapshot.connector_config("java") == {"connector.class": "FileStreamSource", "tasks.max": "1"}
    assert snapshot.task_config(ConnectorTaskId("java", 0)) == {"file": "/tmp/a"}
    assert snapshot.target_state("java") is TargetState.STOPPED


# -- offsets -----------------------------------------------------------------------------------


@pytest.fixture
def offsets_topic(topic_factory: TopicFactory) -> str:
    return topic_factory(partitions=25, config=COMPACT)


def test_offsets_written_by_one_worker_are_read_by_another(
    offsets_topic: str, clients: KafkaClients, stopper: Callable[[KafkaOffsetStore], KafkaOffsetStore]
) -> None:
    writer = stopper(KafkaOffsetStore(offsets_topic, clients))
    writer.start()
    keys = {f"file-{i}.txt": encode_key("source", {"filename": f"file-{i}.txt"}) for i in range(30)}
    writer.set({key: encode_offset({"position": 10}) for key in keys.values()})
    writer.flush(30)
    writer.set({keys["file-0.txt"]: encode_offset({"position": 99}), keys["file-1.txt"]: None})
    writer.flush(30)

    reader = stopper(KafkaOffsetStore(offsets_topic, clients))
    reader.start()

    offsets = OffsetStorageReader("source", reader)
    assert offsets.offset({"filename": "file-0.txt"}) == {"position": 99}
    assert offsets.offset({"filename": "file-1.txt"}) is None
    assert offsets.offset({"filename": "file-29.txt"}) == {"position": 10}
    assert len(reader.snapshot()) == 29


def test_get_sees_offsets_another_worker_flushed_after_this_one_started(
    offsets_topic: str, clients: KafkaClients, stopper: Callable[[KafkaOffsetStore], KafkaOffsetStore]
) -> None:
    # The task moved: its new worker's store was already running when the old owner committed.
    new_owner = stopper(KafkaOffsetStore(offsets_topic, clients))
    new_owner.start()
    old_owner = stopper(KafkaOffsetStore(offsets_topic, clients))
    old_owner.start()
    key = encode_key("source", {"table": "orders"})

    for position in range(1, 6):
        old_owner.set({key: encode_offset({"id": position})})
        old_owner.flush(30)
        assert new_owner.get([key]) == {key: encode_offset({"id": position})}


def test_offset_records_land_in_javas_partition(
    kafka_bootstrap: str,
    offsets_topic: str,
    clients: KafkaClients,
    stopper: Callable[[KafkaOffsetStore], KafkaOffsetStore],
) -> None:
    store = stopper(KafkaOffsetStore(offsets_topic, clients))
    store.start()
    keys = [encode_key("source", {"shard": i}) for i in range(40)]
    store.set(dict.fromkeys(keys, encode_offset({"seq": 1})))
    store.flush(30)

    where = {key: partition for partition, key, _ in read_all(kafka_bootstrap, offsets_topic, 25)}
    assert all(where[key] == key_partition(key, 25) for key in keys)
    assert len(set(where.values())) > 10, "keys spread over the partitions"


def test_transactional_offset_records_count_only_once_committed(
    kafka_bootstrap: str,
    offsets_topic: str,
    clients: KafkaClients,
    stopper: Callable[[KafkaOffsetStore], KafkaOffsetStore],
) -> None:
    store = stopper(KafkaOffsetStore(offsets_topic, clients))
    store.start()
    committed_key = encode_key("eos", {"p": "committed"})
    # An aborted record in the same partition, before the committed one: once the committed offset is
    # read, the reader has passed the aborted one.
    aborted_key = next(
        key
        for key in (encode_key("eos", {"p": f"aborted-{i}"}) for i in range(1000))
        if key_partition(key, 25) == key_partition(committed_key, 25)
    )
    # What an exactly-once source task does with its own transactional producer.
    task_producer = Producer({"bootstrap.servers": kafka_bootstrap, "transactional.id": f"t-{uuid.uuid4().hex}"})
    task_producer.init_transactions(30)
    for key, commit in ((aborted_key, False), (committed_key, True)):
        task_producer.begin_transaction()
        for record in store.offset_records({key: encode_offset({"n": 1})}):
            task_producer.produce(record.topic, key=record.key, value=record.value, partition=record.partition)
        if commit:
            task_producer.commit_transaction(30)
        else:
            task_producer.abort_transaction(30)

    # Kafka writes the commit markers just after commit_transaction returns: visible within moments.
    wait_until(lambda: store.get([committed_key]), 15, "the committed offset")
    assert store.get([committed_key, aborted_key]) == {committed_key: encode_offset({"n": 1})}
    assert store.offset_records({committed_key: None})[0].partition == key_partition(committed_key, 25)


# -- statuses ----------------------------------------------------------------------------------


@pytest.fixture
def status_topic(topic_factory: TopicFactory) -> str:
    return topic_factory(partitions=5, config=COMPACT)


def status_store(
    topic: str, clients: KafkaClients, worker: str, generation: int, stopper: Callable[[Any], Any]
) -> KafkaStatusStore:
    store: KafkaStatusStore = stopper(KafkaStatusStore(topic, clients, worker, generation=generation))
    store.start(30)
    return store


def test_statuses_written_by_one_worker_are_seen_by_every_worker(
    status_topic: str, clients: KafkaClients, stopper: Callable[[Any], Any]
) -> None:
    worker1 = status_store(status_topic, clients, "w1:8083", 1, stopper)
    worker2 = status_store(status_topic, clients, "w2:8083", 1, stopper)
    task = ConnectorTaskId("orders", 0)

    worker1.on_connector_startup("orders")
    worker1.on_task_startup(task)
    worker1.on_task_failure(ConnectorTaskId("orders", 1), "Traceback: boom")

    wait_until(lambda: len(worker2.task_statuses("orders")) == 2, 15, "both task statuses on worker 2")
    assert worker2.connector_status("orders") == InstanceStatus(State.RUNNING, "w1:8083")
    assert worker2.task_statuses("orders") == {
        0: InstanceStatus(State.RUNNING, "w1:8083"),
        1: InstanceStatus(State.FAILED, "w1:8083", "Traceback: boom"),
    }
    assert [s.name for s in worker2.all()] == ["orders"]


def test_a_zombie_cannot_overwrite_the_new_owners_status(
    status_topic: str, clients: KafkaClients, stopper: Callable[[Any], Any]
) -> None:
    zombie = status_store(status_topic, clients, "old:8083", 4, stopper)
    owner = status_store(status_topic, clients, "new:8083", 5, stopper)
    task = ConnectorTaskId("orders", 0)
    zombie.on_task_startup(task)
    zombie.read_to_end(30)
    owner.on_task_startup(task)
    owner.read_to_end(30)
    zombie.read_to_end(30)

    zombie.on_task_failure(task, "fenced")
    zombie.on_task_shutdown(task)
    zombie.read_to_end(30)
    owner.read_to_end(30)

    assert owner.task_status(task) == InstanceStatus(State.RUNNING, "new:8083")
    assert zombie.task_status(task) == InstanceStatus(State.RUNNING, "new:8083")
    entry = owner.task_entry(task)
    assert entry is not None and entry.generation == 5


def test_stale_unassigned_written_late_does_not_replace_a_newer_status(
    kafka_bootstrap: str, status_topic: str, clients: KafkaClients, stopper: Callable[[Any], Any]
) -> None:
    store = status_store(status_topic, clients, "new:8083", 5, stopper)
    store.on_task_startup(ConnectorTaskId("orders", 0))
    store.read_to_end(30)
    # A worker of an older generation that had not read the new status yet (no safe-write check possible).
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "partitioner": "murmur2_random"})
    producer.produce(
        status_topic,
        key=b"status-task-orders-0",
        value=b'{"state":"UNASSIGNED","trace":null,"worker_id":"old:8083","generation":4}',
    )
    assert producer.flush(30) == 0
    store.read_to_end(30)

    assert store.task_status(ConnectorTaskId("orders", 0)) == InstanceStatus(State.RUNNING, "new:8083")


def test_deletion_removes_the_connector_its_tasks_and_topics(
    status_topic: str, clients: KafkaClients, stopper: Callable[[Any], Any]
) -> None:
    worker1 = status_store(status_topic, clients, "w1:8083", 1, stopper)
    worker2 = status_store(status_topic, clients, "w2:8083", 1, stopper)
    worker1.on_connector_startup("orders")
    worker1.on_task_startup(ConnectorTaskId("orders", 0))
    worker1.on_topic_used(ConnectorTaskId("orders", 0), "orders-topic")
    worker1.on_connector_startup("users")
    worker1.read_to_end(30)

    worker1.on_connector_deletion("orders")
    worker1.read_to_end(30)
    worker2.read_to_end(30)

    assert [s.name for s in worker2.all()] == ["users"]
    assert worker2.active_topics("orders") == set()


def test_active_topics_are_shared_and_reset(
    kafka_bootstrap: str, status_topic: str, clients: KafkaClients, stopper: Callable[[Any], Any]
) -> None:
    worker1 = status_store(status_topic, clients, "w1:8083", 1, stopper)
    worker2 = status_store(status_topic, clients, "w2:8083", 1, stopper)

    worker1.on_topic_used(ConnectorTaskId("orders", 2), "orders-a")
    worker1.on_topic_used(ConnectorTaskId("orders", 0), "orders-b")
    worker1.on_topic_used(ConnectorTaskId("orders", 1), "orders-a")
    worker1.read_to_end(30)
    worker2.read_to_end(30)
    assert worker2.active_topics("orders") == {"orders-a", "orders-b"}
    topic_records = [
        orjson.loads(value)
        for _, key, value in read_all(kafka_bootstrap, status_topic, 5)
        if key == b"status-topic-orders-a:connector-orders" and value is not None
    ]
    assert len(topic_records) == 1, "a topic is announced once"
    assert topic_records[0]["topic"]["name"] == "orders-a"
    assert topic_records[0]["topic"]["connector"] == "orders"
    assert topic_records[0]["topic"]["task"] == 2, "with the task that used it first"
    assert [s.task for s in worker2.topic_statuses("orders")] == [2, 0]

    worker2.reset_active_topics("orders")
    worker2.read_to_end(30)
    worker1.read_to_end(30)
    assert worker1.active_topics("orders") == set()


def test_status_records_are_kafka_connects(
    kafka_bootstrap: str, status_topic: str, clients: KafkaClients, stopper: Callable[[Any], Any]
) -> None:
    store = status_store(status_topic, clients, "10.0.0.1:8083", 3, stopper)
    store.on_connector_startup("my-conn")
    store.on_task_failure(ConnectorTaskId("my-conn", 2), "trace")
    store.read_to_end(30)

    records = {key: orjson.loads(value) for _, key, value in read_all(kafka_bootstrap, status_topic, 5) if value}

    assert records[b"status-connector-my-conn"] == {
        "state": "RUNNING",
        "trace": None,
        "worker_id": "10.0.0.1:8083",
        "generation": 3,
    }
    assert records[b"status-task-my-conn-2"] == {
        "state": "FAILED",
        "trace": "trace",
        "worker_id": "10.0.0.1:8083",
        "generation": 3,
    }


def test_internal_topics_then_all_three_stores_start_on_them(
    clients: KafkaClients, kafka_admin: Any, stopper: Callable[[Any], Any]
) -> None:
    suffix = uuid.uuid4().hex[:8]
    specs = [
        InternalTopicSpec(f"c-{suffix}", 1, 1, "config.storage.topic"),
        InternalTopicSpec(f"o-{suffix}", 25, 1, "offset.storage.topic"),
        InternalTopicSpec(f"s-{suffix}", 5, 1, "status.storage.topic"),
    ]
    try:
        ensure_internal_topics(clients, specs)
        config = stopper(ConfigLog(specs[0].name, clients))
        config.start(30)
        offsets = stopper(KafkaOffsetStore(specs[1].name, clients))
        offsets.start()
        statuses = stopper(KafkaStatusStore(specs[2].name, clients, "w:1"))
        statuses.start(30)

        config.put_connector_config("c", {"a": "b"})
        assert config.snapshot().contains("c")
    finally:
        kafka_admin.delete_topics([s.name for s in specs])


def test_stores_ride_out_a_broker_restart(restartable_kafka: LocalKafka, stopper: Callable[[Any], Any]) -> None:
    cluster = restartable_kafka  # the session broker must stay up
    props = {"bootstrap.servers": cluster.bootstrap_servers}
    clients = KafkaClients(producer_props=props, consumer_props=props, admin_props=props)
    specs = [InternalTopicSpec("configs", 1, 1), InternalTopicSpec("status", 5, 1)]
    ensure_internal_topics(clients, specs)
    config = stopper(ConfigLog("configs", clients))
    config.start(30)
    statuses = stopper(KafkaStatusStore("status", clients, "w:1"))
    statuses.start(30)
    config.put_connector_config("before", {"a": "1"})

    cluster.stop()
    statuses.on_connector_startup("during")  # queued while the broker is down
    written: list[int] = []
    writer = threading.Thread(
        target=lambda: written.append(config.put_connector_config("during", {"a": "2"}, timeout=120))
    )
    writer.start()
    cluster.start()
    writer.join(120)

    assert written, "the config write completed once the broker was back"
    assert config.snapshot().connectors() == ["before", "during"]
    statuses.read_to_end(60)
    assert statuses.connector_status("during") == InstanceStatus(State.RUNNING, "w:1")
    fresh = stopper(ConfigLog("configs", clients))
    fresh.start(30)
    assert fresh.snapshot().connectors() == ["before", "during"]
