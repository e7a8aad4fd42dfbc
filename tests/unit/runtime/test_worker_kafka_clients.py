"""Client settings (Kafka Connect's defaults, worker and connector layers, override policy, Java keys,
internal clients) and the admin calls' errors and retries."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any, cast

import pytest
from confluent_kafka import KafkaError, KafkaException

from connect.api.errors import ConfigError, ConnectError, RetriableError
from connect.api.records import TopicPartition
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import KafkaAdmin, KafkaClients, TopicSpec, confirms_runs, offset_lookup
from connect.runtime.kafka.client_config import override_violations, sink_group_id, to_librdkafka
from connect.runtime.kafka.gapless import ExperimentalWarningFilter

TASK = ConnectorTaskId("orders", 2)


def clients(policy: str = "All", **layers: dict[str, str]) -> KafkaClients:
    return KafkaClients(
        producer_props={"bootstrap.servers": "b:9092", **layers.get("producer", {})},
        consumer_props={"bootstrap.servers": "b:9092", **layers.get("consumer", {})},
        admin_props={"bootstrap.servers": "b:9092"},
        override_policy=policy,
    )


def test_producer_defaults_are_kafka_connects() -> None:
    config = clients().producer_config("connector-producer-orders-2", {})
    assert config == {
        "bootstrap.servers": "b:9092",
        "acks": "all",
        "max.in.flight.requests.per.connection": "1",
        "enable.idempotence": "false",
        "message.timeout.ms": "2147483647",
        "linger.ms": "5",
        "client.id": "connector-producer-orders-2",
    }


def test_worker_settings_override_defaults_and_connector_overrides_win() -> None:
    factory = clients(producer={"linger.ms": "50", "acks": "1"})
    config = factory.producer_config("p", {"producer.override.acks": "0", "consumer.override.x": "y"})
    assert (config["linger.ms"], config["acks"]) == ("50", "0")
    assert "x" not in config


def test_a_gap_less_source_producer_is_idempotent_unless_the_user_decided_otherwise() -> None:
    gapless = clients().source_producer_config(TASK, {}, gapless=True)
    assert gapless["enable.idempotence"] == "true" and gapless["enable.gapless.guarantee"] == "true"
    assert gapless["client.id"] == "connector-producer-orders-2" and confirms_runs(gapless)
    assert not confirms_runs(clients().source_producer_config(TASK, {}))  # Kafka Connect's default: not idempotent

    # The user's word on idempotence, at either layer, stands; so do settings idempotence cannot work with.
    refused = [
        clients(producer={"enable.idempotence": "false"}).source_producer_config(TASK, {}, gapless=True),
        clients().source_producer_config(TASK, {"producer.override.enable.idempotence": "true"}, gapless=True),
        clients().source_producer_config(TASK, {"producer.override.acks": "1"}, gapless=True),
        clients(producer={"max.in.flight.requests.per.connection": "6"}).source_producer_config(TASK, {}, gapless=True),
    ]
    assert [config.get("enable.gapless.guarantee") for config in refused] == [None] * 4
    assert not any(confirms_runs(config) for config in refused)

    # Records that may time out may leave a gap the guarantee does not cover: the producer is gap-less, but its
    # acknowledgement of a record no longer vouches for the ones before it.
    timing_out = clients().source_producer_config(
        TASK, {"producer.override.delivery.timeout.ms": "120000"}, gapless=True
    )
    assert timing_out["enable.gapless.guarantee"] == "true" and not confirms_runs(timing_out)
    never = clients().source_producer_config(TASK, {"producer.override.delivery.timeout.ms": "0"}, gapless=True)
    assert confirms_runs(never)


def test_consumer_defaults_and_group() -> None:
    config = clients().consumer_config(TASK, {})
    assert config["group.id"] == "connect-orders"
    assert config["client.id"] == "connector-consumer-orders-2"
    assert config["enable.auto.commit"] == "false"
    assert config["auto.offset.reset"] == "earliest"
    overridden = clients().consumer_config(TASK, {"consumer.override.group.id": "mine"})
    assert overridden["group.id"] == "mine"
    assert sink_group_id("orders", {"consumer.override.group.id": "mine"}) == "mine"
    assert sink_group_id("orders", {}) == "connect-orders"


def test_sink_consumers_fetch_again_soon_after_their_prefetch_queue_drains() -> None:
    # librdkafka's default (1000 ms) left a sink that reads faster than one fetch per second idle.
    assert clients().consumer_config(TASK, {})["fetch.queue.backoff.ms"] == "10"
    worker_layer = clients(consumer={"fetch.queue.backoff.ms": "100"}).consumer_config(TASK, {})
    assert worker_layer["fetch.queue.backoff.ms"] == "100"
    connector_layer = clients().consumer_config(TASK, {"consumer.override.fetch.queue.backoff.ms": "50"})
    assert connector_layer["fetch.queue.backoff.ms"] == "50"


def test_sink_consumers_look_for_a_topic_missing_from_the_metadata_again_within_ten_seconds() -> None:
    # librdkafka's default (5 minutes) kept a sink out of its group that long after a broker restart.
    config = to_librdkafka(clients().consumer_config(TASK, {}), "consumer")
    assert config["topic.metadata.refresh.interval.ms"] == "10000"
    override = {"consumer.override.topic.metadata.refresh.interval.ms": "60000"}
    assert clients().consumer_config(TASK, override)["topic.metadata.refresh.interval.ms"] == "60000"


def test_java_only_settings_are_dropped_and_renamed_ones_translated() -> None:
    translated = to_librdkafka(
        {
            "key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
            "max.block.ms": "9223372036854775807",
            "delivery.timeout.ms": "120000",
            "send.buffer.bytes": "131072",
            "max.request.size": "2097152",
            "linger.ms": "10",
        },
        "producer",
    )
    assert translated == {
        "message.timeout.ms": "120000",
        "socket.send.buffer.bytes": "131072",
        "message.max.bytes": "2097152",
        "linger.ms": "10",
    }


def test_jaas_credentials_become_librdkafka_settings() -> None:
    jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="s3 cr\\"t";'
    assert to_librdkafka({"sasl.jaas.config": jaas, "sasl.mechanism": "PLAIN"}, "producer") == {
        "sasl.username": "alice",
        "sasl.password": 's3 cr\\"t',
        "sasl.mechanism": "PLAIN",
    }


def test_override_policy() -> None:
    config = {"producer.override.linger.ms": "1", "consumer.override.security.protocol": "SSL", "name": "x"}
    assert override_violations("All", config) == []
    assert override_violations("None", config) == ["producer.override.linger.ms", "consumer.override.security.protocol"]
    assert override_violations("Principal", config) == ["producer.override.linger.ms"]
    with pytest.raises(ConfigError, match=r"producer\.override\.linger\.ms"):
        clients("None").producer_config("p", config)


# -- internal clients ----------------------------------------------------------------------------

WORKER_PROPS = {
    "key.converter": "StringConverter",
    "value.converter": "StringConverter",
    "bootstrap.servers": "b1:9092, b2:9092",
    "security.protocol": "SASL_SSL",
    "sasl.mechanism": "PLAIN",
    "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="w" password="p";',
    "ssl.ca.location": "/etc/kafka/ca.pem",
    "client.dns.lookup": "use_all_dns_ips",
    "producer.acks": "1",
    "producer.bootstrap.servers": "connector-cluster:9092",
    "consumer.security.protocol": "PLAINTEXT",
    "consumer.max.poll.records": "50",
    "admin.client.id": "connector-admin",
    "offset.flush.interval.ms": "1000",
}


def test_internal_clients_connect_with_the_workers_top_level_settings_not_the_connector_ones() -> None:
    factory = KafkaClients.from_worker_config(WorkerConfig.from_props(WORKER_PROPS))
    connection = {
        "bootstrap.servers": "b1:9092,b2:9092",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "sasl.username": "w",
        "sasl.password": "p",
        "ssl.ca.location": "/etc/kafka/ca.pem",
        "client.dns.lookup": "use_all_dns_ips",
    }
    assert factory.internal_config("consumer", "kconnect-config-log-reader", {"group.id": "g"}) == {
        **connection,
        "client.id": "kconnect-config-log-reader",
        "group.id": "g",
    }
    assert factory.internal_config("producer", "p", {"acks": "all"}) == {**connection, "client.id": "p", "acks": "all"}
    assert factory.internal_config("admin", "a") == {**connection, "client.id": "a"}
    # Connector clients keep using producer.* / consumer.* (plus bootstrap.servers), as before.
    assert factory.producer_config("c", {})["bootstrap.servers"] == "connector-cluster:9092"
    assert factory.consumer_config(TASK, {})["security.protocol"] == "PLAINTEXT"


def test_without_worker_settings_internal_clients_connect_as_the_consumers_do() -> None:
    factory = clients(consumer={"security.protocol": "SSL", "fetch.min.bytes": "1"})
    assert factory.internal_config("admin", "a") == {
        "bootstrap.servers": "b:9092",
        "security.protocol": "SSL",
        "client.id": "a",
    }


# -- admin calls ---------------------------------------------------------------------------------


def _pending() -> Future[Any]:
    return Future()


def _failed(code: int) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_exception(KafkaException(KafkaError(code)))
    return future


def _offset(value: int) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_result(SimpleNamespace(offset=value))
    return future


class SilentAdmin:
    """An AdminClient whose requests never get an answer (a broker that stopped responding)."""

    def describe_cluster(self, **kwargs: Any) -> Future[Any]:
        return _pending()

    def describe_topics(self, topics: Any, **kwargs: Any) -> dict[str, Future[Any]]:
        return {name: _pending() for name in topics.topic_names}

    def create_topics(self, topics: list[Any], **kwargs: Any) -> dict[str, Future[Any]]:
        return {topic.topic: _pending() for topic in topics}

    def list_offsets(self, request: dict[Any, Any], **kwargs: Any) -> dict[Any, Future[Any]]:
        return {tp: _pending() for tp in request}

    def list_consumer_group_offsets(self, groups: list[Any], **kwargs: Any) -> dict[str, Future[Any]]:
        return {group.group_id: _pending() for group in groups}

    def alter_consumer_group_offsets(self, groups: list[Any], **kwargs: Any) -> dict[str, Future[Any]]:
        return {group.group_id: _pending() for group in groups}

    def delete_consumer_groups(self, groups: list[str], **kwargs: Any) -> dict[str, Future[Any]]:
        return {group: _pending() for group in groups}

    def list_topics(self, **kwargs: Any) -> Any:
        return SimpleNamespace(topics={}, brokers={})


TP0 = TopicPartition("orders", 0)


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda admin: admin.cluster_id(timeout=0.05), "Could not describe the Kafka cluster"),
        (lambda admin: admin.partition_count("orders", timeout=0.05), "Could not describe topic orders"),
        (lambda admin: admin.create_topics([TopicSpec("orders")], timeout=0.05), "Could not create topic orders"),
        (lambda admin: admin.end_offsets([TP0], timeout=0.05), "Could not list end offsets"),
        (lambda admin: admin.consumer_group_offsets("g", timeout=0.05), "offsets of consumer group g"),
        (lambda admin: admin.alter_consumer_group_offsets("g", {TP0: 1}, timeout=0.05), "offsets of consumer group g"),
        (lambda admin: admin.delete_consumer_group("g", timeout=0.05), "Could not delete consumer group g"),
    ],
)
def test_admin_calls_that_time_out_raise_a_retriable_error_naming_the_call(
    call: Callable[[KafkaAdmin], object], names: str
) -> None:
    with pytest.raises(RetriableError, match=rf"{names}.*timed out"):
        call(KafkaAdmin(cast(Any, SilentAdmin())))


def metadata(leaders: dict[int, int], brokers: dict[int, int]) -> Any:
    """Metadata of topic `orders`: partition → leader id, and broker id → port on 127.0.0.1."""
    partitions = {p: SimpleNamespace(leader=leader) for p, leader in leaders.items()}
    return SimpleNamespace(
        topics={"orders": SimpleNamespace(partitions=partitions)},
        brokers={b: SimpleNamespace(host="127.0.0.1", port=port) for b, port in brokers.items()},
    )


@pytest.fixture(autouse=True)
def leaders_up(monkeypatch: pytest.MonkeyPatch) -> set[int]:
    """The ports whose broker the end offsets' TCP probe finds up: 1 to 9 unless a test removes some."""
    up = set(range(1, 10))
    monkeypatch.setattr(offset_lookup, "leader_accepts_connections", lambda address: address[1] in up)
    return up


