"""confluent_kafka's errors as the runtime's: `ConnectError`, `RetriableError` when Kafka says a retry may
help, and the two transaction outcomes a caller must tell apart (`ProducerFencedError`,
`TransactionAbortRequiredError`).

Pure functions, called on whichever thread caught the exception.
"""

from __future__ import annotations

from confluent_kafka import KafkaError, KafkaException

from connect.api.errors import ConnectError, RetriableError

# How librdkafka reports a transactional producer that a newer instance (same transactional.id) fenced:
# `_FENCED` from the transaction calls and flush (it normalizes PRODUCER_FENCED and INVALID_PRODUCER_EPOCH).
FENCED_CODES = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH})

# Delivery reports that a write may succeed if sent again: the broker was down or unreachable, the partition's
# leader was moving, too few replicas were in sync, or the write timed out (`message.timeout.ms`). Java's
# producer reports these as RetriableExceptions; confluent_kafka's delivery-report errors never say
# `retriable()` (only errors of the newer rd_kafka_error_t API do), so they are named here.
RETRIABLE_DELIVERY_CODES = frozenset(
    {
        KafkaError._MSG_TIMED_OUT,
        KafkaError._TIMED_OUT,
        KafkaError._TIMED_OUT_QUEUE,
        KafkaError._TRANSPORT,
        KafkaError._ALL_BROKERS_DOWN,
        KafkaError._RESOLVE,
        KafkaError._NODE_UPDATE,
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.BROKER_NOT_AVAILABLE,
        KafkaError.REPLICA_NOT_AVAILABLE,
        KafkaError.NOT_ENOUGH_REPLICAS,
        KafkaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        KafkaError.REQUEST_TIMED_OUT,
        KafkaError.NETWORK_EXCEPTION,
        KafkaError.UNKNOWN_TOPIC_OR_PART,
        KafkaError.KAFKA_STORAGE_ERROR,
        KafkaError.UNKNOWN_LEADER_EPOCH,
        KafkaError.FENCED_LEADER_EPOCH,
    }
)


class ProducerFencedError(ConnectError):
    """A transactional producer was fenced: a newer one with the same transactional id exists (fatal)."""


class TransactionAbortRequiredError(ConnectError):
    """The open transaction failed (e.g. a record was refused) and must be aborted."""


def connect_error(exc: BaseException, what: str) -> ConnectError:
    """A confluent_kafka exception as a ConnectError (Retriable when Kafka says so)."""
    error = exc.args[0] if isinstance(exc, KafkaException) and exc.args else None
    if isinstance(error, KafkaError) and error.retriable():
        return RetriableError(f"{what}: {error.str()}")
    return ConnectError(f"{what}: {describe(exc)}")


def delivery_error(error: KafkaError, what: str) -> ConnectError:
    """A failed delivery report as a ConnectError: Retriable for the failures a new attempt may get past."""
    text = f"{what}: {error.str()}"
    if error.retriable() or error.code() in RETRIABLE_DELIVERY_CODES:
        return RetriableError(text)
    return ConnectError(text)


def transaction_error(exc: KafkaException, what: str, transactional_id: str) -> ConnectError:
    """A failed transaction call as `ProducerFencedError`, `TransactionAbortRequiredError`, `RetriableError`
    or (fatal) ConnectError."""
    error = exc.args[0] if exc.args else None
    text = f"Could not {what} (transactional.id {transactional_id}): {describe(exc)}"
    if not isinstance(error, KafkaError):
        return ConnectError(text)
    if error.code() in FENCED_CODES:
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
        if isinstance(error, KafkaError) and error.code() in FENCED_CODES:
            return current
        current = current.__cause__ or current.__context__
    return None


def describe(exc: BaseException) -> str:
    """Kafka's own text for a KafkaException (its KafkaError's `str()`), else `str(exc)`."""
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return str(exc.args[0].str())
    return str(exc)


def error_code(exc: KafkaException) -> int | None:
    """The KafkaError code `exc` carries, if any."""
    error = exc.args[0] if exc.args else None
    return error.code() if isinstance(error, KafkaError) else None
