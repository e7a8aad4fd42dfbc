"""Source offsets of PostgreSQL change events in Debezium's maps (`PostgresPartition`,
`PostgresOffsetContext`), so Debezium and kconnect resume from each other's offsets on the same slot.

The partition is `{"server": <topic.prefix>}`. The offset holds the WAL positions: `lsn` (the last event),
`lsn_proc` (the last event completely processed) and `lsn_commit` (the last commit), the transaction (`txId`,
`ts_usec`, its commit time in microseconds), the kind of the last message, and while a snapshot runs its
marks. A restart streams from `lsn_proc` (else `lsn`); the slot is confirmed up to `lsn_commit` (else
`lsn_proc`): a transaction is released to the server only once all of it is in Kafka.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connect.api.errors import ConnectError

SERVER_PARTITION_KEY = "server"
# Offset keys, as Debezium writes them.
LSN, LSN_PROC, LSN_COMMIT = "lsn", "lsn_proc", "lsn_commit"
TX_ID, TIMESTAMP_US, XMIN, MESSAGE_TYPE = "txId", "ts_usec", "xmin", "messageType"
SNAPSHOT, LAST_SNAPSHOT_RECORD, SNAPSHOT_COMPLETED = "snapshot", "last_snapshot_record", "snapshot_completed"
TRANSACTION_ID = "transaction_id"
TRANSACTION_ORDER_PREFIX = "transaction_data_collection_order_"
INCREMENTAL_SNAPSHOT_KEYS = ("incremental_snapshot_collections", "incremental_snapshot_primary_key")
INITIAL = "INITIAL"


def source_partition(server: str) -> dict[str, str]:
    return {SERVER_PARTITION_KEY: server}


def _number(value: Any) -> int | None:
    """LSNs, transaction ids and times are stored as JSON numbers."""
    return None if value is None else int(value)


def _flag(value: Any) -> bool:
    return value is True or value == "true"


@dataclass(frozen=True)
class PostgresOffset:
    lsn: int | None
    lsn_proc: int | None = None
    lsn_commit: int | None = None
    tx_id: int | None = None
    commit_time_us: int | None = None
    message_type: str | None = None  # INSERT, UPDATE, DELETE, TRUNCATE, MESSAGE, BEGIN, COMMIT, ORIGIN
    xmin: int | None = None
    snapshot: str | None = None  # INITIAL (Debezium's legacy `true`), BLOCKING or INCREMENTAL while one runs
    last_snapshot_record: bool = False
    snapshot_completed: bool = False
    transaction_id: str | None = None  # with transaction metadata: `<xid>:<lsn>`
    table_orders: Mapping[str, int] | None = None  # with transaction metadata: events per `schema.table`

    @property
    def resume_lsn(self) -> int | None:
        """Where streaming starts again after a restart."""
        return self.lsn_proc if self.lsn_proc is not None else self.lsn

    @property
    def confirmable_lsn(self) -> int | None:
        """How far the slot may be confirmed once this offset is committed."""
        return self.lsn_commit if self.lsn_commit is not None else self.lsn_proc

    @property
    def in_snapshot(self) -> bool:
        return self.snapshot is not None

    def to_map(self) -> dict[str, Any]:
        offset: dict[str, Any] = {
            TIMESTAMP_US: self.commit_time_us,
            TX_ID: self.tx_id,
            LSN: self.lsn,
            LSN_PROC: self.lsn_proc,
            LSN_COMMIT: self.lsn_commit,
            MESSAGE_TYPE: self.message_type,
        }
        if self.xmin is not None:
            offset[XMIN] = self.xmin
        if self.snapshot is not None:
            offset[SNAPSHOT] = self.snapshot
            offset[LAST_SNAPSHOT_RECORD] = self.last_snapshot_record
            offset[SNAPSHOT_COMPLETED] = self.snapshot_completed
        offset[TRANSACTION_ID] = self.transaction_id
        for table, order in (self.table_orders or {}).items():
            offset[TRANSACTION_ORDER_PREFIX + table] = order
        return {key: value for key, value in offset.items() if value is not None}

    @classmethod
    def from_map(cls, offset: Mapping[str, Any]) -> PostgresOffset:
        """Debezium's or kconnect's offset map. An incremental snapshot in flight keeps Java-serialized
        keys that kconnect cannot read: refused, with what to do."""
        if any(offset.get(key) for key in INCREMENTAL_SNAPSHOT_KEYS):
            raise ConnectError(
                "The stored offset holds an incremental snapshot in progress, whose position Debezium keeps in "
                "Java's serialization: let it finish (or stop it with a stop-snapshot signal) before moving the "
                "connector to kconnect"
            )
        snapshot = offset.get(SNAPSHOT)
        if _flag(snapshot):  # before snapshot types, the mark was a boolean
            snapshot = INITIAL
        elif snapshot is False:
            snapshot = None
        prefix = TRANSACTION_ORDER_PREFIX
        orders = {key[len(prefix) :]: int(value) for key, value in offset.items() if key.startswith(prefix)}
        return cls(
            lsn=_number(offset.get(LSN)),
            lsn_proc=_number(offset.get(LSN_PROC)),
            lsn_commit=_number(offset.get(LSN_COMMIT)),
            tx_id=_number(offset.get(TX_ID)),
            commit_time_us=_number(offset.get(TIMESTAMP_US)),
            message_type=offset.get(MESSAGE_TYPE),
            xmin=_number(offset.get(XMIN)),
            snapshot=None if snapshot is None else str(snapshot),
            last_snapshot_record=_flag(offset.get(LAST_SNAPSHOT_RECORD, False)),
            snapshot_completed=_flag(offset.get(SNAPSHOT_COMPLETED, False)),
            transaction_id=offset.get(TRANSACTION_ID),
            table_orders=orders or None,
        )