class RestartedBrokerAdmin(SilentAdmin):
    """ListOffsets fails with `errors` (one per attempt) until a metadata refresh, then answers."""

    def __init__(self, errors: list[int], refresh_fixes: bool = True) -> None:
        self.errors = errors
        self.refresh_fixes = refresh_fixes
        self.refreshed = False
        self.attempts = 0

    def list_offsets(self, request: dict[Any, Any], **kwargs: Any) -> dict[Any, Future[Any]]:
        self.attempts += 1
        if self.errors and not (self.refresh_fixes and self.refreshed):
            code = self.errors.pop(0)
            return {tp: _failed(code) for tp in request}
        return {tp: _offset(7) for tp in request}

    def list_topics(self, **kwargs: Any) -> Any:
        # The first listing is the one every attempt makes first; a refresh is a listing after an attempt.
        self.refreshed = self.attempts > 0
        return metadata({0: 1}, {1: 1})


class MovingLeaderAdmin(SilentAdmin):
    """Two partitions led by brokers 1 and 2; with `moves_at`, partition 1's leadership moves to broker 3
    at that metadata listing. Records what it is asked."""

    def __init__(self, moves_at: int | None = None) -> None:
        self.leaders = {0: 1, 1: 2}
        self.asked: list[list[int]] = []
        self.listings = 0
        self.moves_at = moves_at

    def list_offsets(self, request: dict[Any, Any], **kwargs: Any) -> dict[Any, Future[Any]]:
        self.asked.append(sorted(tp.partition for tp in request))
        return {tp: _offset(10 + tp.partition) for tp in request}

    def list_topics(self, **kwargs: Any) -> Any:
        self.listings += 1
        if self.listings == self.moves_at:
            self.leaders = {0: 1, 1: 3}
        return metadata(self.leaders, {1: 1, 2: 2, 3: 3})


