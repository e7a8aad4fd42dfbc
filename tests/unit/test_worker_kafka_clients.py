"""Client settings: Kafka Connect's defaults, worker and connector layers, override policy, Java keys."""

from __future__ import annotations

import pytest

from connect.api.errors import ConfigError
from connect.runtime.kafka_client_config import override_violations, sink_group_id, to_librdkafka
from connect.runtime.kafka_clients import KafkaClients
from connect.runtime.states import ConnectorTaskId

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
