"""Debezium's change-event envelope (`io.debezium.data.Envelope`): the value of every data-change record.

Fields in Debezium's order: `before` and `after` (the row before and after the change, as the table's
value schema), `source` (where the change came from: each database's own block), `transaction` (the
transaction block, null unless `provide.transaction.metadata`), `op`, and the connector's processing time
as `ts_ms`, `ts_us` and `ts_ns`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from connect.api.data import Schema, SchemaType, Struct
from connectors.cdc.naming import envelope_schema_name

ENVELOPE_VERSION = 2
OPTIONAL_INT64 = Schema(SchemaType.INT64, optional=True)
TRANSACTION_BLOCK = Schema(
    SchemaType.STRUCT,
    optional=True,
    name="event.block",
    version=1,
    fields=Schema.struct(
        [
            ("id", Schema(SchemaType.STRING)),
            ("total_order", Schema(SchemaType.INT64)),
            ("data_collection_order", Schema(SchemaType.INT64)),
        ]
    ).fields,
)


class Operation(enum.Enum):
    """The `op` codes."""

    CREATE = "c"
    UPDATE = "u"
    DELETE = "d"
    READ = "r"  # a row of a snapshot
    TRUNCATE = "t"
    MESSAGE = "m"


def envelope_schema(topic: str, row: Schema, source: Schema) -> Schema:
    """The envelope of `topic`'s events: `row` is the table's value schema (made optional here)."""
    optional_row = row.as_optional()
    fields = Schema.struct(
        [
            ("before", optional_row),
            ("after", optional_row),
            ("source", source),
            ("transaction", TRANSACTION_BLOCK),
            ("op", Schema(SchemaType.STRING)),
            ("ts_ms", OPTIONAL_INT64),
            ("ts_us", OPTIONAL_INT64),
            ("ts_ns", OPTIONAL_INT64),
        ]
    ).fields
    return Schema(SchemaType.STRUCT, name=envelope_schema_name(topic), version=ENVELOPE_VERSION, fields=fields)


@dataclass(frozen=True)
class TransactionPosition:
    """Where an event sits in its transaction (the `transaction` block): the transaction's id, the event's
    place among all of the transaction's events and among those of its table, both from 1."""

    id: str
    total_order: int
    data_collection_order: int

    def struct(self) -> Struct:
        return Struct(
            TRANSACTION_BLOCK,
            {"id": self.id, "total_order": self.total_order, "data_collection_order": self.data_collection_order},
        )


def envelope(
    schema: Schema,
    op: Operation,
    source: Struct,
    processed_ns: int,
    *,
    before: Struct | None = None,
    after: Struct | None = None,
    transaction: TransactionPosition | None = None,
) -> Struct:
    """One event's value; `processed_ns`: when the connector processed it (nanoseconds since the epoch)."""
    values: dict[str, Any] = {
        "before": before,
        "after": after,
        "source": source,
        "transaction": transaction.struct() if transaction is not None else None,
        "op": op.value,
        "ts_ms": processed_ns // 1_000_000,
        "ts_us": processed_ns // 1_000,
        "ts_ns": processed_ns,
    }
    return Struct(schema, values)
