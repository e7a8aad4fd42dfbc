"""The herder's own clients and the connectors' defaults in distributed mode: who heartbeats how often, and
how a membership consumer is named."""

from __future__ import annotations

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka.client_config import to_librdkafka
from tests.unit.distributed.test_settings import BASE
from workers.distributed.clients import connector_clients, membership_consumer_props
from workers.distributed.settings import DistributedSettings
from workers.distributed.stall import StallGuard

DEFAULTS = DistributedSettings.from_props(BASE)  # Kafka Connect's 10 s session, 3 s heartbeat


def test_the_membership_consumer_heartbeats_every_half_second_and_names_its_process() -> None:
    props = membership_consumer_props(DEFAULTS, "w1:8083", "1a2b3c4d")

    assert props["client.id"] == "kconnect-worker-w1:8083-1a2b3c4d"
    assert (props["session.timeout.ms"], props["heartbeat.interval.ms"]) == ("10000", "500")
    low = DistributedSettings.from_props({**BASE, "session.timeout.ms": "3000", "heartbeat.interval.ms": "200"})
    assert membership_consumer_props(low, "w1:8083")["heartbeat.interval.ms"] == "200"


def test_sink_consumers_keep_the_worker_s_session_and_heartbeat_every_half_second_unless_told_otherwise() -> None:
    task = ConnectorTaskId("sink", 0)
    config = to_librdkafka(connector_clients(DEFAULTS, StallGuard(5.0)).consumer_config(task, {}), "consumer")
    assert (config["session.timeout.ms"], config["heartbeat.interval.ms"]) == ("10000", "500")

    told = DistributedSettings.from_props({**BASE, "consumer.heartbeat.interval.ms": "2000"})
    config = to_librdkafka(connector_clients(told, StallGuard(5.0)).consumer_config(task, {}), "consumer")
    assert config["heartbeat.interval.ms"] == "2000"
