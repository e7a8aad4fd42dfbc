"""Transaction metadata of the PostgreSQL stream as Debezium's `PostgresTransactionMonitor` writes it: a BEGIN
record to `<topic.prefix>.transaction` at each transaction's Begin, a `transaction` block in each of its change
events, and an END record with the counts at its Commit.

PostgreSQL's monitor names a transaction `<xid>:<lsn>`, where the LSN is that of the message the record is
made at (the Begin, the change, the Commit), so the id's second half differs between a transaction's BEGIN,
events and END: consumers match on the xid. The offsets keep the bare xid.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from connectors.cdc.envelope import TransactionPosition
from connectors.cdc.metadata_records import transaction_begin, transaction_end
from connectors.cdc.postgres.events import ChangeRecord
from connectors.cdc.transactions import TransactionContext


@dataclass
class TransactionRecords:
    topic: str
    context: TransactionContext = field(default_factory=TransactionContext)

    def begin(self, xid: int, lsn: int, commit_time_us: int) -> ChangeRecord | None:
        """The BEGIN record; None when the offset the task resumed from is inside this very transaction (the
        server sends it again from its Begin: its BEGIN is in Kafka already, and its counts go on)."""
        if self.context.in_progress and self.context.transaction_id == str(xid):
            return None
        self.context.begin(str(xid))
        key, value = transaction_begin(f"{xid}:{lsn}", commit_time_us // 1000)
        return ChangeRecord(self.topic, key.schema, key, value.schema, value)

    def event(self, table: str, xid: int, lsn: int) -> TransactionPosition:
        """The `transaction` block of the next event of `table` (`schema.table`)."""
        if not self.context.in_progress:  # an event with no Begin before it cannot come from pgoutput
            self.context.begin(str(xid))
        total, in_table = self.context.event(table)
        return TransactionPosition(f"{xid}:{lsn}", total, in_table)

    def end(self, xid: int, lsn: int, commit_time_us: int) -> ChangeRecord | None:
        """The END record, with the transaction's counts; None if no transaction was begun."""
        if not self.context.in_progress:
            return None
        key, value = transaction_end(f"{xid}:{lsn}", commit_time_us // 1000, dict(self.context.per_table()))
        return ChangeRecord(self.topic, key.schema, key, value.schema, value)

    def offset_fields(self) -> tuple[str | None, dict[str, int] | None]:
        """What the offset of a record made now stores of the context: the xid, and the counts by table."""
        orders = self.context.table_orders()
        return self.context.transaction_id, orders or None
