"""Distributed worker settings: required keys, kconnect's slot keys, and the KCONNECT_* environment scheme."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect.api.errors import ConfigError
from workers.common import env
from workers.distributed.settings import DistributedSettings

BASE = {
    "bootstrap.servers": "127.0.0.1:9092",
    "group.id": "cluster-a",
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "config.storage.topic": "a-configs",
    "offset.storage.topic": "a-offsets",
    "status.storage.topic": "a-status",
}


@pytest.mark.parametrize(
    ("key", "variable"),
    [
        ("bootstrap.servers", "KCONNECT_BOOTSTRAP_SERVERS"),
        ("group.id", "KCONNECT_GROUP_ID"),
        ("producer.linger.ms", "KCONNECT_PRODUCER_LINGER_MS"),
        ("my_plugin.key", "KCONNECT_MY__PLUGIN_KEY"),
        ("my-plugin.key", "KCONNECT_MY___PLUGIN_KEY"),
        ("a_b-c.d", "KCONNECT_A__B___C_D"),
    ],
)
def test_keys_and_variables_map_both_ways(key: str, variable: str) -> None:
    assert env.env_name(key) == variable
    assert env.key_of(variable) == key


def test_runs_longer_than_three_read_three_at_a_time() -> None:
    assert env.key_of("KCONNECT_A____B") == "a-.b"
    assert env.key_of("KCONNECT_A______B") == "a--b"


@pytest.mark.parametrize(
    "variable", ["KCONNECT_CACHE_DIR", "KCONNECT_KAFKA_VERSION", "KCONNECT_", "KCONNECT__X", "OTHER_GROUP_ID"]
)
def test_variables_that_are_not_worker_keys_are_ignored(variable: str) -> None:
    assert env.key_of(variable) is None


def test_the_environment_overrides_the_file(tmp_path: Path) -> None:
    path = tmp_path / "worker.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in BASE.items()) + "listeners=http://:8083\n")

    settings = DistributedSettings.load(
        path,
        {
            "KCONNECT_GROUP_ID": "from-env",
            "KCONNECT_SESSION_TIMEOUT_MS": "3000",
            "KCONNECT_HEARTBEAT_INTERVAL_MS": "500",
            "KCONNECT_CACHE_DIR": "/somewhere",
            "HOME": "/root",
        },
    )

    assert settings.group_id == "from-env"
    assert settings.session_timeout_ms == 3000
    assert settings.heartbeat_interval_ms == 500
    assert settings.worker.listeners == ["http://:8083"]
    assert settings.from_env == ("group.id", "heartbeat.interval.ms", "session.timeout.ms")


def test_a_worker_can_be_configured_by_the_environment_alone() -> None:
    settings = DistributedSettings.load(None, {env.env_name(k): v for k, v in BASE.items()})

    assert settings.config_topic.name == "a-configs"
    assert settings.worker.bootstrap_servers == "127.0.0.1:9092"


def test_defaults_follow_kafka_connect_and_the_slots_design() -> None:
    settings = DistributedSettings.from_props(BASE)

    assert (settings.config_topic.partitions, settings.config_topic.replication_factor) == (1, 3)
    assert (settings.offset_topic.partitions, settings.status_topic.partitions) == (25, 5)
    assert settings.slots_topic.name == "cluster-a-slots"
    assert (settings.slots_topic.partitions, settings.slots_topic.replication_factor) == (64, 3)
    assert (settings.session_timeout_ms, settings.heartbeat_interval_ms) == (10000, 3000)
    assert settings.membership_group == "cluster-a"
    assert settings.transactional_id("orders", 2) == "cluster-a-orders-2"
    assert not settings.exactly_once_enabled


def test_slot_keys_are_read() -> None:
    settings = DistributedSettings.from_props(
        {
            **BASE,
            "config.storage.replication.factor": "1",
            "slots.storage.topic": "my-slots",
            "slots.storage.partitions": "16",
            "task.balance.delay.ms": "250",
        }
    )

    assert (settings.slots_topic.name, settings.slots_topic.partitions) == ("my-slots", 16)
    assert settings.slots_topic.replication_factor == 1
    assert settings.balance_delay_ms == 250


@pytest.mark.parametrize(
    "missing", ["group.id", "config.storage.topic", "offset.storage.topic", "status.storage.topic"]
)
def test_kafka_connects_required_keys_are_required(missing: str) -> None:
    props = {k: v for k, v in BASE.items() if k != missing}
    with pytest.raises(ConfigError, match=f'"{missing}"'):
        DistributedSettings.from_props(props)


def test_a_heartbeat_as_long_as_the_session_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"heartbeat\.interval\.ms"):
        DistributedSettings.from_props({**BASE, "session.timeout.ms": "3000", "heartbeat.interval.ms": "3000"})


def test_the_internal_topics_must_differ() -> None:
    with pytest.raises(ConfigError, match="four different topics"):
        DistributedSettings.from_props({**BASE, "status.storage.topic": "a-offsets"})
