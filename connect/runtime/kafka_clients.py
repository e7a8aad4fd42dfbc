"""The Kafka client factory: the only runtime module that imports confluent_kafka.

`KafkaClients` builds the producers, consumers and admin clients of connectors and tasks with Kafka
Connect's defaults (reference kafka-connect.md §5.1/§5.2), layering, lowest first: Connect's
defaults, the worker's `producer.*`/`consumer.*`/`admin.*`, the connector's `*.override.*`
(subject to `connector.client.config.override.policy`); the settings themselves and their Java →
librdkafka translation live in `kafka_client_config`. The worker's internal clients (`internal_config`,
`internal_consumer`: config/status/offsets logs, group membership) use the worker's top-level connection
settings instead, as Kafka Connect's do. A key librdkafka still refuses is dropped with a warning rather
than failing the task.

The rest of the runtime sees Protocols (`KafkaMessage`, `ProducerLike`, `SinkConsumer`) and the
`KafkaAdmin` wrapper, never confluent_kafka's types; unit tests pass fakes that implement them.
Threading: a producer may be used from any thread; a `SinkConsumer` belongs to one task thread (its
rebalance callbacks run inside `consume` on that thread); `KafkaAdmin` calls block the caller, and so
does `retry_with_metadata_refresh`, which `KafkaAdmin` and `kafka_log` share for calls that go to
partition leaders.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from confluent_kafka import (
    OFFSET_INVALID,
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
    TopicCollection,
)
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._listoffsets import OffsetSpec
from confluent_kafka.cimpl import NewTopic

from connect.api.errors import ConfigError, ConnectError, RetriableError
from connect.api.records import TopicPartition
from connect.runtime.kafka_client_config import (
    ADMIN_OVERRIDE_PREFIX,
    CONSUMER_DEFAULTS,
    CONSUMER_OVERRIDE_PREFIX,
    DEFAULT_MAX_POLL_RECORDS,
    PRODUCER_DEFAULTS,
    PRODUCER_OVERRIDE_PREFIX,
    internal_client_props,
    override_violations,
    sink_group_id,
    to_librdkafka,
    with_prefix,
)
from connect.runtime.states import ConnectorTaskId

__all__ = [
    "DeliveryCallback",
    "KafkaAdmin",
    "KafkaClients",
    "KafkaErrorLike",
    "KafkaMessage",
    "KafkaSinkConsumer",
    "KafkaTransactionalProducer",
    "ProducerFencedError",
    "ProducerLike",
    "RebalanceListener",
    "SinkConsumer",
    "TopicSpec",
    "TransactionAbortRequiredError",
    "TransactionalProducer",
    "admin_result",
    "connect_error",
    "fencing_error",
    "override_violations",
    "producer_fenced",
    "retry_with_metadata_refresh",
    "sink_group_id",
    "to_librdkafka",
]

log = logging.getLogger(__name__)
librdkafka_log = logging.getLogger(__name__ + ".librdkafka")

T = TypeVar("T")

# -- what the rest of the runtime sees ---------------------------------------------------------


class KafkaErrorLike(Protocol):
    def code(self) -> int: ...
    def name(self) -> str: ...
    def fatal(self) -> bool: ...
    def retriable(self) -> bool: ...


class KafkaMessage(Protocol):
    """A consumed message or a delivery report (confluent_kafka.Message has this shape)."""

    def topic(self) -> str | None: ...
    def partition(self) -> int | None: ...
    def offset(self) -> int | None: ...
    def key(self) -> bytes | None: ...
    def value(self) -> bytes | None: ...
    def headers(self) -> Sequence[tuple[str, str | bytes | None]] | Mapping[str, str | bytes | None] | None: ...
    def timestamp(self) -> tuple[int, int]: ...
    def error(self) -> Any: ...


DeliveryCallback = Callable[[Any, Any], None]
"""`on_delivery(error, message)`: error is None or a KafkaErrorLike, message a KafkaMessage."""

ProducedHeaders = list[tuple[str, bytes | None]]

# Timestamp types of `KafkaMessage.timestamp()[0]` (librdkafka's values).
TIMESTAMP_NOT_AVAILABLE = 0
TIMESTAMP_CREATE_TIME = 1
TIMESTAMP_LOG_APPEND_TIME = 2


class ProducerLike(Protocol):
    """The producer calls the runtime makes; confluent_kafka.Producer is one, unwrapped for speed."""

    def produce(
        self,
        topic: str,
        value: str | bytes | None = None,
        key: str | bytes | None = None,
        partition: int = -1,
        callback: Any = None,
        on_delivery: Any = None,
        timestamp: int = 0,
        headers: Any = None,
    ) -> None: ...

    def poll(self, timeout: float = -1) -> int: ...

    def flush(self, timeout: float = -1) -> int: ...

    def __len__(self) -> int: ...


class TransactionalProducer(ProducerLike, Protocol):
    """An exactly-once source task's producer (KIP-618). The transaction calls raise `ProducerFencedError`
    (another producer took over this transactional id, or the transaction timed out), a
    `TransactionAbortRequiredError` (abort, then the producer is usable again), `RetriableError` (call again)
    or ConnectError (fatal); `produce`/`poll`/`flush` raise confluent_kafka's errors (see `producer_fenced`)."""

    transactional_id: str
    transaction_timeout_ms: int
    """After this long the coordinator aborts an open transaction (and the producer looks fenced)."""

    def init_transactions(self, timeout: float = -1) -> None: ...

    def begin_transaction(self) -> None: ...

    def commit_transaction(self, timeout: float = -1) -> None: ...

    def abort_transaction(self, timeout: float = -1) -> None: ...


