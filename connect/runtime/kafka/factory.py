"""`KafkaClients`, the factory of every Kafka client the runtime uses.

Connector and task clients get Kafka Connect's defaults (Kafka's `Worker.baseProducerConfigs` and
`baseConsumerConfigs`), layering, lowest first: Connect's defaults, the worker's `producer.*`/
`consumer.*`/`admin.*`, the connector's `*.override.*` (subject to
`connector.client.config.override.policy`); the settings themselves and their Java → librdkafka
translation live in `kafka_client_config`. The worker's internal clients
(`internal_config`, `internal_consumer`: config/status/offsets logs, group membership) use the worker's
top-level connection settings instead, as Kafka Connect's do. A key librdkafka still refuses is dropped
with a warning rather than failing the task.

Called from the worker's and herders' threads; it keeps no state beyond the settings it was built with.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient

from connect.api.errors import ConfigError
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import rdkafka_ctypes
from connect.runtime.kafka.admin import KafkaAdmin
from connect.runtime.kafka.assigned_consumer import KafkaAssignedConsumer, assigned_consumer_config
from connect.runtime.kafka.batch_producer import BatchProducer
from connect.runtime.kafka.client_config import (
    ADMIN_OVERRIDE_PREFIX,
    CONSUMER_DEFAULTS,
    CONSUMER_OVERRIDE_PREFIX,
    DEFAULT_MAX_POLL_RECORDS,
    PRODUCER_DEFAULTS,
    PRODUCER_OVERRIDE_PREFIX,
    internal_client_props,
    override_violations,
    to_librdkafka,
    with_prefix,
)
from connect.runtime.kafka.consumer import DEFAULT_REJOIN_TIMEOUT_S, KafkaSinkConsumer
from connect.runtime.kafka.errors import connect_error, describe
from connect.runtime.kafka.gapless import ExperimentalWarningFilter, with_gapless_delivery
from connect.runtime.kafka.group_eviction import GroupEviction
from connect.runtime.kafka.predecessor import evict_predecessor, sink_client_id
from connect.runtime.kafka.problems import ClientProblems
from connect.runtime.kafka.protocols import ProducerLike, SinkConsumer, TransactionalProducer
from connect.runtime.kafka.transactional import KafkaTransactionalProducer, transactional_config
from connect.runtime.metrics.client_stats import CLIENT_STATISTICS, STATISTICS_INTERVAL_MS

log = logging.getLogger(__name__)
# Named for the package, not this module: entry points quiet librdkafka's own log lines by that name.
librdkafka_log = logging.getLogger(f"{__package__}.librdkafka")
librdkafka_log.addFilter(ExperimentalWarningFilter())

# A wrong SASL password, a broker certificate the trust store does not vouch for: retried for ever.
_CONNECTION_REFUSALS = frozenset({KafkaError._AUTHENTICATION, KafkaError._SSL})
_UNKNOWN_PROPERTY = re.compile(r'No such configuration property: "([^"]+)"')


class KafkaClients:
    """Creates connector and task clients from the worker's client settings and a connector's overrides,
    and the worker's internal clients from its connection settings (`internal_props`)."""

    def __init__(
        self,
        *,
        producer_props: Mapping[str, str],
        consumer_props: Mapping[str, str],
        admin_props: Mapping[str, str],
        override_policy: str = "All",
        internal_props: Mapping[str, str] | None = None,
        batch_producer: bool = True,
    ) -> None:
        """`batch_producer`: source tasks' producers (failure reports only) are `BatchProducer`s where
        librdkafka can be reached through ctypes and the settings allow (see `producer`)."""
        self._producer = dict(producer_props)
        self.batch_producer = batch_producer
        self._consumer = dict(consumer_props)
        self._admin = dict(admin_props)
        self.override_policy = override_policy
        # Without worker settings (tests, tools), internal clients connect as the consumers do.
        self._internal = dict(internal_props if internal_props is not None else internal_client_props(consumer_props))
        self.problems = ClientProblems()
        """Authentication and TLS failures of the clients built here (for the worker's health)."""

    @classmethod
    def from_worker_config(cls, config: Any) -> KafkaClients:
        """From a `WorkerConfig` (typed loosely to keep this module free of runtime imports)."""
        return cls(
            producer_props=config.producer_props(),
            consumer_props=config.consumer_props(),
            admin_props=config.admin_props(),
            override_policy=config.client_config_override_policy,
            # bootstrap.servers as parsed: the worker's default applies when the file leaves it out.
            internal_props={**internal_client_props(config.originals), "bootstrap.servers": config.bootstrap_servers},
            batch_producer=config.source_batch_produce,
        )

    # -- configs (pure, for tests and for the herder's validation) ------------------------------

    def _overrides(self, connector_config: Mapping[str, str], prefix: str) -> dict[str, str]:
        violations = override_violations(self.override_policy, connector_config)
        if violations:
            raise ConfigError(
                f"The connector.client.config.override.policy {self.override_policy} forbids: {', '.join(violations)}"
            )
        return with_prefix(connector_config, prefix)

    def producer_config(
        self, client_id: str, connector_config: Mapping[str, str], *, gapless: bool = False
    ) -> dict[str, str]:
        overrides = self._overrides(connector_config, PRODUCER_OVERRIDE_PREFIX)
        merged = {**PRODUCER_DEFAULTS, "client.id": client_id, **self._producer, **overrides}
        config = to_librdkafka(merged, "producer")
        return with_gapless_delivery(config, {*self._producer, *overrides}) if gapless else config

    def source_producer_config(
        self, task: ConnectorTaskId, connector_config: Mapping[str, str], *, gapless: bool = False
    ) -> dict[str, str]:
        """The librdkafka config of a source task's producer (`producer`); `gapless`: made gap-less where the
        user's settings allow (`gapless.with_gapless_delivery`)."""
        return self.producer_config(
            f"connector-producer-{task.connector}-{task.task}", connector_config, gapless=gapless
        )

    def consumer_config(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> dict[str, str]:
        merged = {
            **CONSUMER_DEFAULTS,
            "group.id": f"connect-{task.connector}",
            "client.id": sink_client_id(task),
            **self._consumer,
            **self._overrides(connector_config, CONSUMER_OVERRIDE_PREFIX),
        }
        return merged

    def admin_config(self, client_id: str, connector_config: Mapping[str, str] | None) -> dict[str, str]:
        overrides = self._overrides(connector_config, ADMIN_OVERRIDE_PREFIX) if connector_config else {}
        return to_librdkafka({"client.id": client_id, **self._admin, **overrides}, "admin")

    def internal_config(self, client: str, client_id: str, settings: Mapping[str, str] | None = None) -> dict[str, str]:
        """The librdkafka config of one of the worker's own clients (`client`: "producer", "consumer" or
        "admin"): the worker's top-level connection settings (`bootstrap.servers`, `security.protocol`,
        `ssl.*`, `sasl.*`, ...), then `client_id`, then `settings` (the caller's, Java or librdkafka names).
        Never the worker's `producer.*`/`consumer.*`/`admin.*`: those are for connector clients."""
        return to_librdkafka({**self._internal, "client.id": client_id, **(settings or {})}, client)

    def internal_consumer(self, client_id: str, settings: Mapping[str, str]) -> SinkConsumer:
        """A consumer of the worker's own behind the `SinkConsumer` protocol (e.g. distributed mode's
        membership consumer): `internal_config` with `settings`, which must name the `group.id`."""
        config = self.internal_config("consumer", client_id, {"enable.auto.commit": "false", **settings})
        max_records = int(settings.get("max.poll.records", DEFAULT_MAX_POLL_RECORDS))
        cooperative = "cooperative" in config.get("partition.assignment.strategy", "")
        return KafkaSinkConsumer(self._build(Consumer, config, "consumer"), cooperative, max_records)

    # -- clients --------------------------------------------------------------------------------

    def producer(
        self,
        task: ConnectorTaskId,
        connector_config: Mapping[str, str],
        *,
        failure_reports_only: bool = False,
        batch_calls: bool = False,
        gapless: bool = False,
    ) -> ProducerLike:
        """A source task's producer, client id `connector-producer-<name>-<task>`.

        `failure_reports_only`: delivery callbacks run for failed records only (librdkafka's
        `delivery.report.only.error`); the caller learns of successes by flushing the producer empty.
        `batch_calls` (with failure reports only): the caller sends whole columns, so it gets a
        `BatchProducer` where one can be made. Its `produce` of a single record costs several times
        confluent_kafka's, so tasks that send records one by one keep confluent_kafka's producer.
        `gapless`: as in `source_producer_config`.
        """
        config: dict[str, Any] = dict(self.source_producer_config(task, connector_config, gapless=gapless))
        if failure_reports_only:
            config["delivery.report.only.error"] = True  # the Python client wants a bool here
            if batch_calls and self.batch_producer and _batch_produce_allowed(config):
                batch_producer: ProducerLike = self._build(BatchProducer.create, config, "producer")
                return batch_producer
        producer: ProducerLike = self._build(Producer, config, "producer")
        return producer

    def dlq_producer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> ProducerLike:
        """A sink task's dead letter queue producer, client id `connector-dlq-producer-<name>-<task>`."""
        client_id = f"connector-dlq-producer-{task.connector}-{task.task}"
        producer: ProducerLike = self._build(Producer, self.producer_config(client_id, connector_config), "producer")
        return producer

    def transactional_producer(
        self,
        task: ConnectorTaskId,
        connector_config: Mapping[str, str],
        transactional_id: str,
        *,
        failure_reports_only: bool = False,
    ) -> TransactionalProducer:
        """An exactly-once source task's producer (KIP-618), client id `connector-producer-<name>-<task>`.

        Idempotent, `acks=all`, with `transactional.id` set here whatever the overrides say (as Kafka does);
        `message.timeout.ms` is kept within `transaction.timeout.ms`, which librdkafka requires.
        """
        config: dict[str, Any] = self.transactional_producer_config(task, connector_config, transactional_id)
        if failure_reports_only:
            config["delivery.report.only.error"] = True
        producer: TransactionalProducer = self._build(KafkaTransactionalProducer, config, "producer")
        return producer

    def transactional_producer_config(
        self, task: ConnectorTaskId, connector_config: Mapping[str, str], transactional_id: str
    ) -> dict[str, str]:
        """The librdkafka config of `transactional_producer` (pure; for tests and validation)."""
        client_id = f"connector-producer-{task.connector}-{task.task}"
        return transactional_config(self.producer_config(client_id, connector_config), transactional_id)

    def fence_producers(
        self, transactional_ids: Iterable[str], connector_config: Mapping[str, str] | None = None, timeout: float = 60.0
    ) -> None:
        """Fence every producer using one of `transactional_ids`, aborting their open transactions.

        Kafka's Admin `fenceProducers` has no librdkafka counterpart (confluent-kafka 2.16's AdminClient has
        none), so this does what it amounts to: `init_transactions` with each id, which bumps its epoch.
        Raises ConnectError (RetriableError if Kafka says so) when one could not be fenced within `timeout`.
        """
        ids = list(dict.fromkeys(transactional_ids))
        if not ids:
            return
        deadline = time.monotonic() + timeout
        base = self.producer_config("kconnect-fencer", connector_config or {})

        def fence(transactional_id: str) -> None:
            client_id = f"kconnect-fencer-{transactional_id}"
            config = transactional_config({**base, "client.id": client_id}, transactional_id)
            producer = self._build(Producer, config, "producer")
            try:
                producer.init_transactions(max(deadline - time.monotonic(), 0.1))
            except KafkaException as exc:
                raise connect_error(exc, f"Could not fence producers with transactional id {transactional_id}") from exc

        # Each fencing waits for the transaction coordinator (and for a zombie's open transaction to abort).
        with ThreadPoolExecutor(max_workers=min(len(ids), 8), thread_name_prefix="kconnect-fencer") as pool:
            for future in [pool.submit(fence, transactional_id) for transactional_id in ids]:
                future.result()

    def sink_consumer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> SinkConsumer:
        """A sink task's consumer in group `connect-<name>` (or `consumer.override.group.id`)."""
        java = self.consumer_config(task, connector_config)
        max_records = int(java.get("max.poll.records", DEFAULT_MAX_POLL_RECORDS))
        config = to_librdkafka(java, "consumer")
        cooperative = "cooperative" in config.get("partition.assignment.strategy", "")
        build = functools.partial(self._build, Consumer, config, "consumer")
        return KafkaSinkConsumer(
            build(),
            cooperative,
            max_records,
            before_join=predecessor_eviction(task, config),
            rebuild=build,
            rejoin_timeout=rejoin_timeout(config),
        )

    def assigned_consumer(self, settings: Mapping[str, str]) -> KafkaAssignedConsumer:
        """A consumer of assigned partitions with no group, from `settings` alone (Kafka's names, with
        `client.id`): a connector's own client of a cluster that is not the worker's, such as MirrorMaker's."""
        config = to_librdkafka(settings, "consumer")
        config = assigned_consumer_config(config, settings.get("client.id", "kconnect"))
        reset = settings.get("auto.offset.reset", "earliest").strip().lower()
        return KafkaAssignedConsumer(self._build(Consumer, config, "consumer"), reset)

    def internal_producer(self, client_id: str, settings: Mapping[str, str]) -> ProducerLike:
        """A producer of the worker's own (`internal_config`), e.g. the audit trail's."""
        producer: ProducerLike = self._build(
            Producer, self.internal_config("producer", client_id, settings), "producer"
        )
        return producer

    def plain_producer(self, settings: Mapping[str, str]) -> ProducerLike:
        """A producer from `settings` alone (Kafka's names): a connector's own client of another cluster."""
        producer: ProducerLike = self._build(Producer, to_librdkafka(settings, "producer"), "producer")
        return producer

    def admin(self, client_id: str = "kconnect-admin", connector_config: Mapping[str, str] | None = None) -> KafkaAdmin:
        return KafkaAdmin(self._build(AdminClient, self.admin_config(client_id, connector_config), "admin"))

    def _build(self, factory: Callable[[dict[str, Any]], Any], config: Mapping[str, Any], client: str) -> Any:
        return _create(factory, config, client, self.problems)


def rejoin_timeout(config: Mapping[str, str]) -> float:
    """How long a sink consumer that lost its partitions may take to join its group again before it is
    replaced (`KafkaSinkConsumer`): one session timeout, the time the group gives a silent member."""
    try:
        return max(1.0, int(config["session.timeout.ms"]) / 1000)
    except (KeyError, ValueError):
        return DEFAULT_REJOIN_TIMEOUT_S


def predecessor_eviction(task: ConnectorTaskId, config: Mapping[str, str]) -> Callable[[], None] | None:
    """What a sink task's consumer does before it joins its group: evict the consumer of the task's
    previous instance if that is still a member (`predecessor.py`); None where it cannot be told apart
    (a `client.id` of the user's, which other tasks may share) or reached."""
    if config.get("client.id") != sink_client_id(task):
        return None
    eviction = GroupEviction(config)
    if not eviction.supported():
        return None
    return functools.partial(evict_predecessor, eviction, str(config.get("group.id")), sink_client_id(task))


def _create(
    factory: Callable[[dict[str, Any]], Any], config: Mapping[str, Any], client: str, problems: ClientProblems
) -> Any:
    """Build a client; keys librdkafka does not know (missed by the translation) are dropped with a warning."""
    settings: dict[str, Any] = dict(config)
    settings["logger"] = librdkafka_log
    settings["error_cb"] = functools.partial(_log_client_error, problems)
    if client in ("consumer", "producer"):
        settings.setdefault("statistics.interval.ms", STATISTICS_INTERVAL_MS)
        settings["stats_cb"] = CLIENT_STATISTICS.on_stats
    for _ in range(len(config) + 1):
        try:
            return factory(settings)
        except KafkaException as exc:
            unknown = _UNKNOWN_PROPERTY.search(str(exc.args[0]) if exc.args else "")
            if unknown is None or unknown.group(1) not in settings:
                raise ConfigError(f"Invalid {client} configuration: {describe(exc)}") from exc
            log.warning("Dropping %s setting %s: librdkafka does not know it", client, unknown.group(1))
            del settings[unknown.group(1)]
    raise ConfigError(f"Invalid {client} configuration")


def _batch_produce_allowed(config: Mapping[str, Any]) -> bool:
    # OAUTHBEARER tokens are refreshed through callbacks that only confluent_kafka's producer serves.
    mechanism = str(config.get("sasl.mechanism", config.get("sasl.mechanisms", ""))).upper()
    return mechanism != "OAUTHBEARER" and rdkafka_ctypes.load() is not None


def _log_client_error(problems: ClientProblems, error: KafkaError) -> None:
    # Called from poll/consume/flush for client-level errors (e.g. all brokers down); librdkafka retries.
    if error.code() in _CONNECTION_REFUSALS:
        problems.note(error.str())
    if error.fatal():
        log.error("Kafka client fatal error: %s", error.str())
    else:
        log.warning("Kafka client error: %s", error.str())
