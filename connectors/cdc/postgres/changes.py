"""The stream's messages as row changes, each with its position as Debezium's
`PostgresStreamingChangeEventSource` records it: the change's own LSN (where the server said the message
starts), the transaction's id and commit time (from its Begin), and the last commit seen before it (the
previous transaction's; a resumed stream starts from the offset's `lsn_commit`).

Relations are remembered by id: the server sends a table's Relation before the table's first change in a
stream and again after the table changed, so a change always finds its table's current columns.
"""

from __future__ import annotations

import dataclasses
import time
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
    TypeInfo,
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
    """One TRUNCATE message, of one or more tables. Debezium makes an event per table, and only the last
    counts as completely processed: the others' offsets keep `processed_before` as `lsn_proc`."""

    relations: tuple[Relation, ...]
    position: ChangePosition
    processed_before: int | None


@dataclass(frozen=True)
class TransactionBegin:
    """A transaction's first message: `position` has its xid and commit time, and the Begin's own LSN."""

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


Change = RowChange | TableTruncate | TransactionBegin | TransactionEnd | EmittedMessage


@dataclass
class ChangeTracker:
    last_commit_lsn: int | None = None
    relations: dict[int, Relation] = field(default_factory=dict)
    # The last message completely processed (Debezium's `lastCompletelyProcessedLsn`): Relation and Type
    # messages do not count, as Debezium's decoder keeps them to itself, nor does a transactional logical
    # decoding message (Debezium's `LogicalDecodingMessage.isLastEventForLsn`).
    processed_lsn: int | None = None
    # The commit time of the last transaction seen: Debezium's `source` keeps it for a non-transactional
    # logical decoding message, which has none of its own (None: none seen, the message gets the time now).
    last_commit_time_us: int | None = None
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
        """The change `wal` carries, if any (Origin, Relation and Type messages only update what is known)."""
        processed_before, message = self.processed_lsn, wal.message
        if not isinstance(message, (Relation, TypeInfo)) and not (
            isinstance(message, LogicalMessage) and message.transactional
        ):
            self.processed_lsn = wal.data_start
        return self._change(wal, processed_before)

    def _change(self, wal: WalMessage, processed_before: int | None) -> Change | None:
        message, lsn = wal.message, wal.data_start
        if isinstance(message, Begin):
            self._begin, self._origin = message, None
            return TransactionBegin(self._position(lsn))
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
            return TableTruncate(relations, self._position(lsn), processed_before)
        elif isinstance(message, LogicalMessage):
            if message.transactional:
                return EmittedMessage(message, self._position(lsn))
            # Outside any transaction: Debezium commits it as it comes (`commitMessage`), before its record.
            self.last_commit_lsn = lsn
            commit_time = self.last_commit_time_us or time.time_ns() // 1000
            return EmittedMessage(message, dataclasses.replace(self._position(lsn), commit_time_us=commit_time))
        elif isinstance(message, Commit):
            position = self._position(lsn)
            self.last_commit_lsn, self.last_commit_time_us, self._begin = lsn, position.commit_time_us, None
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

    @property
    def in_stored_transaction(self) -> bool:
        """The message last let through belongs to a transaction stored whole before (its Begin or Commit)."""
        return self._skipping_transaction and not self._done

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
