"""Debezium's transaction context: counts per table and in all, restored from an offset, and the END record's
table order, which is java.util.HashMap's (the vectors below were printed by Java 17's HashMap)."""

from __future__ import annotations

from connectors.cdc.transactions import JavaHashOrder, TransactionContext, java_string_hash

THREE = ["public.typed", "public.people", "inventory.orders"]
TWENTY = [f"s{i}.t{i * 7 % 13}" for i in range(20, 0, -1)]
JAVA_THREE = ["public.people", "inventory.orders", "public.typed"]
JAVA_TWENTY = [
    "s2.t1",
    "s8.t4",
    "s6.t3",
    "s4.t2",
    "s11.t12",
    "s20.t10",
    "s18.t9",
    "s13.t0",
    "s16.t8",
    "s14.t7",
    "s7.t10",
    "s19.t3",
    "s1.t7",
    "s17.t2",
    "s12.t6",
    "s10.t5",
    "s9.t11",
    "s15.t1",
    "s5.t9",
    "s3.t8",
]


def test_string_hash_is_java_s_for_ascii_and_beyond() -> None:
    assert java_string_hash("public.people") == 779242932
    assert java_string_hash("é.ü") == 225591
    assert java_string_hash("") == 0


def test_tables_come_in_hash_map_order_before_and_after_the_map_grows() -> None:
    order = JavaHashOrder()
    for table in THREE:
        order.add(table)
    assert order.ordered() == JAVA_THREE
    grown = JavaHashOrder()
    for table in TWENTY:
        grown.add(table)
    assert grown.buckets == 32 and grown.ordered() == JAVA_TWENTY
    grown.clear()  # HashMap.clear keeps its table: the next transaction's tables land in 32 buckets
    for table in THREE:
        grown.add(table)
    assert grown.buckets == 32 and grown.ordered() == JAVA_THREE


def test_events_are_counted_per_table_and_in_all_and_a_new_transaction_starts_from_one() -> None:
    context = TransactionContext()
    context.begin("771")
    assert [context.event(t) for t in ("public.typed", "public.people", "public.typed")] == [(1, 1), (2, 1), (3, 2)]
    assert context.per_table() == [("public.people", 1), ("public.typed", 2)]
    assert context.table_orders() == {"public.typed": 2, "public.people": 1}
    context.begin("772")
    assert context.transaction_id == "772" and context.event("public.people") == (1, 1)
    context.end()
    assert not context.in_progress and context.table_orders() == {}


def test_a_context_restored_from_an_offset_goes_on_counting() -> None:
    context = TransactionContext.restored("771", {"public.typed": 2, "public.people": 1})
    assert context.in_progress and context.total == 3
    assert context.event("public.people") == (4, 2)
    assert not TransactionContext.restored(None, None).in_progress
