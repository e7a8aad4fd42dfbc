"""Row changes and their positions from the stream's messages: the transaction's id and commit time from its
Begin, each change's own LSN, and the last commit before it."""

from __future__ import annotations

from connectors.cdc.postgres.changes import (
    POSTGRES_EPOCH_US,
    ChangeTracker,
    ResumeFilter,
    RowChange,
    TableTruncate,
    TransactionBegin,
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
    begin = seen[0]
    assert isinstance(begin, TransactionBegin) and seen[1] is None
    assert (begin.position.lsn, begin.position.commit_lsn, begin.position.tx_id) == (100, 50, 555)
    insert, delete, end, _, truncate = seen[2:]
    assert isinstance(insert, RowChange) and insert.operation == "INSERT" and insert.relation == RELATION
    assert (insert.position.lsn, insert.position.commit_lsn, insert.position.tx_id) == (110, 50, 555)
    assert insert.position.commit_time_us == 1_000_000 + POSTGRES_EPOCH_US
    assert isinstance(delete, RowChange) and delete.old == ("1",) and delete.position.lsn == 120
    assert isinstance(end, TransactionEnd) and end.lsn == 140
    assert isinstance(truncate, TableTruncate) and truncate.relations == (RELATION,)
    assert (truncate.position.commit_lsn, truncate.position.tx_id) == (140, 556)
    assert (truncate.position.lsn, truncate.processed_before) == (155, 150)  # its Begin's: done before it


def test_a_resumed_stream_drops_what_was_stored_and_keeps_everything_new() -> None:
    """Stored: transaction 0 whole (its commit ends at 200) and transaction 1 up to its change at 310.
    Transaction 2 commits later, though one of its changes sits at a lower LSN (305): it is new."""
    resume = ResumeFilter(commit_lsn=200, processed_lsn=310)
    stream = [
        (wal(100, Begin(190, 0, 1)), True),
        (wal(150, Insert(7, ("a",))), False),
        (wal(200, Commit(0, 190, 200, 0)), True),
        (wal(290, Begin(330, 0, 2)), True),
        (wal(0, RELATION), True),
        (wal(300, Insert(7, ("b",))), False),
        (wal(310, Insert(7, ("c",))), False),
        (wal(320, Insert(7, ("d",))), True),
        (wal(340, Commit(0, 330, 340, 0)), True),
        (wal(350, Begin(360, 0, 3)), True),
        (wal(305, Insert(7, ("e",))), True),
    ]
    assert [resume.keeps(message) for message, _ in stream] == [kept for _, kept in stream]
    assert ResumeFilter(None, None).keeps(wal(1, Insert(7, ("x",))))


def test_after_a_heartbeat_s_offset_the_next_transaction_is_kept_whole() -> None:
    """A heartbeat stores a commit's position: that transaction was stored, the next one not at all, even its
    changes written before that commit (transactions interleave in the WAL)."""
    resume = ResumeFilter(commit_lsn=200, processed_lsn=200, processed_is_commit=True)
    stream = [
        (wal(100, Begin(190, 0, 1)), True),
        (wal(150, Insert(7, ("a",))), False),
        (wal(200, Commit(0, 190, 200, 0)), True),
        (wal(210, Begin(260, 0, 2)), True),
        (wal(180, Insert(7, ("b",))), True),
        (wal(250, Insert(7, ("c",))), True),
    ]
    assert [resume.keeps(message) for message, _ in stream] == [kept for _, kept in stream]
