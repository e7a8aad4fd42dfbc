"""What the rest of the runtime sees of Kafka clients: Protocols shaped like confluent_kafka's objects.

`KafkaMessage` (a consumed message or a delivery report), `ProducerLike` and `TransactionalProducer`
(confluent_kafka.Producer and its transactional subclass satisfy them unwrapped), `SinkConsumer` and the
`RebalanceListener` it calls back. No confluent_kafka here: unit tests pass fakes that implement them.
Threading: a producer may be used from any thread; a `SinkConsumer` belongs to one task thread, and its
listener's callbacks run inside `consume` on that thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from connect.api.records import TopicPartition


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


class ColumnNotBytesError(TypeError):
    """A batch producer's `produce_values` refused a column holding something other than bytes (None: a
    tombstone or a null key), before it enqueued any of it: send those records one by one."""


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

    def lags(self, *, fresh: bool, timeout: float) -> dict[TopicPartition, int]:
        """Per assigned partition with a position: end offset - position. `fresh`: ask the brokers for the
        end offsets (waiting up to `timeout`), else use those the last fetches brought."""
        ...

    def set_pause_all(self, paused: bool) -> None:
        """Pause every assigned partition, including ones assigned later, until called with False."""
        ...

    def seek(self, partition: TopicPartition, offset: int) -> None: ...

    def committed(self, partitions: Iterable[TopicPartition], timeout: float) -> dict[TopicPartition, int]: ...

    def commit(self, offsets: Mapping[TopicPartition, int], timeout: float) -> None:
        """Commit synchronously; RetriableError for a rebalance in progress, ConnectError otherwise."""
        ...

    def close(self) -> None: ...
