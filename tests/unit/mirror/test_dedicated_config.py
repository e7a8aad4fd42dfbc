"""A `connect-mirror-maker` file means here what it means to Java's MirrorMakerConfig: which flows run, and the
worker and connector configs of each."""

from __future__ import annotations

import pytest

from connect.api.errors import ConfigError
from connect.mirror.dedicated_config import Flow, MirrorMakerConfig

MM2 = {
    "clusters": "A, B",
    "A.bootstrap.servers": "a:9092",
    "B.bootstrap.servers": "b:9092",
    "B.security.protocol": "SSL",
    "B.offset.flush.interval.ms": "5000",
    "A.consumer.isolation.level": "read_committed",
    "ssl.truststore.location": "/trust.p12",
    "A->B.enabled": "true",
    "A->B.topics": "orders.*",
    "replication.factor": "1",
    "tasks.max": "4",
    "use.defaults.from": "source",  # not declared by the connectors: dropped, as in Java
    "offset.storage.replication.factor": "1",
}


def test_an_enabled_flow_also_runs_its_reverse_for_heartbeats_unless_they_are_off() -> None:
    assert MirrorMakerConfig(MM2).flows() == [Flow("A", "B"), Flow("B", "A")]
    assert MirrorMakerConfig({**MM2, "emit.heartbeats.enabled": "false"}).flows() == [Flow("A", "B")]
    assert MirrorMakerConfig({**MM2, "B->A.emit.heartbeats.enabled": "false"}).flows() == [Flow("A", "B")]
    assert MirrorMakerConfig(MM2).flows(targets=["A"]) == [Flow("B", "A")]
    with pytest.raises(ConfigError, match="No flow into C"):
        MirrorMakerConfig(MM2).flows(targets=["C"])
    with pytest.raises(ConfigError, match="clusters"):
        MirrorMakerConfig({})


def test_a_flows_worker_lives_on_the_target_with_mirrormakers_defaults() -> None:
    worker = MirrorMakerConfig(MM2).worker_config(Flow("A", "B"))
    assert worker["bootstrap.servers"] == "b:9092"
    assert worker["security.protocol"] == "SSL"
    assert worker["offset.flush.interval.ms"] == "5000"
    assert worker["producer.bootstrap.servers"] == "b:9092"
    assert worker["ssl.truststore.location"] == "/trust.p12"  # a top-level connection key fills the gap
    assert worker["group.id"] == "A-mm2"
    assert worker["config.storage.topic"] == "mm2-configs.A.internal"
    assert worker["offset.storage.topic"] == "mm2-offsets.A.internal"
    assert worker["status.storage.topic"] == "mm2-status.A.internal"
    assert worker["offset.storage.replication.factor"] == "1"
    assert worker["client.id"] == "A->B"
    assert worker["value.converter"] == "org.apache.kafka.connect.converters.ByteArrayConverter"


def test_a_flows_connector_config_names_both_clusters_and_takes_the_flows_overrides() -> None:
    config = MirrorMakerConfig(MM2).connector_config(Flow("A", "B"), "MirrorSourceConnector")
    assert config["name"] == "MirrorSourceConnector"
    assert config["connector.class"] == "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    assert (config["source.cluster.alias"], config["target.cluster.alias"]) == ("A", "B")
    assert config["source.cluster.bootstrap.servers"] == "a:9092"
    assert config["source.consumer.isolation.level"] == "read_committed"
    assert config["target.cluster.security.protocol"] == "SSL"
    assert (config["topics"], config["enabled"], config["tasks.max"]) == ("orders.*", "true", "4")
    assert config["replication.factor"] == "1"
    assert "use.defaults.from" not in config
    reverse = MirrorMakerConfig(MM2).connector_config(Flow("B", "A"), "MirrorSourceConnector")
    assert reverse["enabled"] == "false"
