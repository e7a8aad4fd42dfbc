"""The stream's messages as row changes, each with its position as Debezium's
`PostgresStreamingChangeEventSource` records it: the change's own LSN (where the server said the message
starts), the transaction's id and commit time (from its Begin), and the last commit seen before it (the
previous transaction's; a resumed stream starts from the offset's `lsn_commit`).

Relations are remembered by id: the server sends a table's Relation before the table's first change in a
stream and again after the table changed, so a change always finds its table's current columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from connectors.cdc.postgres.pgoutput import (
    Begin,
    Commit,
    Delete,
    Insert,
    LogicalMessage,
    Origin,
    Relation,
    Truncate,
    Tuple,
    Update,
)
from connectors.cdc.postgres.replication import WalMessage
from connectors.cdc.postgres.source_info import ChangePosition

# PostgreSQL counts time from 2000-01-01 00:00 UTC.
POSTGRES_EPOCH_US = 946_684_800 * 1_000_000


@dataclass(frozen=True)
class RowChange:
    relation: Relation
    operation: str  # INSERT, UPDATE or DELETE: Debezium's messageType
    new: Tuple | None
    old: Tuple | None
    position: ChangePosition


@dataclass(frozen=True)
class TableTruncate:
    relations: tuple[Relation, ...]
    position: ChangePosition


@dataclass(frozen=True)
class TransactionEnd:
    """A commit: everything of the transaction has been seen; `lsn` is where a resumed stream continues."""

    lsn: int
    position: ChangePosition


@dataclass(frozen=True)
class EmittedMessage:
    message: LogicalMessage
    position: ChangePosition


Change = RowChange | TableTruncate | TransactionEnd | EmittedMessage


@dataclass
class ChangeTracker:
    last_commit_lsn: int | None = None
    relations: dict[int, Relation] = field(default_factory=dict)
    _begin: Begin | None = None
    _origin: Origin | None = None

    def _position(self, lsn: int) -> ChangePosition:
        begin = self._begin
        return ChangePosition(
            commit_time_us=(begin.commit_time_us + POSTGRES_EPOCH_US) if begin is not None else 0,
            tx_id=begin.xid if begin is not None else None,
            lsn=lsn,
            commit_lsn=self.last_commit_lsn,
            origin=self._origin.name if self._origin is not None else None,
            origin_lsn=self._origin.commit_lsn if self._origin is not None else None,
        )

    def feed(self, wal: WalMessage) -> Change | None:
        """The change `wal` carries, if any (Begin, Relation and Type messages only update what is known)."""
        message, lsn = wal.message, wal.data_start
        if isinstance(message, Begin):
            self._begin, self._origin = message, None
        elif isinstance(message, Origin):
            self._origin = message
        elif isinstance(message, Relation):
            self.relations[message.relation_id] = message
        elif isinstance(message, Insert):
            return RowChange(self.relations[message.relation_id], "INSERT", message.new, None, self._position(lsn))
        elif isinstance(message, Update):
            relation = self.relations[message.relation_id]
            return RowChange(relation, "UPDATE", message.new, message.old, self._position(lsn))
        elif isinstance(message, Delete):
            return RowChange(self.relations[message.relation_id], "DELETE", None, message.old, self._position(lsn))
        elif isinstance(message, Truncate):
            relations = tuple(self.relations[relation_id] for relation_id in message.relation_ids)
            return TableTruncate(relations, self._position(lsn))
        elif isinstance(message, LogicalMessage):
            return EmittedMessage(message, self._position(lsn))
        elif isinstance(message, Commit):
            position = self._position(lsn)
            self.last_commit_lsn, self._begin = lsn, None
            return TransactionEnd(lsn, position)
        return None


@dataclass
class ResumeFilter:
    """Drops the changes a resumed stream sends again, as Debezium's `WalPositionLocator` does.

    The server resumes at the slot's confirmed position, which may lie before the stored offset, and always
    resends a transaction whole. The offset names the last change stored (`lsn_proc`) and the end of the
    commit before that change's transaction (`lsn_commit`): a transaction whose commit record starts before
    that was stored whole; the next one is the one the stored change belongs to, stored up to that change
    (LSNs grow within a transaction); everything after it is new. Begin, Commit and Relation messages always
    pass: they keep the positions right.
    """

    commit_lsn: int | None
    processed_lsn: int | None
    # The stored offset is a commit's (a heartbeat's): that transaction was stored whole, the next not at all.
    processed_is_commit: bool = False
    _skipping_transaction: bool = False
    _resumed: bool = False
    _done: bool = False

    def keeps(self, wal: WalMessage) -> bool:
        message = wal.message
        if self._done or self.processed_lsn is None:
            return True
        if isinstance(message, Begin):
            stored_whole = self.commit_lsn is not None and message.final_lsn < self.commit_lsn
            self._skipping_transaction = stored_whole
            self._resumed = self._resumed or not stored_whole
            self._done = self._resumed and self.processed_is_commit
            return True
        if isinstance(message, Commit):
            self._done = self._resumed
            return True
        if isinstance(message, (Relation, Origin)):
            return True
        return not self._skipping_transaction and wal.data_start > self.processed_lsn
