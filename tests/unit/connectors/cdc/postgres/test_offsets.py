"""PostgreSQL offsets in Debezium's maps: read from what Debezium stores (numbers, legacy snapshot marks),
written back with the same keys, and the positions a restart and a slot confirmation use."""

from __future__ import annotations

import pytest

from connect.api.errors import ConnectError
from connectors.cdc.postgres.offsets import PostgresOffset, source_partition

DEBEZIUM_STREAMING = {
    "lsn_proc": 24023128,
    "messageType": "INSERT",
    "lsn_commit": 24023119,
    "lsn": 24023128,
    "txId": 555,
    "ts_usec": 1559033904863123,
}


def test_a_streaming_offset_of_debezium_s_reads_and_writes_back_the_same_map() -> None:
    offset = PostgresOffset.from_map(DEBEZIUM_STREAMING)
    assert (offset.lsn, offset.lsn_proc, offset.lsn_commit, offset.tx_id) == (24023128, 24023128, 24023119, 555)
    assert offset.resume_lsn == 24023128
    assert offset.confirmable_lsn == 24023119
    assert not offset.in_snapshot
    assert offset.to_map() == DEBEZIUM_STREAMING
    assert source_partition("srv") == {"server": "srv"}


def test_older_offsets_fall_back_as_debezium_does() -> None:
    offset = PostgresOffset.from_map({"lsn": 100, "txId": 7, "ts_usec": 1})
    assert offset.resume_lsn == 100
    assert offset.confirmable_lsn is None  # nothing was confirmed as processed: the slot is not moved
    assert PostgresOffset.from_map({"lsn": 100, "lsn_proc": 90}).confirmable_lsn == 90


def test_snapshot_marks_including_the_legacy_boolean() -> None:
    legacy = PostgresOffset.from_map({"lsn": 5, "snapshot": True, "last_snapshot_record": False})
    assert legacy.snapshot == "INITIAL" and legacy.in_snapshot
    written = PostgresOffset(lsn=5, snapshot="INITIAL", last_snapshot_record=True).to_map()
    assert (written["snapshot"], written["last_snapshot_record"], written["snapshot_completed"]) == (
        "INITIAL",
        True,
        False,
    )
    assert PostgresOffset.from_map(written).snapshot_completed is False
    assert PostgresOffset.from_map({**written, "snapshot_completed": True}).snapshot_completed


def test_transaction_metadata_orders_per_table_round_trip() -> None:
    offset = PostgresOffset(lsn=9, transaction_id="555:9", table_orders={"public.customers": 3})
    written = offset.to_map()
    assert written["transaction_id"] == "555:9"
    assert written["transaction_data_collection_order_public.customers"] == 3
    assert PostgresOffset.from_map(written) == offset


def test_an_incremental_snapshot_in_flight_is_refused_with_what_to_do() -> None:
    with pytest.raises(ConnectError, match="stop-snapshot"):
        PostgresOffset.from_map({"lsn": 5, "incremental_snapshot_primary_key": "aced0005"})