class ProducerFencedError(ConnectError):
    """A transactional producer was fenced: a newer one with the same transactional id exists (fatal)."""


class TransactionAbortRequiredError(ConnectError):
    """The open transaction failed (e.g. a record was refused) and must be aborted."""


class RebalanceListener(Protocol):
    """What a sink task runner does when the group changes its partitions (called inside `consume`)."""

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        """Returns the offsets to start from for some of the partitions (the rest: committed offsets)."""
        ...

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None: ...

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None: ...


class SinkConsumer(Protocol):
    """A sink task's consumer, speaking connect.api's TopicPartition and plain int offsets."""

    max_records: int

    def subscribe(self, topics: Sequence[str], pattern: str | None, listener: RebalanceListener) -> None: ...

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        """Up to `max_records` messages (no error messages); raises what a rebalance callback raised."""
        ...

    def assignment(self) -> set[TopicPartition]: ...

    def pause(self, partitions: Iterable[TopicPartition]) -> None: ...

    def resume(self, partitions: Iterable[TopicPartition]) -> None: ...

    def set_pause_all(self, paused: bool) -> None:
        """Pause every assigned partition, including ones assigned later, until called with False."""
        ...

    def seek(self, partition: TopicPartition, offset: int) -> None: ...

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]: ...

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None:
        """Commit synchronously; RetriableError for a rebalance in progress, ConnectError otherwise."""
        ...

    def close(self) -> None: ...


# librdkafka's and Kafka's default; the transactional producer's `message.timeout.ms` must stay within it.
DEFAULT_TRANSACTION_TIMEOUT_MS = 60000
# How librdkafka reports a transactional producer that a newer instance (same transactional.id) fenced:
# `_FENCED` from the transaction calls and flush (it normalizes PRODUCER_FENCED and INVALID_PRODUCER_EPOCH).
_FENCED_CODES = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH})

_UNKNOWN_PROPERTY = re.compile(r'No such configuration property: "([^"]+)"')


