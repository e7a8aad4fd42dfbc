"""WorkerConfig: Kafka Connect's worker keys and defaults, client and converter sub-configs."""

from __future__ import annotations

import logging
import os

import pytest

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import WorkerConfig
from workers.distributed.distributed_config import distributed_config_def

BASE = {"key.converter": "StringConverter", "value.converter": "JsonConverter"}


def test_kafka_connects_defaults() -> None:
    config = WorkerConfig.from_props(BASE)
    assert config.bootstrap_servers == "localhost:9092"
    assert config.header_converter == "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    assert config.offset_flush_interval_ms == 60000
    assert config.offset_flush_timeout_ms == 5000
    assert config.task_shutdown_graceful_timeout_ms == 5000
    assert config.listeners == ["http://:8083"]
    assert config.client_config_override_policy == "All"
    assert config.topic_tracking_enable and config.topic_tracking_allow_reset
    assert config.plugin_discovery == "hybrid_warn"
    assert config.offset_storage_file is None


@pytest.mark.parametrize("missing", ["key.converter", "value.converter"])
def test_converters_are_required(missing: str) -> None:
    props = {k: v for k, v in BASE.items() if k != missing}
    with pytest.raises(ConfigError, match=missing):
        WorkerConfig.from_props(props)


def test_bad_values_are_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"offset\.flush\.interval\.ms"):
        WorkerConfig.from_props({**BASE, "offset.flush.interval.ms": "soon"})
    with pytest.raises(ConfigError, match=r"connector\.client\.config\.override\.policy"):
        WorkerConfig.from_props({**BASE, "connector.client.config.override.policy": "Some"})


def test_task_processes_default_to_one_per_core_and_take_a_limit() -> None:
    assert WorkerConfig.from_props(BASE).task_isolation == "thread"
    assert WorkerConfig.from_props(BASE).task_processes_max == (os.cpu_count() or 1)
    assert WorkerConfig.from_props({**BASE, "task.processes.max": "3"}).task_processes_max == 3
    with pytest.raises(ConfigError, match=r"task\.processes\.max"):
        WorkerConfig.from_props({**BASE, "task.processes.max": "-1"})


def test_client_props_carry_bootstrap_servers_and_their_prefix() -> None:
    config = WorkerConfig.from_props(
        {
            **BASE,
            "bootstrap.servers": "a:9092, b:9092",
            "producer.linger.ms": "20",
            "consumer.max.poll.records": "100",
            "admin.request.timeout.ms": "3000",
        }
    )
    assert config.producer_props() == {"bootstrap.servers": "a:9092,b:9092", "linger.ms": "20"}
    assert config.consumer_props() == {"bootstrap.servers": "a:9092,b:9092", "max.poll.records": "100"}
    assert config.admin_props() == {"bootstrap.servers": "a:9092,b:9092", "request.timeout.ms": "3000"}


def test_a_prefixed_bootstrap_servers_wins_for_that_client() -> None:
    config = WorkerConfig.from_props({**BASE, "producer.bootstrap.servers": "other:9092"})
    assert config.producer_props()["bootstrap.servers"] == "other:9092"


def test_converter_sub_configs() -> None:
    config = WorkerConfig.from_props({**BASE, "value.converter.schemas.enable": "false"})
    assert config.converter_props("value.converter") == {"schemas.enable": "false"}
    assert config.converter_props("key.converter") == {}


def test_unknown_keys_are_kept_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        config = WorkerConfig.from_props({**BASE, "my.plugin.setting": "1", "producer.acks": "1"})
    assert config.get("my.plugin.setting") == "1"
    assert "my.plugin.setting" in caplog.text and "producer.acks" not in caplog.text


def test_distributed_keys_are_accepted() -> None:
    config = WorkerConfig.from_props(
        {**BASE, "group.id": "connect-cluster", "config.storage.topic": "c", "offset.storage.partitions": "50"}
    )
    assert config.group_id == "connect-cluster"
    assert config.get("offset.storage.partitions") == 50


def test_worker_id_is_the_advertised_host_and_port() -> None:
    config = WorkerConfig.from_props({**BASE, "listeners": "http://0.0.0.0:18083", "rest.advertised.host.name": "w1"})
    assert config.worker_id() == "w1:18083"
    assert config.advertised_url() == "http://w1:18083/"
    advertised = WorkerConfig.from_props({**BASE, "rest.advertised.port": "9999", "rest.advertised.host.name": "h"})
    assert advertised.worker_id() == "h:9999"


def test_distributed_and_client_connection_keys_are_not_reported_unknown(caplog: pytest.LogCaptureFixture) -> None:
    known = {
        "group.id": "g",
        "slots.storage.topic": "g-slots",
        "slots.storage.partitions": "16",
        "slots.storage.replication.factor": "1",
        "task.balance.delay.ms": "500",
        "client.dns.lookup": "use_all_dns_ips",
        "security.protocol": "sasl_ssl",
        "ssl.ca.location": "/etc/ca.pem",
        "sasl.mechanism": "PLAIN",
        "retry.backoff.ms": "200",
    }
    with caplog.at_level(logging.WARNING):
        config = WorkerConfig.from_props({**BASE, **known, "my.plugin.setting": "1"}, distributed_config_def())
    assert "my.plugin.setting" in caplog.text
    assert not [key for key in known if key in caplog.text]
    assert config.get("slots.storage.partitions") == 16 and config.get("task.balance.delay.ms") == 500
    assert config.originals["security.protocol"] == "sasl_ssl", "clients get the value as given"


def test_client_connection_keys_keep_kafkas_defaults_and_are_checked() -> None:
    config = WorkerConfig.from_props(BASE, distributed_config_def())
    assert (config.get("client.dns.lookup"), config.get("security.protocol")) == ("use_all_dns_ips", "PLAINTEXT")
    assert config.get("slots.storage.partitions") == 64 and config.get("task.balance.delay.ms") == 2000
    with pytest.raises(ConfigError, match=r"security\.protocol"):
        WorkerConfig.from_props({**BASE, "security.protocol": "TLS"})
