"""The PostgreSQL CDC task: a snapshot where the snapshot mode and the stored offset call for one, then the
slot's stream, as Debezium's change events with Debezium's offsets.

Start-up, as Debezium's `PostgresConnectorTask` decides it: the server must decode logically; the
publication is made or checked; without the slot, it is created and its exported snapshot read (so the
snapshot and the stream meet at the slot's consistent point); with the slot and an offset, streaming
resumes from the offset (the server starts at the later of it and the slot's confirmed position). A
snapshot that did not finish is done again.

The slot is confirmed only up to what Kafka holds: when the runtime has stored offsets (`commit`), the task
reads the stored offset back (off its own thread: `SlotConfirmer`) and has the reader confirm its `lsn_commit`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import TypeVar

import psycopg
import psycopg2
import psycopg2.errors

from connect.api import Config, ConnectError, SourceRecord, SourceTask
from connect.api.errors import RetriableError
from connect.api.records import Header
from connect.api.version import distribution_version
from connectors.cdc.column_mappers import ColumnMappers
from connectors.cdc.metadata_records import heartbeat
from connectors.cdc.postgres import catalog
from connectors.cdc.postgres import config as keys
from connectors.cdc.postgres.changes import (
    ChangeTracker,
    EmittedMessage,
    ResumeFilter,
    RowChange,
    TableTruncate,
    TransactionBegin,
    TransactionEnd,
)
from connectors.cdc.postgres.confirmer import SlotConfirmer
from connectors.cdc.postgres.events import ChangeRecord, EventContext, TableEvents, context_headers
from connectors.cdc.postgres.heartbeat_action import HeartbeatAction
from connectors.cdc.postgres.logical_messages import MessageRecords, message_collection
from connectors.cdc.postgres.offsets import INITIAL, PostgresOffset, source_partition
from connectors.cdc.postgres.pgoutput import Relation, format_lsn
from connectors.cdc.postgres.replication import ReplicationStream
from connectors.cdc.postgres.snapshot import SnapshotReader
from connectors.cdc.postgres.source_info import ChangePosition, SnapshotMark, SourceInfo
from connectors.cdc.postgres.transactions import TransactionRecords
from connectors.cdc.transactions import TransactionContext

log = logging.getLogger(__name__)
T = TypeVar("T")

_OPERATION_CODES = {"INSERT": "c", "UPDATE": "u", "DELETE": "d"}
RECONNECT_PAUSE_S = 1.0
Emitted = tuple[ChangeRecord, PostgresOffset]


def snapshot_marks(rows: Iterable[T], *, first_table: bool, last_table: bool) -> Iterator[tuple[T, SnapshotMark]]:
    """Debezium's `snapshot` value of each row of one table: `first` for the snapshot's first row,
    `first_in_data_collection` and `last_in_data_collection` for a table's first and last, `last` for the
    snapshot's last row, `true` between."""
    iterator = iter(rows)
    row = next(iterator, None)
    first = True
    while row is not None:
        following = next(iterator, None)
        if following is None and last_table:
            mark = SnapshotMark.LAST
        elif first:
            mark = SnapshotMark.FIRST if first_table else SnapshotMark.FIRST_IN_DATA_COLLECTION
        elif following is None:
            mark = SnapshotMark.LAST_IN_DATA_COLLECTION
        else:
            mark = SnapshotMark.TRUE
        yield row, mark
        row, first = following, False


def stream_offset(position: ChangePosition, message_type: str, processed_lsn: int | None) -> PostgresOffset:
    """The offset of a streamed message at `position`, Debezium's map: `processed_lsn` is the last message
    completely processed (the message's own LSN, but for the non-last tables of a TRUNCATE)."""
    return PostgresOffset(
        lsn=position.lsn,
        lsn_proc=processed_lsn,
        lsn_commit=position.commit_lsn,
        tx_id=position.tx_id,
        commit_time_us=position.commit_time_us,
        message_type=message_type,
    )