# -- the factory -------------------------------------------------------------------------------


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
    ) -> None:
        self._producer = dict(producer_props)
        self._consumer = dict(consumer_props)
        self._admin = dict(admin_props)
        self.override_policy = override_policy
        # Without worker settings (tests, tools), internal clients connect as the consumers do.
        self._internal = dict(internal_props if internal_props is not None else internal_client_props(consumer_props))

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
        )

    # -- configs (pure, for tests and for the herder's validation) ------------------------------

    def _overrides(self, connector_config: Mapping[str, str], prefix: str) -> dict[str, str]:
        violations = override_violations(self.override_policy, connector_config)
        if violations:
            raise ConfigError(
                f"The connector.client.config.override.policy {self.override_policy} forbids: {', '.join(violations)}"
            )
        return with_prefix(connector_config, prefix)

    def producer_config(self, client_id: str, connector_config: Mapping[str, str]) -> dict[str, str]:
        merged = {
            **PRODUCER_DEFAULTS,
            "client.id": client_id,
            **self._producer,
            **self._overrides(connector_config, PRODUCER_OVERRIDE_PREFIX),
        }
        return to_librdkafka(merged, "producer")

    def consumer_config(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> dict[str, str]:
        merged = {
            **CONSUMER_DEFAULTS,
            "group.id": f"connect-{task.connector}",
            "client.id": f"connector-consumer-{task.connector}-{task.task}",
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
        return KafkaSinkConsumer(_create(Consumer, config, "consumer"), cooperative, max_records)

    # -- clients --------------------------------------------------------------------------------

    def producer(
        self, task: ConnectorTaskId, connector_config: Mapping[str, str], *, failure_reports_only: bool = False
    ) -> ProducerLike:
        """A source task's producer, client id `connector-producer-<name>-<task>`.

        `failure_reports_only`: delivery callbacks run for failed records only (librdkafka's
        `delivery.report.only.error`); the caller learns of successes by flushing the producer empty.
        """
        client_id = f"connector-producer-{task.connector}-{task.task}"
        config: dict[str, Any] = dict(self.producer_config(client_id, connector_config))
        if failure_reports_only:
            config["delivery.report.only.error"] = True  # the Python client wants a bool here
        producer: ProducerLike = _create(Producer, config, "producer")
        return producer

    def dlq_producer(self, task: ConnectorTaskId, connector_config: Mapping[str, str]) -> ProducerLike:
        """A sink task's dead letter queue producer, client id `connector-dlq-producer-<name>-<task>`."""
        client_id = f"connector-dlq-producer-{task.connector}-{task.task}"
        producer: ProducerLike = _create(Producer, self.producer_config(client_id, connector_config), "producer")
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
        producer: TransactionalProducer = _create(KafkaTransactionalProducer, config, "producer")
        return producer

    def transactional_producer_config(
        self, task: ConnectorTaskId, connector_config: Mapping[str, str], transactional_id: str
    ) -> dict[str, str]:
        """The librdkafka config of `transactional_producer` (pure; for tests and validation)."""
        client_id = f"connector-producer-{task.connector}-{task.task}"
        return _transactional(self.producer_config(client_id, connector_config), transactional_id)

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
            config = _transactional({**base, "client.id": f"kconnect-fencer-{transactional_id}"}, transactional_id)
            producer = _create(Producer, config, "producer")
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
        return KafkaSinkConsumer(_create(Consumer, config, "consumer"), cooperative, max_records)

    def admin(self, client_id: str = "kconnect-admin", connector_config: Mapping[str, str] | None = None) -> KafkaAdmin:
        return KafkaAdmin(_create(AdminClient, self.admin_config(client_id, connector_config), "admin"))


def _create(factory: Callable[[dict[str, Any]], Any], config: Mapping[str, Any], client: str) -> Any:
    """Build a client; keys librdkafka does not know (missed by the translation) are dropped with a warning."""
    settings: dict[str, Any] = dict(config)
    settings["logger"] = librdkafka_log
    settings["error_cb"] = _log_client_error
    for _ in range(len(config) + 1):
        try:
            return factory(settings)
        except KafkaException as exc:
            unknown = _UNKNOWN_PROPERTY.search(str(exc.args[0]) if exc.args else "")
            if unknown is None or unknown.group(1) not in settings:
                raise ConfigError(f"Invalid {client} configuration: {_describe(exc)}") from exc
            log.warning("Dropping %s setting %s: librdkafka does not know it", client, unknown.group(1))
            del settings[unknown.group(1)]
    raise ConfigError(f"Invalid {client} configuration")


def _transactional(config: Mapping[str, str], transactional_id: str) -> dict[str, str]:
    # Forced whatever the layers said (Connect's own defaults turn idempotence off), as Kafka Connect does.
    settings = {**config, "transactional.id": transactional_id, "enable.idempotence": "true", "acks": "all"}
    transaction_timeout = int(settings.get("transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS))
    settings["transaction.timeout.ms"] = str(transaction_timeout)
    if int(settings.get("message.timeout.ms", transaction_timeout)) > transaction_timeout:
        settings["message.timeout.ms"] = str(transaction_timeout)
    return settings


def _log_client_error(error: KafkaError) -> None:
    # Called from poll/consume/flush for client-level errors (e.g. all brokers down); librdkafka retries.
    if error.fatal():
        log.error("Kafka client fatal error: %s", error.str())
    else:
        log.warning("Kafka client error: %s", error.str())


def _describe(exc: BaseException) -> str:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return str(exc.args[0].str())
    return str(exc)


def connect_error(exc: BaseException, what: str) -> ConnectError:
    """A confluent_kafka exception as a ConnectError (Retriable when Kafka says so)."""
    error = exc.args[0] if isinstance(exc, KafkaException) and exc.args else None
    if isinstance(error, KafkaError) and error.retriable():
        return RetriableError(f"{what}: {error.str()}")
    return ConnectError(f"{what}: {_describe(exc)}")


# -- transactional producer --------------------------------------------------------------------


class KafkaTransactionalProducer(Producer):
    """confluent_kafka.Producer whose transaction calls raise the runtime's errors (`TransactionalProducer`).

    A subclass rather than a wrapper: `produce`, `poll` and `flush` stay the C methods on the hot path.
    """

    transactional_id: str
    transaction_timeout_ms: int

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__(config)
        self.transactional_id = str(config.get("transactional.id", ""))
        self.transaction_timeout_ms = int(config.get("transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS))

    def init_transactions(self, timeout: float = -1) -> None:
        self._call(super().init_transactions, timeout, "initialize transactions")

    def begin_transaction(self) -> None:
        try:
            super().begin_transaction()
        except KafkaException as exc:
            raise _transaction_error(exc, "begin a transaction", self.transactional_id) from exc

    def commit_transaction(self, timeout: float = -1) -> None:
        self._call(super().commit_transaction, timeout, "commit the transaction")

    def abort_transaction(self, timeout: float = -1) -> None:
        self._call(super().abort_transaction, timeout, "abort the transaction")

    def _call(self, operation: Callable[[float], None], timeout: float, what: str) -> None:
        try:
            operation(timeout)
        except KafkaException as exc:
            raise _transaction_error(exc, what, self.transactional_id) from exc


def _transaction_error(exc: KafkaException, what: str, transactional_id: str) -> ConnectError:
    error = exc.args[0] if exc.args else None
    text = f"Could not {what} (transactional.id {transactional_id}): {_describe(exc)}"
    if not isinstance(error, KafkaError):
        return ConnectError(text)
    if error.code() in _FENCED_CODES:
        return ProducerFencedError(text)
    if error.txn_requires_abort():
        return TransactionAbortRequiredError(text)
    if error.retriable():
        return RetriableError(text)
    return ConnectError(text)


def producer_fenced(exc: BaseException) -> bool:
    """Whether `exc` (or an exception it was raised from) says that a newer producer fenced this one."""
    return fencing_error(exc) is not None


def fencing_error(exc: BaseException) -> BaseException | None:
    """The exception in `exc`'s chain (causes and contexts) that reports fencing, if any.

    librdkafka may surface it as the context of something else: a fatal error raised while a delivery
    callback ran shows up as a SystemError about the callback.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ProducerFencedError):
            return current
        error = current.args[0] if isinstance(current, KafkaException) and current.args else None
        if isinstance(error, KafkaError) and error.code() in _FENCED_CODES:
            return current
        current = current.__cause__ or current.__context__
    return None


# -- sink consumer -----------------------------------------------------------------------------


class KafkaSinkConsumer:
    """confluent_kafka.Consumer behind the `SinkConsumer` protocol; used by exactly one task thread."""

    def __init__(self, consumer: Consumer, cooperative: bool, max_records: int) -> None:
        self._consumer = consumer
        self._cooperative = cooperative
        self.max_records = max_records
        self._listener: RebalanceListener | None = None
        self._paused: set[TopicPartition] = set()
        self._pause_all = False
        self._callback_error: BaseException | None = None

    def subscribe(self, topics: Sequence[str], pattern: str | None, listener: RebalanceListener) -> None:
        self._listener = listener
        # librdkafka treats a subscription that starts with ^ as a regex.
        subscription = [pattern if pattern.startswith("^") else "^" + pattern] if pattern else list(topics)
        self._consumer.subscribe(
            subscription, on_assign=self._on_assign, on_revoke=self._on_revoke, on_lost=self._on_lost
        )

    def consume(self, max_records: int, timeout: float) -> list[KafkaMessage]:
        # librdkafka's consume(n, timeout) waits until n messages are queued or the timeout passes, so on a
        # quiet topic every record would wait up to `timeout`. Like Java's poll, return what is queued now,
        # and block (for one message, then take what came with it) only when nothing is.
        consumer = self._consumer
        try:
            messages = consumer.consume(max_records, 0)
            if not messages and timeout > 0 and self._callback_error is None:
                first = consumer.poll(timeout)
                if first is not None:
                    messages = [first]
                    if max_records > 1 and self._callback_error is None:
                        messages += consumer.consume(max_records - 1, 0)
        except KafkaException as exc:
            raise connect_error(exc, "Consumer failed") from exc
        if self._callback_error is not None:
            error, self._callback_error = self._callback_error, None
            raise error
        for message in messages:
            if message.error() is not None:
                return self._without_errors(messages)
        return messages  # type: ignore[return-value]

    def _without_errors(self, messages: list[Any]) -> list[KafkaMessage]:
        good: list[KafkaMessage] = []
        for message in messages:
            error = message.error()
            if error is None:
                good.append(message)
            elif error.fatal():
                raise ConnectError(f"Consumer failed: {error.str()}")
            elif error.code() != KafkaError._PARTITION_EOF:
                log.warning("Consumer error (librdkafka retries): %s", error.str())
        return good

    def assignment(self) -> set[TopicPartition]:
        return {TopicPartition(tp.topic, tp.partition) for tp in self._consumer.assignment()}

    def pause(self, partitions: Iterable[TopicPartition]) -> None:
        wanted = set(partitions)
        self._paused |= wanted
        self._apply_pause(wanted & self.assignment(), True)

    def resume(self, partitions: Iterable[TopicPartition]) -> None:
        wanted = set(partitions)
        self._paused -= wanted
        if not self._pause_all:
            self._apply_pause(wanted & self.assignment(), False)

    def set_pause_all(self, paused: bool) -> None:
        if paused == self._pause_all:
            return
        self._pause_all = paused
        assigned = self.assignment()
        self._apply_pause(assigned if paused else assigned - self._paused, paused)

    def _apply_pause(self, partitions: set[TopicPartition], pause: bool) -> None:
        if not partitions:
            return
        kafka = [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        try:
            (self._consumer.pause if pause else self._consumer.resume)(kafka)
        except KafkaException as exc:
            raise connect_error(exc, "Could not pause/resume partitions") from exc

    def seek(self, partition: TopicPartition, offset: int) -> None:
        try:
            self._consumer.seek(KafkaTopicPartition(partition.topic, partition.partition, offset))
        except KafkaException as exc:
            raise connect_error(exc, f"Could not seek {partition.topic}-{partition.partition} to {offset}") from exc

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]:
        kafka = [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        if not kafka:
            return {}
        try:
            result = self._consumer.committed(kafka, timeout)
        except KafkaException as exc:
            raise connect_error(exc, "Could not read committed offsets") from exc
        return {TopicPartition(tp.topic, tp.partition): tp.offset for tp in result if tp.offset >= 0}

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None:
        if not offsets:
            return
        kafka = [KafkaTopicPartition(tp.topic, tp.partition, offset) for tp, offset in offsets.items()]
        try:
            result = self._consumer.commit(offsets=kafka, asynchronous=False)
        except KafkaException as exc:
            raise connect_error(exc, "Offset commit failed") from exc
        failed = [f"{tp.topic}-{tp.partition}: {tp.error.str()}" for tp in result or () if tp.error is not None]
        if failed:
            raise ConnectError("Offset commit failed for " + ", ".join(failed))

    def close(self) -> None:
        self._consumer.close()

    # Rebalance callbacks run inside consume()/close() on the task thread. Exceptions are kept and
    # raised from consume() after the assignment change was applied (what the C wrapper would do anyway,
    # but without losing which callback raised).
    def _on_assign(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        assigned = [TopicPartition(tp.topic, tp.partition) for tp in partitions]
        offsets: Mapping[TopicPartition, int] = {}
        try:
            if self._listener is not None and (assigned or not self._cooperative):
                offsets = self._listener.on_partitions_assigned(assigned)
        except BaseException as exc:
            self._callback_error = exc
        start = [KafkaTopicPartition(tp.topic, tp.partition, offsets.get(tp, OFFSET_INVALID)) for tp in assigned]
        if self._cooperative:
            consumer.incremental_assign(start)
        else:
            consumer.assign(start)
        to_pause = [
            KafkaTopicPartition(tp.topic, tp.partition) for tp in assigned if self._pause_all or tp in self._paused
        ]
        if to_pause:
            consumer.pause(to_pause)

    def _on_revoke(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        self._on_unassign(consumer, partitions, lost=False)

    def _on_lost(self, consumer: Consumer, partitions: list[KafkaTopicPartition]) -> None:
        self._on_unassign(consumer, partitions, lost=True)

    def _on_unassign(self, consumer: Consumer, partitions: list[KafkaTopicPartition], lost: bool) -> None:
        revoked = [TopicPartition(tp.topic, tp.partition) for tp in partitions]
        try:
            if self._listener is not None and revoked:
                if lost:
                    self._listener.on_partitions_lost(revoked)
                else:
                    self._listener.on_partitions_revoked(revoked)
        except BaseException as exc:
            self._callback_error = exc
        if self._cooperative:
            consumer.incremental_unassign(partitions)
        else:
            consumer.unassign()


# -- admin -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopicSpec:
    """A topic to create; -1 means the broker's default (num.partitions, default.replication.factor)."""

    name: str
    partitions: int = -1
    replication_factor: int = -1
    config: Mapping[str, str] = field(default_factory=dict)


_LATEST = OffsetSpec.latest()  # type: ignore[no-untyped-call]

# Errors no retry can mend: give up at once instead of at the deadline.
_PERMANENT_ERRORS = frozenset(
    {
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.CLUSTER_AUTHORIZATION_FAILED,
        KafkaError.GROUP_AUTHORIZATION_FAILED,
        KafkaError.INVALID_REQUEST,
        KafkaError.UNSUPPORTED_VERSION,
        KafkaError._INVALID_ARG,
        KafkaError._UNSUPPORTED_FEATURE,
    }
)
METADATA_REFRESH_TIMEOUT_S = 5.0
_FIRST_RETRY_BACKOFF_S = 0.05
_MAX_RETRY_BACKOFF_S = 1.0


def retry_with_metadata_refresh(
    admin: AdminClient,
    attempt: Callable[[float], T],
    what: str,
    deadline: float,
    stopping: Callable[[], bool] | None = None,
) -> T:
    """`attempt(timeout)` until it succeeds, a fatal or permanent error (raised at once as a ConnectError),
    `stopping()`, or `deadline` (`time.monotonic()`); then its last error as a RetriableError. Messages
    start with `what`.

    For admin calls that go to partition leaders (ListOffsets): a leader moving, a broker restarting or
    a topic created a moment ago fail them for a while, and librdkafka flags neither NOT_LEADER_OR_FOLLOWER
    from ListOffsets nor "No leaders found" as retriable. After a broker restart the admin client also
    keeps sending a stale leader epoch (FENCED_LEADER_EPOCH, "Leader epoch is older than broker epoch")
    until its metadata is refreshed, so each retry first refreshes it by listing the topics, then waits
    a back-off that doubles from 50 ms to 1 s.
    """
    backoff = _FIRST_RETRY_BACKOFF_S
    while True:
        timeout = max(deadline - time.monotonic(), _FIRST_RETRY_BACKOFF_S)
        try:
            return attempt(timeout)
        except KafkaException as exc:
            error = connect_error(exc, what)
            cause: BaseException = exc
            code = _code(exc)
            give_up = code in _PERMANENT_ERRORS or (
                bool(exc.args) and isinstance(exc.args[0], KafkaError) and exc.args[0].fatal()
            )
        except TimeoutError as exc:
            error, cause, give_up = RetriableError(f"{what}: timed out after {timeout:.1f} s"), exc, False
        if give_up:
            raise error from cause
        if time.monotonic() >= deadline or (stopping is not None and stopping()):
            raise (error if isinstance(error, RetriableError) else RetriableError(str(error))) from cause
        log.debug("%s; retrying", error)
        with contextlib.suppress(KafkaException):  # the next attempt reports what is wrong
            admin.list_topics(timeout=max(min(deadline - time.monotonic(), METADATA_REFRESH_TIMEOUT_S), 0.1))
        time.sleep(max(min(backoff, deadline - time.monotonic()), 0.0))
        backoff = min(backoff * 2, _MAX_RETRY_BACKOFF_S)


def admin_result(future: Future[T], timeout: float, what: str) -> T:
    """`future.result(timeout)`, its timeout as a RetriableError naming the call (not a bare TimeoutError)."""
    try:
        return future.result(timeout=timeout)
    except TimeoutError as exc:
        raise RetriableError(f"{what}: timed out after {timeout:.1f} s") from exc


class KafkaAdmin:
    """The admin operations the runtime and the herders need, as blocking calls with timeouts."""

    def __init__(self, admin: AdminClient) -> None:
        self._admin = admin

    def cluster_id(self, timeout: float = 10.0) -> str | None:
        what = "Could not describe the Kafka cluster"
        try:
            cluster = admin_result(self._admin.describe_cluster(request_timeout=timeout), timeout, what)
        except KafkaException as exc:
            raise connect_error(exc, what) from exc
        return str(cluster.cluster_id) if cluster.cluster_id else None

    def broker_count(self, timeout: float = 10.0) -> int:
        try:
            return len(self._admin.list_topics(timeout=timeout).brokers)
        except KafkaException as exc:
            raise connect_error(exc, "Could not list brokers") from exc

    def partition_count(self, topic: str, timeout: float = 10.0) -> int | None:
        """The number of partitions of `topic`, or None if it does not exist.

        Described rather than listed by name: a metadata request naming a topic makes a broker with
        `auto.create.topics.enable=true` (Kafka's default) create it."""
        what = f"Could not describe topic {topic}"
        try:
            future = self._admin.describe_topics(TopicCollection([topic]), request_timeout=timeout)[topic]
            description = admin_result(future, timeout, what)
        except KafkaException as exc:
            if _code(exc) in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC):
                return None
            raise connect_error(exc, what) from exc
        return len(description.partitions)

    def create_topics(self, topics: Iterable[TopicSpec], timeout: float = 30.0) -> set[str]:
        """Create the topics that do not exist; returns the names created by this call."""
        specs = [NewTopic(t.name, t.partitions, t.replication_factor, config=dict(t.config)) for t in topics]
        if not specs:
            return set()
        futures = self._admin.create_topics(specs, operation_timeout=timeout, request_timeout=timeout)
        created: set[str] = set()
        for name, future in futures.items():
            try:
                admin_result(future, timeout, f"Could not create topic {name}")
                created.add(name)
            except KafkaException as exc:
                if (
                    exc.args
                    and isinstance(exc.args[0], KafkaError)
                    and exc.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS
                ):
                    continue
                raise connect_error(exc, f"Could not create topic {name}") from exc
        return created

    def end_offsets(self, partitions: Iterable[TopicPartition], timeout: float = 10.0) -> dict[TopicPartition, int]:
        """The log end offsets; retried within `timeout` while leaders move (`retry_with_metadata_refresh`)."""
        request = {KafkaTopicPartition(tp.topic, tp.partition): _LATEST for tp in partitions}
        if not request:
            return {}
        what = "Could not list end offsets"
        admin = self._admin

        def attempt(remaining: float) -> dict[TopicPartition, int]:
            futures = admin.list_offsets(request, request_timeout=remaining)
            return {
                TopicPartition(tp.topic, tp.partition): int(admin_result(future, remaining, what).offset)
                for tp, future in futures.items()
            }

        return retry_with_metadata_refresh(admin, attempt, what, time.monotonic() + timeout)

    def consumer_group_offsets(self, group: str, timeout: float = 10.0) -> dict[TopicPartition, int]:
        """The committed offsets of `group` (partitions without a committed offset left out)."""
        what = f"Could not list the offsets of consumer group {group}"
        try:
            future = self._admin.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group)], request_timeout=timeout
            )[group]
            listed = admin_result(future, timeout, what)
        except KafkaException as exc:
            if _code(exc) == KafkaError.GROUP_ID_NOT_FOUND:
                return {}
            raise connect_error(exc, what) from exc
        return {
            TopicPartition(tp.topic, tp.partition): int(tp.offset)
            for tp in listed.topic_partitions or ()
            if tp.offset >= 0
        }

    def alter_consumer_group_offsets(
        self, group: str, offsets: Mapping[TopicPartition, int], timeout: float = 10.0
    ) -> None:
        """Set committed offsets; Kafka accepts this only while the group has no active members."""
        if not offsets:
            return
        request = [KafkaTopicPartition(tp.topic, tp.partition, offset) for tp, offset in offsets.items()]
        what = f"Could not alter the offsets of consumer group {group}"
        try:
            future = self._admin.alter_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group, request)], request_timeout=timeout
            )[group]
            result = admin_result(future, timeout, what)
        except KafkaException as exc:
            raise connect_error(exc, what) from exc
        failed = [f"{tp.topic}-{tp.partition}: {tp.error.str()}" for tp in result.topic_partitions or () if tp.error]
        if failed:
            raise ConnectError(f"Could not alter the offsets of consumer group {group}: " + ", ".join(failed))

    def delete_consumer_group(self, group: str, timeout: float = 10.0) -> bool:
        """Delete the group (and so all its committed offsets); False if there was none."""
        what = f"Could not delete consumer group {group}"
        try:
            admin_result(self._admin.delete_consumer_groups([group], request_timeout=timeout)[group], timeout, what)
        except KafkaException as exc:
            if _code(exc) == KafkaError.GROUP_ID_NOT_FOUND:
                return False
            raise connect_error(exc, what) from exc
        return True

    def close(self) -> None:
        # AdminClient has no close in confluent_kafka; its resources go with the object.
        self._admin = None  # type: ignore[assignment]


def _code(exc: KafkaException) -> int | None:
    error = exc.args[0] if exc.args else None
    return error.code() if isinstance(error, KafkaError) else None
