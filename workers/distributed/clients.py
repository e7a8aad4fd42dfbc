"""The Kafka clients of the distributed herder itself (not of connectors): settings and factories.

Internal clients connect with `bootstrap.servers` and the worker's top-level security settings
(`security.protocol`, `ssl.*`, `sasl.*`), as Kafka Connect's internal clients do; connector clients use
`producer.*`/`consumer.*`/`admin.*` instead (`connect.runtime.kafka`). Every client is built by
the runtime's `KafkaClients` factory, so this package never imports confluent_kafka.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import KafkaClients, SinkConsumer
from workers.distributed.distributed_config import CLIENT_ID
from workers.distributed.membership import ConsumerFactory
from workers.distributed.settings import DistributedSettings
from workers.distributed.stall import GuardedClients, StallGuard

_SECURITY_PREFIXES = ("security.", "ssl.", "sasl.")


def internal_props(config: WorkerConfig) -> dict[str, str]:
    """`bootstrap.servers` plus the worker's top-level security settings."""
    props = {"bootstrap.servers": config.bootstrap_servers}
    props.update({k: v for k, v in config.originals.items() if k.startswith(_SECURITY_PREFIXES)})
    return props


def internal_clients(config: WorkerConfig, consumer_overrides: Mapping[str, str] | None = None) -> KafkaClients:
    """A client factory for the herder's own producers, consumers and admin clients."""
    base = internal_props(config)
    return KafkaClients(
        producer_props=base,
        consumer_props={**base, **(consumer_overrides or {})},
        admin_props=base,
    )


def membership_consumer_props(settings: DistributedSettings, worker_id: str) -> dict[str, str]:
    """The membership consumer: classic protocol pinned (its default will change), cooperative-sticky,
    the worker's session and heartbeat, `rebalance.timeout.ms` as the poll interval (librdkafka sends it
    as the rebalance timeout), no commits, quick reconnects, and the worker id in the client id (after the
    worker's `client.id`) so that a describe of the group shows which worker owns which slots."""
    return {
        "group.id": settings.membership_group,
        "client.id": f"{settings.worker.get(CLIENT_ID)}-{worker_id}",
        "group.protocol": "classic",
        "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": str(settings.session_timeout_ms),
        "heartbeat.interval.ms": str(settings.heartbeat_interval_ms),
        "max.poll.interval.ms": str(settings.rebalance_timeout_ms),
        "enable.auto.commit": "false",
        "auto.offset.reset": "latest",
        # librdkafka backs off up to 10 s between reconnects; the member should be back soon after Kafka.
        "reconnect.backoff.max.ms": "1000",
    }


def membership_consumer_factory(settings: DistributedSettings, worker_id: str) -> ConsumerFactory:
    clients = internal_clients(settings.worker, membership_consumer_props(settings, worker_id))

    def create() -> SinkConsumer:
        # The sink-consumer wrapper speaks slots as TopicPartitions and runs the rebalance callbacks;
        # the group and client ids above replace the connector defaults it would otherwise use.
        return clients.sink_consumer(ConnectorTaskId("kconnect-membership", 0), {})

    return create


def connector_clients(settings: DistributedSettings, guard: StallGuard) -> KafkaClients:
    """The connectors' client factory: the worker's `producer.*`/`consumer.*`/`admin.*` settings, except that
    sink consumers default to the worker's own session timeout and heartbeat instead of Kafka's consumer
    defaults (45 s, 3 s), so that a dead worker's sink partitions move with its tasks, not 45 s later.
    `consumer.session.timeout.ms` and `consumer.heartbeat.interval.ms` still override them. Sink consumers
    sit behind the stall guard (`stall.py`)."""
    config = settings.worker
    consumer = {
        "session.timeout.ms": str(settings.session_timeout_ms),
        "heartbeat.interval.ms": str(settings.heartbeat_interval_ms),
        **config.consumer_props(),
    }
    return GuardedClients(
        producer_props=config.producer_props(),
        consumer_props=consumer,
        admin_props=config.admin_props(),
        override_policy=config.client_config_override_policy,
        guard=guard,
    )
