"""librdkafka's statistics become Kafka's client metrics, per client id."""

from __future__ import annotations

import orjson

from connect.runtime.metrics.client_stats import ClientStatistics


def _stats(name: str, client_id: str, client_type: str, tx_bytes: int, states: dict[str, tuple[str, str]]) -> str:
    brokers = {broker: {"state": state, "source": source} for broker, (state, source) in states.items()}
    payload = {"name": name, "client_id": client_id, "type": client_type, "tx_bytes": tx_bytes, "rx_bytes": 5}
    payload.update({"tx": 3, "rx": 2, "brokers": brokers})
    return orjson.dumps(payload).decode()


def test_connections_up_are_counted_and_logical_brokers_are_not() -> None:
    clock = [0.0]
    stats = ClientStatistics(lambda: clock[0], forget_after_s=30)
    brokers = {
        "b1:9092/1": ("UP", "learned"),
        "b2:9092/2": ("DOWN", "learned"),
        "GroupCoordinator": ("UP", "logical"),
        "b1:9092/bootstrap": ("UP", "configured"),
    }
    stats.on_stats(_stats("rdkafka#consumer-1", "c-1", "consumer", 100, brokers))
    [group] = stats.groups()
    assert (group.domain, group.group, group.tags) == ("consumer", "consumer-metrics", (("client-id", "c-1"),))
    assert group.values == {
        "connection-count": 2,
        "outgoing-byte-total": 100,
        "incoming-byte-total": 5,
        "request-total": 3,
        "response-total": 2,
    }


def test_clients_sharing_an_id_add_up_and_silent_ones_are_forgotten() -> None:
    clock = [0.0]
    stats = ClientStatistics(lambda: clock[0], forget_after_s=30)
    stats.on_stats(_stats("rdkafka#producer-1", "p", "producer", 10, {}))
    stats.on_stats(_stats("rdkafka#producer-2", "p", "producer", 20, {}))
    stats.on_stats("not json")
    [group] = stats.groups()
    assert group.values["outgoing-byte-total"] == 30
    clock[0] = 31
    assert stats.groups() == []
