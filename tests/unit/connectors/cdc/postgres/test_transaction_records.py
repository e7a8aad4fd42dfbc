"""The BEGIN and END records of PostgreSQL's transaction metadata, and the `transaction` block of each event:
ids `<xid>:<lsn>` with the LSN of the message each is made at, and no second BEGIN for a transaction the task
resumed inside of."""

from __future__ import annotations

from connectors.cdc.postgres.transactions import TransactionRecords
from connectors.cdc.transactions import TransactionContext

TOPIC = "srv.transaction"


def test_a_transaction_s_begin_blocks_and_end() -> None:
    records = TransactionRecords(TOPIC)
    begin = records.begin(771, 1000, 1_700_000_000_123_456)
    assert begin is not None and begin.topic == TOPIC and begin.key is not None and begin.value is not None
    assert begin.key.get("id") == "771:1000"
    assert (begin.value.get("status"), begin.value.get("ts_ms"), begin.value.get("event_count")) == (
        "BEGIN",
        1_700_000_000_123,
        None,
    )
    first = records.event("public.typed", 771, 1010)
    second = records.event("public.people", 771, 1020)
    assert (first.id, first.total_order, first.data_collection_order) == ("771:1010", 1, 1)
    assert (second.id, second.total_order, second.data_collection_order) == ("771:1020", 2, 1)
    assert records.offset_fields() == ("771", {"public.typed": 1, "public.people": 1})
    end = records.end(771, 1030, 1_700_000_000_123_456)
    assert end is not None and end.value is not None
    assert (end.value.get("id"), end.value.get("event_count")) == ("771:1030", 2)
    collections = [(c.get("data_collection"), c.get("event_count")) for c in end.value.get("data_collections")]
    assert collections == [("public.people", 1), ("public.typed", 1)]  # Java's HashMap order


def test_a_transaction_resumed_from_its_offset_gets_no_second_begin_and_counts_on() -> None:
    records = TransactionRecords(TOPIC, TransactionContext.restored("771", {"public.typed": 5}))
    assert records.begin(771, 1000, 0) is None
    assert records.event("public.typed", 771, 1200).data_collection_order == 6
    assert records.begin(772, 2000, 0) is not None  # the next transaction starts afresh
    assert records.offset_fields() == ("772", None)


def test_no_end_without_a_transaction() -> None:
    assert TransactionRecords(TOPIC).end(771, 1030, 0) is None
