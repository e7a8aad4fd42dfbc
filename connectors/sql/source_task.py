"""`SqlSourceTask`: runs the queriers of its tables (or of the query) in turn on one connection.

`poll` serves the querier whose turn came first: it keeps reading from it while its result lasts, then
schedules it `poll.interval.ms` later and moves on, as Confluent's JdbcSourceTask. With nothing due,
`poll` waits (at most a second, ended at once by `stop`) and returns None. A database that stops
answering makes `poll` raise RetriableError, so the runtime polls again; the connection is made anew
then, with `connection.attempts`/`connection.backoff.ms`.

Offsets: at start each querier resumes from the stored offset of its partition (protocol 1 first,
then the bare table name of older versions), or from `timestamp.initial`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Mapping

import sqlalchemy as sa

from connect.api import Config, RetriableError, SourceRecord, SourceRecordBatch, SourceTask
from connect.api.version import distribution_version
from connectors.sql.common_config import DB_TIMEZONE, connection_settings
from connectors.sql.connection import (
    ConnectionSettings,
    close_quietly,
    connect_with_retries,
    create_engine,
    db_timezone,
    describe_error,
)
from connectors.sql.querier import Querier, QuerySettings, database_now
from connectors.sql.source_config import (
    BATCH_MAX_ROWS,
    CONFIG_DEF,
    INCREMENTING_COLUMN,
    MODE,
    MODE_BULK,
    MODE_TIMESTAMP,
    MODE_TIMESTAMP_INCREMENTING,
    NUMERIC_MAPPING,
    POLL_INTERVAL_MS,
    QUERY,
    QUERY_SUFFIX,
    TASK_TABLES,
    TIMESTAMP_COLUMNS,
    TIMESTAMP_DELAY_MS,
    TIMESTAMP_INITIAL,
    TIMESTAMP_INITIAL_CURRENT,
    TOPIC_PREFIX,
    VALIDATE_NON_NULL,
)
from connectors.sql.source_offsets import (
    Position,
    legacy_table_partition,
    query_partition,
    table_partition,
)
from connectors.sql.tables import TableId, decode_tables

log = logging.getLogger(__name__)

_MAX_IDLE_WAIT_S = 1.0


class SqlSourceTask(SourceTask):
    """Copies rows of its tables, or of the query, to Kafka; see the module docstring."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._engine: sa.Engine | None = None
        self._connection: sa.Connection | None = None
        self._settings: ConnectionSettings | None = None
        self._queue: list[tuple[float, int, Querier]] = []
        self._current: Querier | None = None
        self._batch_max_rows = 100
        self._poll_interval_s = 5.0
        self._zone: dt.tzinfo = dt.UTC
        self._turns = itertools.count()  # breaks ties between queriers due at the same time
        # Held while poll works; stop takes it to close the connection once no poll uses it.
        self._polling = threading.Lock()

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG_DEF, props)
        self._settings = connection_settings(config)
        self._engine = create_engine(self._settings)
        self._batch_max_rows = config.get_int(BATCH_MAX_ROWS)
        self._poll_interval_s = config.get_int(POLL_INTERVAL_MS) / 1000
        mode = config.get_str(MODE)
        query = config.get_str(QUERY)
        zone = self._zone = db_timezone(config.get_str(DB_TIMEZONE))
        prefix = config.get_str(TOPIC_PREFIX)

        def settings_for(topic: str) -> QuerySettings:
            return QuerySettings(
                mode=mode,
                incrementing_column=config.get_str(INCREMENTING_COLUMN),
                timestamp_columns=tuple(config.get_list(TIMESTAMP_COLUMNS)),
                delay_ms=config.get_int(TIMESTAMP_DELAY_MS),
                validate_non_null=config.get_bool(VALIDATE_NON_NULL),
                numeric_mapping=config.get_optional_str(NUMERIC_MAPPING),
                zone=zone,
                query=query,
                query_suffix=config.get_str(QUERY_SUFFIX),
                topic=topic,
            )

        initial = config.get(TIMESTAMP_INITIAL)
        queriers: list[Querier] = []
        if query:
            partition = query_partition()
            position = self._stored_position([partition], mode, initial)
            queriers.append(Querier(settings_for(prefix), None, partition, position))
        else:
            for table in decode_tables(props.get(TASK_TABLES, "[]")):
                partitions = _table_partitions(table, mode)
                position = self._stored_position(partitions, mode, initial)
                queriers.append(Querier(settings_for(prefix + table.name), table, partitions[0], position))
        self._queue = [(0.0, next(self._turns), q) for q in queriers]
        heapq.heapify(self._queue)
        log.info("SQL source task started with %d table(s)/quer(ies) in mode %s", len(queriers), mode)

    def _stored_position(self, partitions: list[dict[str, str]], mode: str, initial: int | None) -> Position:
        if mode == MODE_BULK:
            return Position()
        for partition, offset in self.context.offset_reader.offsets(partitions):
            if offset:
                log.info("Resuming %s from offset %s", partition, offset)
                return Position.from_offset(offset)
        if initial is None or mode not in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING):
            return Position()
        if initial == TIMESTAMP_INITIAL_CURRENT:
            return Position(self._database_now())
        return Position.from_millis(initial)

    def _database_now(self) -> dt.datetime:
        with self._connect() as connection:
            return database_now(connection, self._zone)

    def _connect(self) -> sa.Connection:
        assert self._engine is not None and self._settings is not None
        return connect_with_retries(self._engine, self._settings, self._stop)

    def poll(self) -> list[SourceRecord] | None:
        batches = self.poll_batches()
        return [record for batch in batches for record in batch] if batches else None

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        with self._polling:
            batch = self._poll()
        return [batch] if batch is not None else None

    def _poll(self) -> SourceRecordBatch | None:
        while not self._stop.is_set():
            querier = self._current or self._due_querier()
            if querier is None:
                return None
            self._current = querier
            try:
                if self._connection is None:
                    self._connection = self._connect()
                batch = querier.read(self._connection, self._batch_max_rows)
            except sa.exc.DBAPIError as exc:
                self._drop_connection(querier)
                raise RetriableError(f"Reading {querier.partition} failed: {describe_error(exc)}") from exc
            if batch is not None:
                return batch
            # The result is exhausted: this querier's next turn is one poll interval from now.
            self._current = None
            querier.next_run = time.monotonic() + self._poll_interval_s
            heapq.heappush(self._queue, (querier.next_run, next(self._turns), querier))
        return None

    def _due_querier(self) -> Querier | None:
        if not self._queue:
            self._stop.wait(_MAX_IDLE_WAIT_S)
            return None
        due, _, querier = self._queue[0]
        wait = due - time.monotonic()
        if wait > 0:
            self._stop.wait(min(wait, _MAX_IDLE_WAIT_S))
            return None
        heapq.heappop(self._queue)
        return querier

    def _drop_connection(self, querier: Querier) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        with contextlib.suppress(sa.exc.SQLAlchemyError):  # broken already: closing it below is all that is left
            querier.reset(connection)
        close_quietly(connection)

    def stop(self) -> None:
        # Called from another thread: a poll in progress ends within a second of the signal.
        self._stop.set()
        if not self._polling.acquire(timeout=30):
            log.warning("A poll did not end within 30 s of stop; its connection is left to the pool")
            return
        try:
            if self._current is not None:
                self._drop_connection(self._current)
            elif self._connection is not None:
                self._connection.close()
                self._connection = None
            if self._engine is not None:
                self._engine.dispose()
        finally:
            self._polling.release()


def _table_partitions(table: TableId, mode: str) -> list[dict[str, str]]:
    if mode == MODE_BULK:
        return [legacy_table_partition(table)]
    return [table_partition(table), legacy_table_partition(table)]
