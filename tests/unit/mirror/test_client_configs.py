"""A mirror connector's clients connect to the right cluster with the right layers of settings, and say
whose they are in their client id (Java's `MirrorConnectorConfig`)."""

from __future__ import annotations

from connect.mirror.client_configs import client_config

PROPS = {
    "name": "mirror-source",
    "source.cluster.alias": "A",
    "target.cluster.alias": "B",
    "source.cluster.bootstrap.servers": "a:9092",
    "source.cluster.security.protocol": "SASL_SSL",
    "source.cluster.sasl.mechanism": "PLAIN",
    "source.cluster.ssl.truststore.location": "/a.p12",
    "source.cluster.offset.flush.interval.ms": "5000",  # not a connection key: not for the clients
    "target.cluster.bootstrap.servers": "b:9092",
    "consumer.max.poll.records": "1000",
    "source.consumer.max.poll.records": "2000",
    "source.consumer.isolation.level": "read_committed",
    "producer.linger.ms": "5",
}


def test_a_source_consumer_takes_the_source_connection_then_consumer_then_source_consumer_keys() -> None:
    config = client_config(PROPS, "source", "consumer", "replication-consumer", task_index=3)
    assert config == {
        "bootstrap.servers": "a:9092",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "ssl.truststore.location": "/a.p12",
        "max.poll.records": "2000",
        "isolation.level": "read_committed",
        "enable.auto.commit": "false",
        "auto.offset.reset": "earliest",
        "client.id": "A->B|mirror-source-3|replication-consumer",
    }


def test_a_target_admin_has_only_the_target_connection_and_the_users_client_id_first() -> None:
    config = client_config({**PROPS, "target.admin.client.id": "ops"}, "target", "admin", "replication-target-admin")
    assert config == {"bootstrap.servers": "b:9092", "client.id": "ops|A->B|mirror-source|replication-target-admin"}


def test_a_consumer_may_start_elsewhere_but_never_commits() -> None:
    props = {**PROPS, "source.consumer.auto.offset.reset": "latest", "consumer.enable.auto.commit": "true"}
    config = client_config(props, "source", "consumer", "replication-consumer")
    assert (config["auto.offset.reset"], config["enable.auto.commit"]) == ("latest", "false")
    assert client_config(PROPS, "source", "producer", "offset-syncs-source-producer")["linger.ms"] == "5"
