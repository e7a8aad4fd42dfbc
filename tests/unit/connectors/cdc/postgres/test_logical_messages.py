"""pg_logical_emit_message as Debezium writes it: a transactional message is an event of its transaction that
is not counted as processed; a non-transactional one is a commit of its own, with the last commit's time;
the records, their content per binary.handling.mode, and the prefix filter."""

from __future__ import annotations

import re

from connect.api.data import Struct
from connectors.cdc.postgres.changes import POSTGRES_EPOCH_US, ChangeTracker, EmittedMessage
from connectors.cdc.postgres.logical_messages import (
    MESSAGE_ID_CLASS,
    MessageRecords,
    PrefixFilter,
    message_collection,
)
from connectors.cdc.postgres.pgoutput import Begin, Commit, LogicalMessage
from connectors.cdc.postgres.replication import WalMessage
from connectors.cdc.postgres.source_info import ChangePosition, SourceInfo
from connectors.cdc.postgres.types import BinaryMode


def wal(lsn: int, message: object) -> WalMessage:
    return WalMessage(lsn, lsn, message)  # type: ignore[arg-type]


def test_a_transactional_message_is_an_event_of_its_transaction_and_not_processed() -> None:
    tracker = ChangeTracker(last_commit_lsn=50)
    tracker.feed(wal(100, Begin(130, 1_000_000, 555)))
    change = tracker.feed(wal(110, LogicalMessage(True, 110, "outbox", b"x")))
    assert isinstance(change, EmittedMessage)
    assert (change.position.tx_id, change.position.lsn, change.position.commit_lsn) == (555, 110, 50)
    assert tracker.processed_lsn == 100, "Debezium's isLastEventForLsn is false for it"


def test_a_non_transactional_message_is_a_commit_of_its_own_with_the_last_commit_time() -> None:
    tracker = ChangeTracker(last_commit_lsn=50)
    tracker.feed(wal(100, Begin(130, 1_000_000, 555)))
    tracker.feed(wal(140, Commit(0, 130, 140, 1_000_000)))
    change = tracker.feed(wal(200, LogicalMessage(False, 200, "audit", b"y")))
    assert isinstance(change, EmittedMessage)
    position = change.position
    assert (position.tx_id, position.lsn, position.commit_lsn) == (None, 200, 200)
    assert position.commit_time_us == 1_000_000 + POSTGRES_EPOCH_US
    assert (tracker.processed_lsn, tracker.last_commit_lsn) == (200, 200)


def test_records_carry_the_prefix_as_key_and_the_content_as_binary_handling_mode_says() -> None:
    source = SourceInfo("v", "srv", "db").struct("", "", ChangePosition(1, None, 3, 3))
    message = LogicalMessage(False, 3, "audit", b"\x00\xff")
    raw = MessageRecords("srv.message").record(message, source, 42)
    hexed = MessageRecords("srv.message", BinaryMode.HEX).record(message, source, 42)
    assert raw.topic == "srv.message" and isinstance(raw.key, Struct) and raw.key.get("prefix") == "audit"
    assert raw.key_schema is not None and raw.key_schema.name == "io.debezium.connector.postgresql.MessageKey"
    assert isinstance(raw.value, Struct) and isinstance(hexed.value, Struct)
    assert (raw.value.get("op"), raw.value.get("ts_ms"), raw.value.get("transaction")) == ("m", 42, None)
    assert raw.value.get("message").get("content") == b"\x00\xff"
    assert hexed.value.get("message").get("content") == "00ff"
    assert [f.name for f in raw.value.schema.fields] == ["op", "ts_ms", "source", "transaction", "message"]


def test_the_prefix_lists_and_the_collection_names_of_messages() -> None:
    assert PrefixFilter().includes("anything")
    assert PrefixFilter(include="out.*").includes("OUTBOX") and not PrefixFilter(include="out.*").includes("audit")
    assert not PrefixFilter(exclude="skip.*").includes("skip-me") and PrefixFilter(exclude="skip.*").includes("x")
    first, second = message_collection(), message_collection()
    assert re.fullmatch(re.escape(MESSAGE_ID_CLASS) + "@[0-9a-f]+", first) and first != second