def test_end_offsets_never_ask_a_leader_that_refuses_connections(leaders_up: set[int]) -> None:
    fake = MovingLeaderAdmin()
    leaders_up.discard(2)  # broker 2 refuses: librdkafka would resend its ListOffsets in a busy loop
    with pytest.raises(RetriableError, match=r"timed out .*leaders of 1 partition\(s\) are down"):
        KafkaAdmin(cast(Any, fake)).end_offsets([TP0, TopicPartition("orders", 1)], timeout=0.3)
    assert fake.asked[0] == [0] and all(asked == [] or asked == [0] for asked in fake.asked)
    assert fake.asked.count([0]) == 1, "an answer is kept, not asked again"


def test_end_offsets_ask_a_partition_again_once_its_leadership_moves(leaders_up: set[int]) -> None:
    fake = MovingLeaderAdmin(moves_at=3)  # two attempts find broker 2 down, the third a new leader
    leaders_up.discard(2)
    admin = KafkaAdmin(cast(Any, fake))
    assert admin.end_offsets([TP0, TopicPartition("orders", 1)], timeout=5) == {
        TP0: 10,
        TopicPartition("orders", 1): 11,
    }
    assert fake.asked == [[0], [1]]


def test_end_offsets_refresh_metadata_and_retry_after_a_stale_leader_epoch() -> None:
    fake = RestartedBrokerAdmin([KafkaError.FENCED_LEADER_EPOCH])
    assert KafkaAdmin(cast(Any, fake)).end_offsets([TP0], timeout=5) == {TP0: 7}
    assert fake.refreshed and fake.attempts == 2


