"""The mirror connectors' door to Kafka: clients of either cluster of a flow, built with the runtime's client
factory (Java key names translated for librdkafka, TLS stores read, SASL JAAS parsed), as Java's MirrorMaker
builds its own clients and Connect's `TopicAdmin`.

With `remote_topics`, the only modules of `connect/mirror` that reach into the runtime (its Kafka package);
the rest are plain logic over the plug-in API.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from connect.mirror.client_configs import Client, Side, client_config
from connect.runtime.kafka import KafkaAdmin, KafkaAssignedConsumer, KafkaClients, ProducerLike, TopicSpec

log = logging.getLogger(__name__)


def _clients(settings: Mapping[str, str]) -> KafkaClients:
    return KafkaClients(producer_props={}, consumer_props={}, admin_props=settings)


def admin(props: Mapping[str, str], side: Side, role: str) -> KafkaAdmin:
    """An admin client of the flow's `side` cluster, named for `role` in its client id."""
    settings = client_config(props, side, "admin", role)
    return _clients(settings).admin(settings["client.id"])


def consumer(props: Mapping[str, str], side: Side, role: str, task_index: int | None = None) -> KafkaAssignedConsumer:
    """A consumer of the `side` cluster that reads assigned partitions, without a group."""
    settings = client_config(props, side, "consumer", role, task_index)
    return _clients(settings).assigned_consumer(settings)


def producer(props: Mapping[str, str], side: Side, role: str, task_index: int | None = None) -> ProducerLike:
    settings = client_config(props, side, "producer", role, task_index)
    return _clients(settings).plain_producer(settings)


def client_settings(props: Mapping[str, str], side: Side, client: Client) -> dict[str, str]:
    """The Kafka-named settings of a client of `side` (for checks such as the consumer's isolation level)."""
    return client_config(props, side, client, "settings")


def create_compacted_topic(kafka: KafkaAdmin, name: str, replication_factor: int, timeout_s: float) -> None:
    """Create a 1-partition compacted topic (MirrorMaker's internal topics) unless it exists; a refusal for
    want of rights or support is logged, as Java's MirrorUtils does, since an operator may have created it."""
    spec = TopicSpec(name, 1, replication_factor, {"cleanup.policy": "compact"})
    if kafka.create_topics([spec], timeout_s, refusals_tolerated=True):
        log.info("Created topic %s", name)
