"""Source partitions and offsets, with the keys Confluent's JDBC source stores, so offsets move between them.

Partitions: a table in an incremental mode is `{"protocol": "1", "table": "<fully-qualified name>"}`
(protocol 1; the older `{"table": "<bare name>"}` is still read at start, so offsets of old versions
resume); a table in bulk mode is `{"table": "<bare name>"}`; a query is `{"query": "query"}`.
Offsets: `{"incrementing": n}` and/or `{"timestamp": epoch ms, "timestamp_nanos": nanos of the second}`,
only the keys of the mode's columns; bulk mode stores none.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectors.sql.tables import TableId

INCREMENTING_FIELD = "incrementing"
TIMESTAMP_FIELD = "timestamp"
TIMESTAMP_NANOS_FIELD = "timestamp_nanos"
TABLE_KEY = "table"
QUERY_KEY = "query"
QUERY_VALUE = "query"
PROTOCOL_KEY = "protocol"
PROTOCOL_V1 = "1"

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def table_partition(table: TableId) -> dict[str, str]:
    return {PROTOCOL_KEY: PROTOCOL_V1, TABLE_KEY: table.fqn}


def legacy_table_partition(table: TableId) -> dict[str, str]:
    """Protocol 0 (Confluent before 10.0): the bare table name; also what bulk mode uses."""
    return {TABLE_KEY: table.name}


def query_partition() -> dict[str, str]:
    return {QUERY_KEY: QUERY_VALUE}


@dataclass(frozen=True)
class Position:
    """How far a querier has read: the last timestamp (an aware UTC instant) and incrementing value."""

    timestamp: dt.datetime | None = None
    incrementing: int | None = None

    def to_offset(self, with_timestamp: bool, with_incrementing: bool) -> dict[str, Any]:
        offset: dict[str, Any] = {}
        if with_incrementing:
            offset[INCREMENTING_FIELD] = -1 if self.incrementing is None else self.incrementing
        if with_timestamp:
            instant = self.timestamp or EPOCH
            micros = (instant - EPOCH) // dt.timedelta(microseconds=1)
            offset[TIMESTAMP_FIELD] = micros // 1000
            offset[TIMESTAMP_NANOS_FIELD] = (micros % 1_000_000) * 1000
        return offset

    @staticmethod
    def from_offset(offset: Mapping[str, Any] | None) -> Position:
        """Missing values read as Confluent reads them: incrementing -1, timestamp the epoch."""
        if not offset:
            return Position()
        incrementing = offset.get(INCREMENTING_FIELD)
        millis = offset.get(TIMESTAMP_FIELD)
        timestamp = None
        if millis is not None:
            seconds = int(millis) // 1000
            nanos = offset.get(TIMESTAMP_NANOS_FIELD)
            sub_second_micros = (int(nanos) // 1000) if nanos is not None else (int(millis) % 1000) * 1000
            timestamp = EPOCH + dt.timedelta(seconds=seconds, microseconds=sub_second_micros)
        return Position(timestamp, None if incrementing is None else int(incrementing))

    @staticmethod
    def from_millis(millis: int) -> Position:
        return Position(EPOCH + dt.timedelta(milliseconds=millis))
