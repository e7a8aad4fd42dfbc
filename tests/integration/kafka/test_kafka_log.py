"""KafkaLog and internal topic verification against a real broker."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Sequence

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import ConfigResource
from confluent_kafka.admin._resource import ResourceType

from connect.api.errors import ConfigError, ConnectError
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.kafka import KafkaClients, TopicSpec
from connect.runtime.kafka.internal_topics import InternalTopicSpec, ensure_internal_topics
from connect.runtime.stores import key_partition, murmur2
from connect.runtime.stores.kafka_log import KafkaLog
from tests.fixtures.kafka import TopicFactory
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

Record = tuple[bytes | None, bytes | None, int, int]


class Recorder:
    """An on_record callback that keeps what it was given (called on the reader thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[Record] = []

    def __call__(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> None:
        with self._lock:
            self._records.append((key, value, partition, offset))

    @property
    def records(self) -> list[Record]:
        with self._lock:
            return list(self._records)

    def keys(self) -> list[bytes | None]:
        return [r[0] for r in self.records]


@pytest.fixture
def clients(kafka_bootstrap: str) -> KafkaClients:
    props = {"bootstrap.servers": kafka_bootstrap}
    return KafkaClients(producer_props=props, consumer_props=props, admin_props=props)


@pytest.fixture
def logs(clients: KafkaClients) -> Iterator[Callable[..., KafkaLog]]:
    """`logs(topic, on_record)`: started KafkaLogs, stopped at the end of the test."""
    started: list[KafkaLog] = []

    def start(topic: str, on_record: Recorder, name: str = "test") -> KafkaLog:
        log = KafkaLog(topic, clients, on_record=on_record, name=name)
        log.start(30)
        started.append(log)
        return log

    yield start
    for log in started:
        log.stop()


def produce(bootstrap: str, topic: str, records: Sequence[tuple[bytes, bytes | None]]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random"})
    for key, value in records:
        producer.produce(topic, value=value, key=key)
    assert producer.flush(30) == 0


def test_start_hands_over_every_existing_record_in_order_per_partition(
    kafka_bootstrap: str, topic_factory: TopicFactory, logs: Callable[..., KafkaLog]
) -> None:
    topic = topic_factory(partitions=3, config={"cleanup.policy": "compact"})
    written = [(f"key-{i % 7}".encode(), f"value-{i}".encode()) for i in range(60)]
    produce(kafka_bootstrap, topic, written)

    recorder = Recorder()
    logs(topic, recorder)

    records = recorder.records  # complete as soon as start returned
    assert sorted(r[1] for r in records if r[1] is not None) == sorted(v for _, v in written if v is not None)
    for partition in range(3):
        offsets = [r[3] for r in records if r[2] == partition]
        assert offsets == sorted(offsets)


def test_send_confirms_the_partition_and_offset_java_would_choose(
    topic_factory: TopicFactory, logs: Callable[..., KafkaLog]
) -> None:
    topic = topic_factory(partitions=25, config={"cleanup.policy": "compact"})
    recorder = Recorder()
    log = logs(topic, recorder)

    keys = [f'["source-{i}",{{"file":"f{i}.txt"}}]'.encode() for i in range(40)]
    acks = [log.send(key, b'{"position":1}').result(timeout=30) for key in keys]

    assert [partition for partition, _ in acks] == [key_partition(key, 25) for key in keys]
    log.read_to_end(30)
    seen = {(r[2], r[3]): r[0] for r in recorder.records}
    assert all(seen[ack] == key for ack, key in zip(acks, keys, strict=True))


def test_murmur2_matches_kafkas_reference_values() -> None:
    # From Kafka's UtilsTest.testMurmur2.
    assert murmur2(b"21") == -973932308
    assert murmur2(b"foobar") == -790332482
    assert murmur2(b"a-little-bit-long-string") == -985981536
    assert murmur2(b"a-little-bit-longer-string") == -1486304829
    assert murmur2(b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8") == -58897971
    assert murmur2(b"abc") == 479470107


def test_read_to_end_sees_what_another_writer_acknowledged(
    topic_factory: TopicFactory, logs: Callable[..., KafkaLog]
) -> None:
    topic = topic_factory(partitions=5, config={"cleanup.policy": "compact"})
    writer = logs(topic, Recorder(), "writer")
    reader_records = Recorder()
    reader = logs(topic, reader_records, "reader")

    for round_ in range(5):
        futures = [writer.send(f"k{i}".encode(), f"{round_}".encode()) for i in range(20)]
        for future in futures:
            future.result(timeout=30)
        reader.read_to_end(30)
        latest = {r[0]: r[1] for r in reader_records.records}
        assert all(latest[f"k{i}".encode()] == f"{round_}".encode() for i in range(20)), f"round {round_}"


def test_read_to_end_includes_own_writes_not_yet_acknowledged(
    topic_factory: TopicFactory, logs: Callable[..., KafkaLog]
) -> None:
    topic = topic_factory(partitions=5, config={"cleanup.policy": "compact"})
    recorder = Recorder()
    log = logs(topic, recorder)

    for i in range(50):
        log.send(f"k{i}".encode(), b"v")  # futures not awaited
    log.read_to_end(30)

    assert {f"k{i}".encode() for i in range(50)} <= set(recorder.keys())


def test_reader_follows_new_records_without_being_asked(
    topic_factory: TopicFactory, logs: Callable[..., KafkaLog]
) -> None:
    topic = topic_factory(partitions=1, config={"cleanup.policy": "compact"})
    writer = logs(topic, Recorder(), "writer")
    follower = Recorder()
    logs(topic, follower, "follower")

    offset = writer.send(b"late", b"news").result(timeout=30)[1]

    wait_until(lambda: (b"late", b"news", 0, offset) in follower.records, 15, "the follower to see the new record")


def test_tombstones_reach_on_record_as_none(topic_factory: TopicFactory, logs: Callable[..., KafkaLog]) -> None:
    topic = topic_factory(partitions=1, config={"cleanup.policy": "compact"})
    recorder = Recorder()
    log = logs(topic, recorder)

    log.send(b"k", b"v").result(timeout=30)
    partition, offset = log.send(b"k", None).result(timeout=30)
    log.wait_until_read(partition, offset, 30)

    assert recorder.records[-1] == (b"k", None, partition, offset)


def test_only_committed_transactional_records_are_read_and_markers_do_not_block_the_barrier(
    kafka_bootstrap: str, topic_factory: TopicFactory, logs: Callable[..., KafkaLog]
) -> None:
    topic = topic_factory(partitions=1, config={"cleanup.policy": "compact"})
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "transactional.id": f"test-{uuid.uuid4().hex}"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(topic, key=b"committed", value=b"1")
    producer.commit_transaction(30)
    producer.begin_transaction()
    producer.produce(topic, key=b"aborted", value=b"1")
    # On the broker before the abort, so the log really holds an aborted record and its marker (an abort
    # of a record still queued could purge it unsent; under load one raced with INVALID_TXN_STATE).
    assert producer.flush(30) == 0
    producer.abort_transaction(30)

    recorder = Recorder()
    log = logs(topic, recorder)  # the log ends with an abort marker: start must still return
    log.read_to_end(10)

    assert recorder.keys() == [b"committed"]


def test_stopped_log_refuses_writes(topic_factory: TopicFactory, clients: KafkaClients) -> None:
    topic = topic_factory(partitions=1, config={"cleanup.policy": "compact"})
    log = KafkaLog(topic, clients, on_record=Recorder(), name="test")
    log.start(30)
    log.stop()

    with pytest.raises(ConnectError):
        log.send(b"k", b"v")


def test_logs_connect_with_the_workers_top_level_settings_not_the_connector_clients_ones(kafka_bootstrap: str) -> None:
    nowhere = "127.0.0.1:1"  # nothing listens there: a client using these settings never connects
    config = WorkerConfig.from_props(
        {
            "bootstrap.servers": kafka_bootstrap,
            "key.converter": "StringConverter",
            "value.converter": "StringConverter",
            "producer.bootstrap.servers": nowhere,
            "consumer.bootstrap.servers": nowhere,
            "admin.bootstrap.servers": nowhere,
        }
    )
    clients = KafkaClients.from_worker_config(config)
    name = f"internal-{uuid.uuid4().hex[:8]}"
    assert ensure_internal_topics(clients, [InternalTopicSpec(name, 1, 1)], timeout=15) == {name}
    recorder = Recorder()
    log = KafkaLog(name, clients, on_record=recorder, name="settings")
    log.start(15)
    try:
        assert log.send(b"k", b"v").result(timeout=15) == (0, 0)
        log.read_to_end(15)
        assert recorder.keys() == [b"k"]
    finally:
        log.stop()
        AdminClient({"bootstrap.servers": kafka_bootstrap}).delete_topics([name])


def test_an_internal_topic_with_more_replicas_than_brokers_says_how_many_brokers_there_are(
    clients: KafkaClients,
) -> None:
    spec = InternalTopicSpec(f"internal-{uuid.uuid4().hex[:8]}", 1, 3, setting="config.storage.topic")

    # One broker (the session's): a worker started before the others registered would see the same.
    with pytest.raises(ConfigError) as refused:
        ensure_internal_topics(clients, [spec], timeout=15)

    message = str(refused.value)
    assert "replication factor 3" in message and "1 broker(s) registered now" in message
    assert "config.storage.replication.factor" in message and "still starting" in message


def test_start_fails_clearly_for_a_missing_topic(clients: KafkaClients) -> None:
    log = KafkaLog(f"missing-{uuid.uuid4().hex}", clients, on_record=Recorder(), name="test")

    with pytest.raises(ConnectError, match="not available"):
        log.start(2)


# -- internal topics ---------------------------------------------------------------------------


def topic_description(admin: AdminClient, topic: str) -> tuple[int, str]:
    partitions = len(admin.list_topics(topic=topic, timeout=10).topics[topic].partitions)
    resource = ConfigResource(ResourceType.TOPIC, topic)
    policy = admin.describe_configs([resource])[resource].result(timeout=10)["cleanup.policy"].value
    return partitions, str(policy)


def test_missing_internal_topics_are_created_compacted(clients: KafkaClients, kafka_admin: AdminClient) -> None:
    suffix = uuid.uuid4().hex[:8]
    specs: list[InternalTopicSpec | TopicSpec] = [
        InternalTopicSpec(f"configs-{suffix}", 1, 1, "config.storage.topic"),
        InternalTopicSpec(f"offsets-{suffix}", 25, 1, "offset.storage.topic", {"segment.ms": "600000"}),
        TopicSpec(f"status-{suffix}", 5, 1),
    ]
    try:
        created = ensure_internal_topics(clients, specs)

        assert created == {f"configs-{suffix}", f"offsets-{suffix}", f"status-{suffix}"}
        assert topic_description(kafka_admin, f"configs-{suffix}") == (1, "compact")
        assert topic_description(kafka_admin, f"offsets-{suffix}") == (25, "compact")
        assert topic_description(kafka_admin, f"status-{suffix}") == (5, "compact")
        assert ensure_internal_topics(clients, specs) == set(), "a second worker finds them in place"
    finally:
        kafka_admin.delete_topics([s.name for s in specs])


def test_existing_topic_with_delete_policy_is_refused_with_the_fix(
    clients: KafkaClients, topic_factory: TopicFactory
) -> None:
    topic = topic_factory(partitions=1, config={"cleanup.policy": "delete"})

    with pytest.raises(ConfigError) as error:
        ensure_internal_topics(clients, [InternalTopicSpec(topic, 1, 1, "config.storage.topic")])

    message = str(error.value)
    assert topic in message
    assert "config.storage.topic" in message
    assert "cleanup.policy=delete" in message
    assert "--add-config cleanup.policy=compact" in message


def test_compact_and_delete_policy_is_refused(clients: KafkaClients, topic_factory: TopicFactory) -> None:
    topic = topic_factory(partitions=5, config={"cleanup.policy": "compact,delete"})

    with pytest.raises(ConfigError, match=r"cleanup\.policy=compact,delete"):
        ensure_internal_topics(clients, [InternalTopicSpec(topic, 5, 1, "status.storage.topic")])


def test_existing_topic_with_another_partition_count_is_refused(
    clients: KafkaClients, topic_factory: TopicFactory
) -> None:
    config_topic = topic_factory(partitions=3, config={"cleanup.policy": "compact"})
    offsets_topic = topic_factory(partitions=10, config={"cleanup.policy": "compact"})

    with pytest.raises(ConfigError, match="has 3 partitions, but kconnect needs exactly 1") as error:
        ensure_internal_topics(clients, [InternalTopicSpec(config_topic, 1, 1, "config.storage.topic")])
    assert config_topic in str(error.value)

    with pytest.raises(ConfigError, match=r"offset\.storage\.partitions=10"):
        ensure_internal_topics(clients, [InternalTopicSpec(offsets_topic, 25, 1, "offset.storage.topic")])


def test_replication_factor_above_the_broker_count_names_the_setting(clients: KafkaClients) -> None:
    spec = InternalTopicSpec(f"configs-{uuid.uuid4().hex[:8]}", 1, 50, "config.storage.topic")

    with pytest.raises(ConfigError, match=r"config\.storage\.replication\.factor"):
        ensure_internal_topics(clients, [spec])
