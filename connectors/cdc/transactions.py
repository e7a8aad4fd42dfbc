"""Debezium's transaction metadata (`provide.transaction.metadata`): where each change event sits in its
transaction, and the counts a transaction's END record carries (`TransactionContext`, `TransactionMonitor`).

The context lives in the source offset too (`transaction_id`, `transaction_data_collection_order_<table>`), so
a task that restarts in the middle of a transaction continues its counters and writes no second BEGIN.

Debezium keeps the per-table counts in a `java.util.HashMap` and lists them in the END record in that map's
iteration order, which consumers see; `JavaHashOrder` reproduces it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# java.util.HashMap's defaults: 16 buckets, doubled when more than 3/4 full; a bucket that reaches 9 entries in
# a table of fewer than 64 buckets doubles the table too (`treeifyBin`).
_INITIAL_BUCKETS = 16
_LOAD_FACTOR = 0.75
_TREEIFY_THRESHOLD = 8
_MIN_TREEIFY_BUCKETS = 64


def java_string_hash(text: str) -> int:
    """`String.hashCode()`: 31-polynomial over UTF-16 code units, as an unsigned 32-bit number."""
    encoded = text.encode("utf-16-be")
    result = 0
    for index in range(0, len(encoded), 2):
        result = (31 * result + (encoded[index] << 8 | encoded[index + 1])) & 0xFFFFFFFF
    return result


def _bucket(key: str, buckets: int) -> int:
    hashed = java_string_hash(key)
    return (hashed ^ (hashed >> 16)) & (buckets - 1)  # HashMap.hash spreads the high bits down


@dataclass
class JavaHashOrder:
    """The keys of a `HashMap<String, _>` in its iteration order: by bucket, then in insertion order within one
    (a resize splits buckets keeping that order). `clear()` keeps the table's size, as HashMap's does.
    A bucket of a table of 64 or more buckets that fills past 8 becomes a tree, whose order is not modelled
    (it takes 9 table names of one bucket)."""

    buckets: int = _INITIAL_BUCKETS
    _keys: list[str] = field(default_factory=list)

    def add(self, key: str) -> None:
        if key in self._keys:
            return
        self._keys.append(key)
        if self.buckets < _MIN_TREEIFY_BUCKETS:
            bucket = _bucket(key, self.buckets)
            if sum(_bucket(other, self.buckets) == bucket for other in self._keys) > _TREEIFY_THRESHOLD:
                self.buckets *= 2
        if len(self._keys) > self.buckets * _LOAD_FACTOR:
            self.buckets *= 2

    def clear(self) -> None:
        self._keys.clear()

    def ordered(self) -> list[str]:
        position = {key: index for index, key in enumerate(self._keys)}
        return sorted(self._keys, key=lambda key: (_bucket(key, self.buckets), position[key]))


@dataclass
class TransactionContext:
    """The transaction in progress (Debezium's `TransactionContext`): its id (PostgreSQL's xid as text) and how
    many events of each table it has had so far."""

    transaction_id: str | None = None
    _counts: dict[str, int] = field(default_factory=dict)
    _order: JavaHashOrder = field(default_factory=JavaHashOrder)

    @classmethod
    def restored(cls, transaction_id: str | None, table_orders: Mapping[str, int] | None) -> TransactionContext:
        """The context a stored offset holds."""
        context = cls(transaction_id)
        for table, count in (table_orders or {}).items():
            context._counts[table] = count
            context._order.add(table)
        return context

    @property
    def in_progress(self) -> bool:
        return self.transaction_id is not None

    @property
    def total(self) -> int:
        return sum(self._counts.values())

    def begin(self, transaction_id: str) -> None:
        self.end()
        self.transaction_id = transaction_id

    def end(self) -> None:
        self.transaction_id = None
        self._counts.clear()
        self._order.clear()

    def event(self, table: str) -> tuple[int, int]:
        """Count one event of `table` (`schema.table`); returns its place among the transaction's events and
        among its table's, both from 1."""
        self._counts[table] = self._counts.get(table, 0) + 1
        self._order.add(table)
        return self.total, self._counts[table]

    def table_orders(self) -> dict[str, int]:
        """The counts as the offset stores them."""
        return dict(self._counts)

    def per_table(self) -> list[tuple[str, int]]:
        """The counts in the order Debezium's END record lists them."""
        return [(table, self._counts[table]) for table in self._order.ordered()]
