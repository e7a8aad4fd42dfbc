"""The exactly-once source task's producer (KIP-618): its librdkafka settings (`transactional_config`) and
`KafkaTransactionalProducer`, whose transaction calls raise the runtime's errors.

The task thread makes the transaction calls; `produce`/`poll`/`flush` may come from any thread, as on any
producer. `KafkaClients` builds it, and uses `transactional_config` to fence zombies too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import KafkaException, Producer

from connect.runtime.kafka.errors import transaction_error

# librdkafka's and Kafka's default; the transactional producer's `message.timeout.ms` must stay within it.
DEFAULT_TRANSACTION_TIMEOUT_MS = 60000


def transactional_config(config: Mapping[str, str], transactional_id: str) -> dict[str, str]:
    """`config` (a producer's librdkafka settings) made transactional with `transactional_id`."""
    # Forced whatever the layers said (Connect's own defaults turn idempotence off), as Kafka Connect does.
    settings = {**config, "transactional.id": transactional_id, "enable.idempotence": "true", "acks": "all"}
    transaction_timeout = int(settings.get("transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS))
    settings["transaction.timeout.ms"] = str(transaction_timeout)
    if int(settings.get("message.timeout.ms", transaction_timeout)) > transaction_timeout:
        settings["message.timeout.ms"] = str(transaction_timeout)
    return settings


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
            raise transaction_error(exc, "begin a transaction", self.transactional_id) from exc

    def commit_transaction(self, timeout: float = -1) -> None:
        self._call(super().commit_transaction, timeout, "commit the transaction")

    def abort_transaction(self, timeout: float = -1) -> None:
        self._call(super().abort_transaction, timeout, "abort the transaction")

    def _call(self, operation: Callable[[float], None], timeout: float, what: str) -> None:
        try:
            operation(timeout)
        except KafkaException as exc:
            raise transaction_error(exc, what, self.transactional_id) from exc
