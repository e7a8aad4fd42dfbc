"""The replication stream of a real PostgreSQL 15 server: a new slot streams every transaction after its
consistent point; confirming a commit moves the slot, and a new stream resumes after it without repeating
it; values come in the text formats the decoders expect whatever the database's own settings."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from connectors.cdc.postgres.pgoutput import Commit, Insert, Message
from connectors.cdc.postgres.replication import CreatedSlot, ReplicationStream, WalMessage
from connectors.cdc.postgres.snapshot import SnapshotReader
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.replication_slots import drop_slot
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def database(postgres_database: SqlDatabase) -> Iterator[SqlDatabase]:
    """A table in a publication; the test's slot is dropped afterwards (a slot keeps its database)."""
    postgres_database.execute(
        "CREATE TABLE events (id int PRIMARY KEY, at timestamptz, day date, raw bytea, amount numeric(10,2))",
        "CREATE PUBLICATION kc_pub FOR TABLE events",
    )
    yield postgres_database
    drop_slot(postgres_database, slot(postgres_database))


def slot(database: SqlDatabase) -> str:
    return f"kc_{database.name}"


def open_stream(database: SqlDatabase) -> ReplicationStream:
    return ReplicationStream(database.connection_params(), slot(database), ["kc_pub"], status_interval_s=1.0)


def read_transactions(stream: ReplicationStream, count: int, timeout: float = 30) -> list[WalMessage]:
    found: list[WalMessage] = []
    deadline = time.monotonic() + timeout
    while sum(isinstance(m.message, Commit) for m in found) < count:
        assert time.monotonic() < deadline, f"{count} transactions not streamed in {timeout:.0f} s: {found}"
        found += stream.read(1.0)
    return found


def inserted_ids(messages: list[WalMessage]) -> list[str | None]:
    inserts: list[Message] = [m.message for m in messages if isinstance(m.message, Insert)]
    return [str(m.new[0]) for m in inserts if isinstance(m, Insert)]


def confirmed_flush(database: SqlDatabase) -> int:
    (row,) = database.rows(
        f"SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = '{slot(database)}'"
    )
    return int(str(row[0]))


def test_a_confirmed_commit_is_not_streamed_again_and_an_unconfirmed_one_is(database: SqlDatabase) -> None:
    stream = open_stream(database)
    try:
        created = stream.create_slot()
        database.execute("INSERT INTO events (id) VALUES (1), (2)")
        database.execute("INSERT INTO events (id) VALUES (3)")
        stream.start(created.consistent_point)
        first = read_transactions(stream, 2)
        assert inserted_ids(first) == ["1", "2", "3"]
        commits = [m for m in first if isinstance(m.message, Commit)]
        assert all(m.data_start > created.consistent_point for m in first if isinstance(m.message, Commit))

        # Kafka has the first transaction only: the slot is confirmed up to its commit.
        first_commit = commits[0].message
        assert isinstance(first_commit, Commit)
        stream.confirm_later(first_commit.end_lsn)
        stream.confirm_later(first_commit.end_lsn - 1)  # never backwards
        stream.read(0.1)
        wait_until(lambda: confirmed_flush(database) >= first_commit.end_lsn, 10, "the slot to be confirmed")
        assert stream.confirmed == first_commit.end_lsn
    finally:
        stream.close()

    resumed = open_stream(database)
    try:
        resumed.start(0)  # from where the slot was confirmed
        again = read_transactions(resumed, 1)
        assert inserted_ids(again) == ["3"]
    finally:
        resumed.close()


def test_values_come_in_iso_utc_hex_text_whatever_the_database_s_own_settings(database: SqlDatabase) -> None:
    name = database.name
    database.execute(
        f"ALTER DATABASE {name} SET TimeZone = 'Asia/Tokyo'",
        f"ALTER DATABASE {name} SET DateStyle = 'SQL, DMY'",
        f"ALTER DATABASE {name} SET bytea_output = 'escape'",
        f"ALTER DATABASE {name} SET extra_float_digits = 0",
    )
    stream = open_stream(database)
    try:
        created = stream.create_slot()
        database.execute("INSERT INTO events VALUES (1, '2024-03-01 12:34:56.789+02', '2024-03-01', '\\x00ff10', 12.5)")
        stream.start(created.consistent_point)
        (insert,) = [m.message for m in read_transactions(stream, 1) if isinstance(m.message, Insert)]
        assert insert.new == ("1", "2024-03-01 10:34:56.789+00", "2024-03-01", "\\x00ff10", "12.50")
    finally:
        stream.close()


def slot_being_made(database: SqlDatabase) -> bool:
    """The walsender of the test's database waits on a transaction lock: making a slot, it waits for the
    transactions already running to end."""
    name = database.name
    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender' "
        f"AND datname = '{name}' AND wait_event_type = 'Lock'"
    )
    return int(str(database.rows(query)[0][0])) > 0


def test_a_snapshot_on_the_slot_s_exported_snapshot_and_the_stream_from_its_consistent_point_meet_exactly(
    database: SqlDatabase,
) -> None:
    """Debezium's exportedSnapshotShouldNotSkipRecordOfParallelTx: rows committed before the slot is made are
    in the snapshot, rows committed after in the stream, and a transaction open while the slot is made (the
    slot waits for it) in one of the two: every row exactly once."""
    database.execute("INSERT INTO events (id) VALUES (1), (2)")
    engine = sa.create_engine(database.url)
    stream = open_stream(database)
    try:
        with engine.connect() as open_transaction:
            open_transaction.execute(sa.text("INSERT INTO events (id) VALUES (3)"))  # not committed yet
            made: list[CreatedSlot] = []
            maker = threading.Thread(target=lambda: made.append(stream.create_slot()))
            maker.start()
            wait_until(lambda: slot_being_made(database), 10, "the slot to wait for the open transaction")
            open_transaction.commit()
            maker.join(10)
        (created,) = made
        database.execute("INSERT INTO events (id) VALUES (4)")
        reader = SnapshotReader(database.connection_params(), created.snapshot_name)
        try:
            from_snapshot = [str(row[0]) for row in reader.rows("public", "events", ["id"])]
        finally:
            reader.close()
        stream.start(created.consistent_point)
        streamed: list[WalMessage] = []

        def row_four_streamed() -> bool:
            streamed.extend(stream.read(0.5))
            return "4" in inserted_ids(streamed)

        wait_until(row_four_streamed, 30, "row 4 to be streamed")  # in commit order: after row 3, if that is
    finally:
        stream.close()
        engine.dispose()
    assert sorted(from_snapshot + inserted_ids(streamed)) == ["1", "2", "3", "4"]