def test_end_offsets_retry_while_the_leader_moves_but_not_past_the_deadline() -> None:
    moving = RestartedBrokerAdmin([KafkaError.LEADER_NOT_AVAILABLE, KafkaError.NOT_LEADER_FOR_PARTITION], False)
    assert KafkaAdmin(cast(Any, moving)).end_offsets([TP0], timeout=5) == {TP0: 7}
    assert moving.attempts == 3
    stuck = RestartedBrokerAdmin([KafkaError.NOT_LEADER_FOR_PARTITION] * 1000, refresh_fixes=False)
    started = time.monotonic()
    with pytest.raises(RetriableError, match="Could not list end offsets"):
        KafkaAdmin(cast(Any, stuck)).end_offsets([TP0], timeout=0.5)
    assert 0.5 <= time.monotonic() - started < 2.0
    assert stuck.attempts < 10, "retries back off instead of hammering the broker"


def test_end_offsets_give_up_at_once_on_errors_no_retry_mends() -> None:
    denied = RestartedBrokerAdmin([KafkaError.TOPIC_AUTHORIZATION_FAILED], refresh_fixes=False)
    with pytest.raises(ConnectError, match=r"Could not list end offsets: .*uthoriz") as raised:
        KafkaAdmin(cast(Any, denied)).end_offsets([TP0], timeout=30)
    assert not isinstance(raised.value, RetriableError)
    assert denied.attempts == 1


def test_librdkafkas_warning_that_the_gap_less_guarantee_is_experimental_is_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, "connect.runtime.kafka.librdkafka")
    producer = clients(producer={"bootstrap.servers": "127.0.0.1:9"}).producer(TASK, {}, gapless=True)
    producer.poll(0.2)
    librdkafka_lines = [r.getMessage() for r in caplog.records if r.name == "connect.runtime.kafka.librdkafka"]
    assert not any("enable.gapless.guarantee" in line for line in librdkafka_lines)
    other = logging.LogRecord(
        "connect.runtime.kafka.librdkafka", logging.WARNING, "", 0, "CONFWARN [p] linger", (), None
    )
    assert ExperimentalWarningFilter().filter(other)  # the filter keeps librdkafka's other warnings
