"""Fakes for exactly-once source tasks: a transaction log standing in for the broker, its offset store and a
transactional producer that fences older producers of the same transactional id."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect.api import ConnectError
from connect.runtime.kafka import ProducerFencedError, TransactionAbortRequiredError
from connect.runtime.stores.kafka_offset_store import OffsetRecord
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from tests.support.worker_fakes import FakeProducer, Produced

OFFSETS_TOPIC = "connect-offsets"
TRANSACTIONAL_ID = "cluster-src-0"


class FakeTransactionLog:
    """The broker side: committed records, the offsets a read_committed reader sees, producer epochs."""

    def __init__(self) -> None:
        self.committed: list[list[Produced]] = []  # one list per committed transaction
        self.aborted: list[list[Produced]] = []
        self.epochs: dict[str, int] = {}
        self.offsets = TransactionalMemoryOffsetStore(self)

    def data(self) -> list[str]:
        """Committed values of data topics, in commit order."""
        return [
            r.value.decode() for txn in self.committed for r in txn if r.topic != OFFSETS_TOPIC and r.value is not None
        ]


class TransactionalMemoryOffsetStore(MemoryOffsetStore):
    """Offsets a reader sees only once the transaction carrying them committed."""

    topic = OFFSETS_TOPIC

    def __init__(self, log: FakeTransactionLog) -> None:
        super().__init__()
        self.log = log

    def offset_records(self, values: Mapping[bytes, bytes | None]) -> list[OffsetRecord]:
        return [OffsetRecord(OFFSETS_TOPIC, 0, key, value) for key, value in values.items()]

    def set(self, values: Mapping[bytes, bytes | None]) -> None:
        raise AssertionError("an exactly-once task must write offsets in its transaction, not through set()")


class FakeTransactionalProducer(FakeProducer):
    """FakeProducer plus transactions: `init_transactions` fences older producers with the same id."""

    transaction_timeout_ms = 60_000

    def __init__(self, log: FakeTransactionLog, transactional_id: str = TRANSACTIONAL_ID, **kw: Any) -> None:
        super().__init__(**kw)
        self.log = log
        self.transactional_id = transactional_id
        self.epoch: int | None = None
        self.transaction: list[Produced] | None = None
        self.fail_next_commit = False
        self.calls: list[str] = []

    def _check(self) -> None:
        if self.epoch is None or self.log.epochs.get(self.transactional_id) != self.epoch:
            raise ProducerFencedError(f"{self.transactional_id} fenced by a newer producer")

    def init_transactions(self, timeout: float = -1) -> None:
        self.calls.append("init")
        self.epoch = self.log.epochs.get(self.transactional_id, -1) + 1
        self.log.epochs[self.transactional_id] = self.epoch

    def begin_transaction(self) -> None:
        self._check()
        assert self.transaction is None, "begin_transaction inside a transaction"
        self.calls.append("begin")
        self.transaction = []

    def produce(
        self, topic: str, value: Any = None, key: Any = None, partition: int = -1, *args: Any, **kw: Any
    ) -> None:
        self._check()
        assert self.transaction is not None, "produce outside a transaction"
        super().produce(topic, value, key, partition, *args, **kw)
        self.transaction.append(self.in_flight[-1])

    def flush(self, timeout: float = -1) -> int:
        if self.transaction is not None:
            self._check()
        return super().flush(timeout)

    def commit_transaction(self, timeout: float = -1) -> None:
        self._check()
        assert self.transaction is not None, "commit without a transaction"
        self.flush(timeout)
        if self.fail_next_commit or any(r.value in self.fail_values for r in self.transaction):
            self.fail_next_commit = False
            raise TransactionAbortRequiredError("a record of the transaction was refused")
        self.calls.append("commit")
        transaction, self.transaction = self.transaction, None
        self.log.committed.append(transaction)
        with self.log.offsets._lock:
            for record in transaction:
                if record.topic == OFFSETS_TOPIC and record.key is not None:
                    if record.value is None:
                        self.log.offsets._data.pop(record.key, None)
                    else:
                        self.log.offsets._data[record.key] = record.value

    def abort_transaction(self, timeout: float = -1) -> None:
        self._check()
        if self.transaction is None:
            raise ConnectError("Operation not valid in state Ready")  # librdkafka's _STATE
        self.calls.append("abort")
        self.log.aborted.append(self.transaction)
        self.transaction = None
