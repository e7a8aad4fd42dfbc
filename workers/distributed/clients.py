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


# A member learns of a rebalance only from a heartbeat's answer; once a dead peer is evicted (`liveness.py`),
# or a dead sink consumer by its task's new instance, that wait is most of the failover.
REBALANCE_HEARTBEAT_MAX_MS = 500


def membership_client_id(settings: DistributedSettings, worker_id: str, incarnation: str = "") -> str:
    """The worker's `client.id`, its worker id (a describe of the group shows which worker owns which slots)
    and the process's incarnation (`liveness.py` evicts exactly the member of a process that died)."""
    client_id = f"{settings.worker.get(CLIENT_ID)}-{worker_id}"
    return f"{client_id}-{incarnation}" if incarnation else client_id


def membership_consumer_props(settings: DistributedSettings, worker_id: str, incarnation: str = "") -> dict[str, str]:
    """The membership consumer: classic protocol pinned (its default will change), cooperative-sticky,
    the worker's session, `rebalance.timeout.ms` as the poll interval (librdkafka sends it as the
    rebalance timeout), no commits, quick reconnects, a heartbeat at least every 0.5 s whatever
    `heartbeat.interval.ms` says (`REBALANCE_HEARTBEAT_MAX_MS`)."""
    heartbeat = min(settings.heartbeat_interval_ms, REBALANCE_HEARTBEAT_MAX_MS)
    return {
        "group.id": settings.membership_group,
        "client.id": membership_client_id(settings, worker_id, incarnation),
        "group.protocol": "classic",
        "partition.assignment.strategy": "cooperative-sticky",
        "session.timeout.ms": str(settings.session_timeout_ms),
        "heartbeat.interval.ms": str(heartbeat),
        "max.poll.interval.ms": str(settings.rebalance_timeout_ms),
        "enable.auto.commit": "false",
        "auto.offset.reset": "latest",
        # librdkafka backs off up to 10 s between reconnects; the member should be back soon after Kafka.
        "reconnect.backoff.max.ms": "1000",
    }


def membership_consumer_factory(
    settings: DistributedSettings, worker_id: str, incarnation: str = ""
) -> ConsumerFactory:
    clients = internal_clients(settings.worker, membership_consumer_props(settings, worker_id, incarnation))

    def create() -> SinkConsumer:
        # The sink-consumer wrapper speaks slots as TopicPartitions and runs the rebalance callbacks;
        # the group and client ids above replace the connector defaults it would otherwise use.
        return clients.sink_consumer(ConnectorTaskId("kconnect-membership", 0), {})

    return create


def connector_clients(settings: DistributedSettings, guard: StallGuard) -> KafkaClients:
    """The connectors' client factory: the worker's `producer.*`/`consumer.*`/`admin.*` settings, except that
    sink consumers default to the worker's own session timeout instead of Kafka's consumer default (45 s),
    so that a dead worker's sink partitions move with its tasks, not 45 s later, and to a heartbeat of at
    most 0.5 s (`REBALANCE_HEARTBEAT_MAX_MS`), so that they rejoin soon after a task's new instance evicted
    its dead predecessor (`connect.runtime.kafka.predecessor`).
    `consumer.session.timeout.ms` and `consumer.heartbeat.interval.ms` still override them. Sink consumers
    sit behind the stall guard (`stall.py`)."""
    config = settings.worker
    consumer = {
        "session.timeout.ms": str(settings.session_timeout_ms),
        "heartbeat.interval.ms": str(min(settings.heartbeat_interval_ms, REBALANCE_HEARTBEAT_MAX_MS)),
        **config.consumer_props(),
    }
    return GuardedClients(
        producer_props=config.producer_props(),
        consumer_props=consumer,
        admin_props=config.admin_props(),
        override_policy=config.client_config_override_policy,
        guard=guard,
    )