def resume_filter(offset: PostgresOffset) -> ResumeFilter:
    """What a stream resumed after `offset` drops of what the server sends again."""
    return ResumeFilter(offset.lsn_commit, offset.lsn_proc, processed_is_commit=offset.message_type == "COMMIT")


class PostgresSourceTask(SourceTask):
    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        problems = keys.errors(props)
        if problems:
            raise ConnectError("Invalid configuration: " + "; ".join(problems))
        config = Config(keys.CONFIG_DEF, props)
        self._params = keys.connection_params(config)
        self._server = config.get_str(keys.TOPIC_PREFIX)
        self._naming = keys.topic_naming(config)
        self._modes = keys.modes(config)
        self._filter = keys.table_filter(config)
        self._columns = keys.column_filter(config)
        self._key_columns = keys.key_columns(config)
        self._mappers = ColumnMappers.from_config(props)
        self._message_filter = keys.message_filter(config)
        self._messages = MessageRecords(self._naming.message_topic, self._modes.binary)
        self._skipped = keys.skipped_operations(config)
        self._tombstones = config.get_bool(keys.TOMBSTONES_ON_DELETE)
        self._placeholder = config.get_str(keys.PLACEHOLDER)
        self._batch = config.get_int(keys.MAX_BATCH_SIZE)
        self._poll_s = config.get_int(keys.POLL_INTERVAL_MS) / 1000
        self._slot_tries = config.get_int(keys.SLOT_MAX_RETRIES) + 1
        self._heartbeat_s = config.get_int(keys.HEARTBEAT_INTERVAL_MS) / 1000
        query = config.get_str(keys.HEARTBEAT_ACTION_QUERY).strip()
        params = self._params
        self._heartbeat_action = (
            HeartbeatAction(query, lambda: psycopg.connect(**params, autocommit=True)) if query else None
        )
        self._last_heartbeat = time.monotonic()
        self._commit_offset: PostgresOffset | None = None  # the position of the last commit seen
        self._slot_retry_s = config.get_int(keys.SLOT_RETRY_DELAY_MS) / 1000
        self._source = SourceInfo(distribution_version("kconnect"), self._server, config.get_str(keys.DBNAME))
        self._partition = source_partition(self._server)
        # Debezium's one task is task 0; each run of it draws a new run id.
        self._headers = context_headers(self._server, "0", str(uuid.uuid4()))
        self._tables: dict[tuple[str, str], TableEvents] = {}
        self._snapshot_rows: Iterator[list[Emitted]] | None = None
        self._stream: ReplicationStream | None = None
        self._stopping = False
        self._catalog = psycopg.connect(**self._params, autocommit=True)
        try:
            self._prepare(config)
        except BaseException:
            # The runtime calls `stop` only after a successful start: release the connections here.
            if self._stream is not None:
                self._stream.close()
            self._catalog.close()
            raise

    def _prepare(self, config: Config) -> None:
        """The publication and slot, the stored position checked, and the snapshot to take, if any."""
        catalog.check_logical_decoding(self._catalog)
        captured = catalog.captured_tables(self._catalog, self._filter)
        catalog.ensure_publication(
            self._catalog, config.get_str(keys.PUBLICATION_NAME), config.get_str(keys.PUBLICATION_AUTOCREATE), captured
        )
        stored = self.context.offset_reader.offset(self._partition)
        offset = PostgresOffset.from_map(stored) if stored else None
        slot = config.get_str(keys.SLOT_NAME)
        self._publications = [config.get_str(keys.PUBLICATION_NAME)]
        self._stream = ReplicationStream(self._params, slot, self._publications)
        existing = catalog.slot_state(self._catalog, slot)
        mode = config.get_str(keys.SNAPSHOT_MODE)
        offset = self._checked_position(offset, existing, mode)
        wants_snapshot = mode == keys.ALWAYS or (
            mode in (keys.INITIAL, keys.INITIAL_ONLY, keys.WHEN_NEEDED) and (offset is None or offset.in_snapshot)
        )
        self._streaming = mode != keys.INITIAL_ONLY
        if existing is None:
            created = self._stream.create_slot()
            start_lsn = created.consistent_point
            if wants_snapshot:
                self._snapshot_rows = self._snapshot(captured, created.snapshot_name, start_lsn)
        else:
            # Resume where the offset says; 0 (where the slot was confirmed) after a snapshot or without one.
            resume = offset.resume_lsn if offset is not None and not wants_snapshot else None
            start_lsn = resume or 0
            if wants_snapshot:
                self._snapshot_rows = self._snapshot(captured, None, existing.confirmed_flush_lsn or 0)
        self._tracker = ChangeTracker(last_commit_lsn=offset.lsn_commit if offset is not None else None)
        resuming = offset is not None and not wants_snapshot and existing is not None
        self._resume = resume_filter(offset) if resuming and offset else None
        # The last position processed in the stream: where a lost replication connection is taken up again.
        self._position: PostgresOffset | None = offset if resuming else None
        self._transactions = (
            TransactionRecords(
                self._naming.transaction_topic,
                TransactionContext.restored(offset.transaction_id, offset.table_orders)
                if resuming and offset is not None
                else TransactionContext(),
            )
            if config.get_bool(keys.PROVIDE_TRANSACTION_METADATA)
            else None
        )
        self._start_lsn = start_lsn
        self._stream_started = False
        self._confirmer = SlotConfirmer(lambda: self.context.offset_reader.offset(self._partition), self._confirm)
        log.info(
            "PostgreSQL CDC %s: %d tables, snapshot: %s, streaming from %s",
            self._server,
            len(captured),
            wants_snapshot,
            format_lsn(start_lsn),
        )

    def _checked_position(
        self, offset: PostgresOffset | None, slot: catalog.SlotState | None, mode: str
    ) -> PostgresOffset | None:
        """The stored offset, if the server still has the WAL from its position on: its slot still exists
        (Debezium's log position check, `PostgresConnection.validateLogPosition`). If not, when_needed starts
        over with a snapshot (None) and the other streaming modes fail, as Debezium's do: a new slot would
        start streaming after the gap, silently skipping its changes.

        Unlike Debezium's check, a slot whose `restart_lsn` has passed the stored position passes: psycopg2
        moves an idle slot on to the server's position once everything received is confirmed, so a slot
        ahead of the offset is what a quiet database looks like here, not a gap."""
        if offset is None or offset.in_snapshot or mode == keys.INITIAL_ONLY or slot is not None:
            return offset
        stored = format_lsn(offset.resume_lsn or 0)
        if mode == keys.WHEN_NEEDED:
            log.warning(
                "The stored position %s is no longer on the server (its slot is gone): snapshot.mode=when_needed, "
                "so a new snapshot fills the gap",
                stored,
            )
            return None
        raise ConnectError(
            f"The connector is trying to read change stream starting at {stored}, but this is no longer available "
            "on the server (its replication slot is gone). Reconfigure the connector to use a snapshot mode when "
            "needed."
        )

    # -- snapshot ---------------------------------------------------------------------------------------

    def _snapshot(self, tables: list[tuple[str, str]], snapshot_name: str | None, lsn: int) -> Iterator[list[Emitted]]:
        """Every captured table's rows as `r` events, in batches, within one transaction (on the slot's exported
        snapshot when there is one; it is imported before the slot's connection is used again)."""
        reader = SnapshotReader(self._params, snapshot_name)
        try:
            batch: list[Emitted] = []
            for table_index, (schema, name) in enumerate(tables):
                events = self._table_events(schema, name)
                rows = reader.rows(schema, name, [column.name for column in events.table.columns])
                for row, mark in snapshot_marks(
                    rows, first_table=table_index == 0, last_table=table_index == len(tables) - 1
                ):
                    position = ChangePosition(time.time_ns() // 1000, None, lsn, None)
                    at = EventContext(self._source.struct(schema, name, position, mark), time.time_ns())
                    last = mark is SnapshotMark.LAST
                    offset = PostgresOffset(
                        lsn=lsn, snapshot=INITIAL, last_snapshot_record=last, snapshot_completed=last
                    )
                    batch += [(record, offset) for record in events.read(tuple(row), at)]
                    if len(batch) >= self._batch:
                        yield batch
                        batch = []
            if batch:
                yield batch
        finally:
            reader.close()

    # -- streaming --------------------------------------------------------------------------------------

    def _table_events(self, schema: str, table: str) -> TableEvents:
        events = self._tables.get((schema, table))
        if events is None:
            info = catalog.table_info(self._catalog, schema, table)
            info = dataclasses.replace(info, key_columns=self._key_columns.of(info))
            events = TableEvents(
                info,
                self._naming.data_topic(schema, table),
                self._modes,
                placeholder=self._placeholder,
                tombstones_on_delete=self._tombstones,
                context_headers=self._headers,
                excluded_columns=self._columns.excluded(info),
                mappers=self._mappers,
            )
            if events.skipped:
                log.warning(
                    "Columns of %s.%s with types kconnect does not map yet are left out: %s",
                    schema,
                    table,
                    events.skipped,
                )
            self._tables[(schema, table)] = events
        return events

    def _relation_changed(self, relation: Relation) -> None:
        """The server sends a Relation again after a table changed: read its columns again."""
        self._tables.pop((relation.namespace or "pg_catalog", relation.name), None)

    def _stream_batch(self) -> list[Emitted]:
        assert self._stream is not None
        if not self._stream_started:
            self._start_streaming(self._stream)
            self._stream_started = True
        records: list[Emitted] = []
        for wal in self._stream.read(self._poll_s, self._batch):
            if isinstance(wal.message, Relation):
                self._relation_changed(wal.message)
            if self._resume is not None and not self._resume.keeps(wal):
                continue
            change = self._tracker.feed(wal)
            if isinstance(change, RowChange):
                records += self._row_change(change)
            elif isinstance(change, TableTruncate):
                records += self._truncate(change)
            elif isinstance(change, EmittedMessage):
                records += self._logical_message(change)
            elif isinstance(change, TransactionBegin):
                records += self._transaction_begin(change.position)
            elif isinstance(change, TransactionEnd):
                position = change.position
                # A commit is processed whole: its own LSN is the last commit's too.
                self._commit_offset = stream_offset(
                    dataclasses.replace(position, lsn=change.lsn, commit_lsn=change.lsn), "COMMIT", change.lsn
                )
                self._position = self._commit_offset
                records += self._transaction_end(self._commit_offset)
        return records + self._heartbeat()

    def _replayed(self) -> bool:
        """The Begin or Commit just read is of a transaction a resumed stream sends again though it is stored."""
        return self._resume is not None and self._resume.in_stored_transaction

    def _transaction_begin(self, position: ChangePosition) -> list[Emitted]:
        if self._transactions is None or position.tx_id is None or position.lsn is None or self._replayed():
            return []
        record = self._transactions.begin(position.tx_id, position.lsn, position.commit_time_us)
        if record is None:
            return []
        offset = self._with_transaction(stream_offset(position, "BEGIN", position.lsn))
        return [(record, offset)]

    def _transaction_end(self, commit: PostgresOffset) -> list[Emitted]:
        transactions = self._transactions
        if transactions is None or commit.tx_id is None or commit.lsn is None or self._replayed():
            return []
        record = transactions.end(commit.tx_id, commit.lsn, commit.commit_time_us or 0)
        offset = self._with_transaction(commit)  # the END's offset still names the transaction, as Debezium's
        transactions.context.end()
        return [] if record is None else [(record, offset)]

    def _with_transaction(self, offset: PostgresOffset) -> PostgresOffset:
        if self._transactions is None:
            return offset
        transaction_id, orders = self._transactions.offset_fields()
        return dataclasses.replace(offset, transaction_id=transaction_id, table_orders=orders)

    def _heartbeat(self) -> list[Emitted]:
        """Debezium's heartbeat after a commit or an empty read, at most every `heartbeat.interval.ms`: its
        offset is the last commit's, so the slot can be confirmed past transactions that wrote nothing here
        (no record before a first commit was seen). `heartbeat.action.query` runs with every heartbeat."""
        now = time.monotonic()
        if self._heartbeat_s <= 0 or now - self._last_heartbeat < self._heartbeat_s:
            return []
        self._last_heartbeat = now
        records: list[Emitted] = []
        if self._commit_offset is not None:
            key, value = heartbeat(self._server, time.time_ns() // 1_000_000)
            record = ChangeRecord(self._naming.heartbeat_topic, key.schema, key, value.schema, value)
            records.append((record, self._commit_offset))
        if self._heartbeat_action is not None:
            self._heartbeat_action.run()
        return records

    def _start_streaming(self, stream: ReplicationStream) -> None:
        """Start the stream; a slot still held by another connection (this task's previous instance, whose
        walsender has not yet seen its connection close) is tried again, as Debezium does."""
        for attempt in range(1, self._slot_tries + 1):
            try:
                stream.start(self._start_lsn)
                return
            except psycopg2.errors.ObjectInUse as exc:
                if attempt == self._slot_tries or self._stopping:
                    raise ConnectError(f"Replication slot {stream.slot} stays in use: {exc}".strip()) from exc
                log.info("Slot %s is in use; trying again in %.1f s (%s)", stream.slot, self._slot_retry_s, exc)
                time.sleep(self._slot_retry_s)

    def _row_change(self, change: RowChange) -> list[Emitted]:
        if _OPERATION_CODES[change.operation] in self._skipped:
            return []
        relation = change.relation
        schema = relation.namespace or "pg_catalog"
        if not self._filter.captures(schema, relation.name):
            return []
        events = self._table_events(schema, relation.name)
        at = EventContext(self._source.struct(schema, relation.name, change.position), time.time_ns())
        if change.operation == "INSERT":
            made = events.insert(change.new or (), at)
        elif change.operation == "UPDATE":
            made = events.update(change.new or (), change.old, at)
        else:
            made = events.delete(change.old or (), at)
        position = change.position
        offset = stream_offset(position, change.operation, position.lsn)
        self._position = offset
        return self._stamped(made, offset, f"{schema}.{relation.name}", position)

    def _truncate(self, change: TableTruncate) -> list[Emitted]:
        """A `t` event per captured table of the TRUNCATE; only the last table's offset counts the message as
        processed, as Debezium's."""
        if "t" in self._skipped:
            return []
        position, emitted = change.position, []
        for index, relation in enumerate(change.relations):
            schema = relation.namespace or "pg_catalog"
            if not self._filter.captures(schema, relation.name):
                continue
            last = index == len(change.relations) - 1
            offset = stream_offset(position, "TRUNCATE", position.lsn if last else change.processed_before)
            self._position = offset
            at = EventContext(self._source.struct(schema, relation.name, position), time.time_ns())
            made = self._table_events(schema, relation.name).truncate(at)
            emitted += self._stamped(made, offset, f"{schema}.{relation.name}", position)
        return emitted

    def _logical_message(self, change: EmittedMessage) -> list[Emitted]:
        """An `op=m` record. A transactional message is an event of its transaction that does not count as
        completely processed (Debezium's `isLastEventForLsn`); a non-transactional one is processed and
        committed as it comes, so heartbeats carry its position."""
        message, position = change.message, change.position
        if message.transactional:
            offset = stream_offset(position, "MESSAGE", self._tracker.processed_lsn)
        else:
            offset = self._commit_offset = stream_offset(position, "MESSAGE", position.lsn)
        self._position = offset
        if not self._message_filter.includes(message.prefix):
            return []
        source = self._source.struct("", "", position)
        record = self._messages.record(message, source, time.time_ns() // 1_000_000)
        if not message.transactional:
            return [(record, offset)]
        return self._stamped([record], offset, message_collection(), position)

    def _stamped(
        self, made: list[ChangeRecord], offset: PostgresOffset, table: str, position: ChangePosition
    ) -> list[Emitted]:
        """The records of one change with their offsets, and with transaction metadata their blocks."""
        if self._transactions is None or position.tx_id is None or position.lsn is None:
            return [(record, offset) for record in made]
        emitted: list[Emitted] = []
        for record in made:
            # Each event (a key change makes two) is counted and its offset records the counts so far; a
            # tombstone is a copy of its delete, with the delete's offset.
            if record.value is not None:
                place = self._transactions.event(table, position.tx_id, position.lsn)
                record.value.put("transaction", place.struct())
                offset = self._with_transaction(offset)
            emitted.append((record, offset))
        return emitted

    # -- SourceTask -------------------------------------------------------------------------------------

    def poll(self) -> list[SourceRecord] | None:
        if self._snapshot_rows is not None:
            batch = next(self._snapshot_rows, None)
            if batch is not None:
                return self._source_records(batch)
            self._snapshot_rows = None
        if not self._streaming:
            time.sleep(self._poll_s)  # initial_only: nothing more to do once the snapshot is in Kafka
            return None
        try:
            return self._source_records(self._stream_batch())
        except (psycopg2.InterfaceError, psycopg2.OperationalError) as exc:
            if self._stopping:  # `stop` closed the connection under this poll
                return None
            self._reconnect(exc)
            raise RetriableError(f"Lost the replication connection ({exc}); streaming again") from exc

    def _reconnect(self, error: Exception) -> None:
        """A new replication connection after the last one broke (the server restarted, the walsender timed out
        while the task was paused, the network): streaming starts again after the last position processed, as
        after a restart of the task, and the server's resent messages up to it are dropped."""
        log.warning("Replication connection of %s lost: %s; connecting again", self._server, error)
        assert self._stream is not None
        self._stream.close()
        time.sleep(RECONNECT_PAUSE_S)  # a server that is restarting refuses connections for a while
        self._stream = ReplicationStream(self._params, self._stream.slot, self._publications)
        self._stream_started = False
        if self._position is not None:
            self._start_lsn = self._position.resume_lsn or self._start_lsn
            self._resume = resume_filter(self._position)
        self._tracker = ChangeTracker(last_commit_lsn=self._tracker.last_commit_lsn)
        with contextlib.suppress(psycopg.Error):
            self._catalog.close()
        self._catalog = psycopg.connect(**self._params, autocommit=True)

    def _source_records(self, records: list[Emitted]) -> list[SourceRecord]:
        return [
            SourceRecord(
                self._partition,
                offset.to_map(),
                record.topic,
                None,
                record.key_schema,
                record.key,
                record.value_schema,
                record.value,
                headers=tuple(Header(name, value, schema) for name, schema, value in record.headers),
            )
            for record, offset in records
        ]

    def commit(self) -> None:
        """Offsets are stored: the slot may be confirmed up to the stored offset's commit."""
        self._confirmer.request()

    def _confirm(self, lsn: int) -> None:
        stream = self._stream
        if stream is not None:
            stream.confirm_later(lsn)

    def stop(self) -> None:
        self._stopping = True
        self._confirmer.close()
        if self._heartbeat_action is not None:
            self._heartbeat_action.close()
        if self._stream is not None:
            self._stream.close()
        self._catalog.close()
