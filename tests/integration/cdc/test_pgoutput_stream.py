"""pgoutput as a real PostgreSQL server streams it, read over psycopg2's logical replication connection and
decoded by connectors.cdc.postgres.pgoutput: transactions whole and in commit order, each table's Relation
before its first change, old rows per replica identity, unchanged TOASTed values, TRUNCATE and logical
messages."""

from __future__ import annotations

import itertools
import select
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg2
import psycopg2.extras
import pytest

from connectors.cdc.postgres.pgoutput import (
    UNCHANGED_TOAST,
    Begin,
    Commit,
    Delete,
    Insert,
    LogicalMessage,
    Message,
    Relation,
    Truncate,
    Update,
    decode,
)
from tests.fixtures.sql.plugin import SqlDatabase
from tests.support.replication_slots import drop_slot

pytestmark = pytest.mark.integration

PUBLICATION = "kc_pub"
# Random text does not compress: 200 md5 digests (6,400 bytes) are stored out of line, in TOAST.
TOASTED = "(SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 200))"


@dataclass
class Slot:
    name: str
    cursor: psycopg2.extras.ReplicationCursor


@pytest.fixture
def replication(postgres_database: SqlDatabase) -> Iterator[Slot]:
    """A pgoutput slot on the test's database, created before the test's changes, and a cursor to stream it."""
    slot = f"kc_{postgres_database.name}"
    postgres_database.execute(
        "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, note text)",
        f"CREATE PUBLICATION {PUBLICATION} FOR TABLE customers",
    )
    connection = psycopg2.connect(
        **postgres_database.connection_params(), connection_factory=psycopg2.extras.LogicalReplicationConnection
    )
    cursor = connection.cursor()
    cursor.create_replication_slot(slot, output_plugin="pgoutput")
    try:
        yield Slot(slot, cursor)
    finally:
        connection.close()
        drop_slot(postgres_database, slot)


def stream_through_truncate(slot: Slot, timeout: float = 30) -> list[Message]:
    """Decoded messages up to the Commit of the first TRUNCATE, streamed as Debezium asks for them
    (protocol version 1, logical messages on)."""
    slot.cursor.start_replication(
        slot_name=slot.name,
        decode=False,
        options={"proto_version": "1", "publication_names": PUBLICATION, "messages": "true"},
    )
    messages: list[Message] = []
    deadline = time.monotonic() + timeout
    while not (messages and isinstance(messages[-1], Commit) and any(isinstance(m, Truncate) for m in messages)):
        left = deadline - time.monotonic()
        assert left > 0, f"no TRUNCATE committed within {timeout:.0f} s; got {messages}"
        raw = slot.cursor.read_message()
        if raw is None:
            select.select([slot.cursor], [], [], min(left, 1.0))
            continue
        messages.append(decode(raw.payload))
    return messages


def transactions(messages: list[Message]) -> list[list[Message]]:
    """The messages between each Begin and its Commit, Relations left out (they come whenever the server
    has not sent the table's yet, or it changed); transactions with nothing else (the ALTER TABLE's, on a
    server older than 15, which still sends empty ones) left out too."""
    found: list[list[Message]] = []
    for message in messages:
        if isinstance(message, Begin):
            found.append([])
        elif not isinstance(message, (Commit, Relation)):
            found[-1].append(message)
    return [transaction for transaction in found if transaction]


def test_real_transactions_decode_to_what_was_done_in_commit_order(
    postgres_database: SqlDatabase, replication: Slot
) -> None:
    db = postgres_database
    db.execute(
        "INSERT INTO customers VALUES (1, 'ann', 'short'), (2, 'bob', NULL)",
        "UPDATE customers SET name = 'anne' WHERE id = 1",
        "DELETE FROM customers WHERE id = 2",
    )
    db.execute(f"INSERT INTO customers VALUES (3, 'cat', {TOASTED})")
    db.execute("UPDATE customers SET name = 'cathy' WHERE id = 3")  # the TOASTed note is not sent
    db.execute("ALTER TABLE customers REPLICA IDENTITY FULL")
    db.execute("UPDATE customers SET name = 'annie' WHERE id = 1")
    db.execute("UPDATE customers SET id = 10 WHERE id = 1")
    db.execute("SELECT pg_logical_emit_message(true, 'audit', 'hello')")
    db.execute("TRUNCATE customers")

    messages = stream_through_truncate(replication)

    relations = [m for m in messages if isinstance(m, Relation)]
    assert relations[0].name == "customers" and relations[0].namespace == "public"
    assert [(c.name, c.type_oid, c.part_of_key) for c in relations[0].columns] == [
        ("id", 23, True),
        ("name", 25, False),
        ("note", 25, False),
    ]
    assert relations[0].replica_identity == "d"
    assert relations[-1].replica_identity == "f"  # sent again once the table's replica identity changed
    relid = relations[0].relation_id

    first, toasted, toast_kept, full, key_changed, message, truncate = transactions(messages)
    assert first == [
        Insert(relid, ("1", "ann", "short")),
        Insert(relid, ("2", "bob", None)),
        Update(relid, ("1", "anne", "short"), None, False),  # default identity, key unchanged: no old row
        Delete(relid, ("2", None, None), True),  # the key columns only
    ]
    (insert,) = toasted
    assert isinstance(insert, Insert) and isinstance(insert.new[2], str) and len(insert.new[2]) == 6400
    assert toast_kept == [Update(relid, ("3", "cathy", UNCHANGED_TOAST), None, False)]
    assert full == [Update(relid, ("1", "annie", "short"), ("1", "anne", "short"), False)]
    assert key_changed == [Update(relid, ("10", "annie", "short"), ("1", "annie", "short"), False)]
    assert len(message) == 1 and isinstance(message[0], LogicalMessage)
    assert (message[0].transactional, message[0].prefix, message[0].content) == (True, "audit", b"hello")
    assert truncate == [Truncate(False, False, (relid,))]

    begins = [m for m in messages if isinstance(m, Begin)]
    commits = [m for m in messages if isinstance(m, Commit)]
    assert [b.final_lsn for b in begins] == [c.commit_lsn for c in commits]
    assert all(earlier.end_lsn <= later.commit_lsn for earlier, later in itertools.pairwise(commits))
