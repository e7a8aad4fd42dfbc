"""Row changes and their positions from the stream's messages: the transaction's id and commit time from its
Begin, each change's own LSN, and the last commit before it."""

from __future__ import annotations

from connectors.cdc.postgres.changes import (
    POSTGRES_EPOCH_US,
    ChangeTracker,
    RowChange,
    TableTruncate,
    TransactionEnd,
)
from connectors.cdc.postgres.pgoutput import Begin, Column, Commit, Delete, Insert, Message, Relation, Truncate
from connectors.cdc.postgres.replication import WalMessage

RELATION = Relation(7, "public", "t", "d", (Column("id", 23, -1, True),))


def wal(lsn: int, message: Message) -> WalMessage:
    return WalMessage(lsn, lsn, message)


def test_changes_carry_their_transaction_their_lsn_and_the_previous_commit() -> None:
    tracker = ChangeTracker(last_commit_lsn=50)
    seen = [
        tracker.feed(wal(100, Begin(130, 1_000_000, 555))),
        tracker.feed(wal(0, RELATION)),  # Relations come with no position of their own
        tracker.feed(wal(110, Insert(7, ("1",)))),
        tracker.feed(wal(120, Delete(7, ("1",), True))),
        tracker.feed(wal(140, Commit(0, 130, 140, 1_000_000))),
        tracker.feed(wal(150, Begin(160, 2_000_000, 556))),
        tracker.feed(wal(155, Truncate(False, False, (7,)))),
    ]
    assert seen[0] is None and seen[1] is None
    insert, delete, end, _, truncate = seen[2:]
    assert isinstance(insert, RowChange) and insert.operation == "INSERT" and insert.relation == RELATION
    assert (insert.position.lsn, insert.position.commit_lsn, insert.position.tx_id) == (110, 50, 555)
    assert insert.position.commit_time_us == 1_000_000 + POSTGRES_EPOCH_US
    assert isinstance(delete, RowChange) and delete.old == ("1",) and delete.position.lsn == 120
    assert isinstance(end, TransactionEnd) and end.lsn == 140
    assert isinstance(truncate, TableTruncate) and truncate.relations == (RELATION,)
    assert (truncate.position.commit_lsn, truncate.position.tx_id) == (140, 556)
