"""`SqlSinkTask`: writes each put's records to the database in one transaction (see `sink_writer`).

It takes batches (`put_batches`) with value columns: Avro values become rows straight from the decoded
columns, and a `SinkRecord` is built only for a record it reports (`sink_batch_rows`). `put` takes
records (a connector with transforms, older callers) and writes the same rows.

Failures, as Confluent's JdbcSinkTask handles them:
- a record that cannot become a row, or that the database refuses (wrong type, too long, a null key),
  goes to the errant record reporter (KIP-610) with the reason, so `errors.tolerance=all` sends it to
  the dead letter queue and carries on, and `errors.tolerance=none` fails the task with that reason.
  Without a reporter (no dead letter queue and no error log) the task fails with the reason;
- the database being unreachable makes `put` raise RetriableError after `retry.backoff.ms` set as the
  context's timeout, so the runtime redelivers the same records; after `max.retries` such failures in
  a row the task fails with the database's reason. Writes are committed in `put`, so the offsets the
  runtime commits afterwards never run ahead of the database.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence

import sqlalchemy as sa

from connect.api import Config, ConnectError, DataError, RetriableError, SinkRecord, SinkRecordBatch, SinkTask
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
from connectors.sql.sink_batch_rows import rows_of_batch
from connectors.sql.sink_config import CONFIG_DEF, UPSERT, SinkSettings
from connectors.sql.sink_rows import Origin, SinkRow, record_at, to_row
from connectors.sql.sink_statements import UPSERT_DIALECTS
from connectors.sql.sink_writer import SinkWriter, is_connection_failure

log = logging.getLogger(__name__)


Refused = list[tuple[Origin, int, str]]
"""Records that did not become rows, by where they are (see `SinkRow`), with the reason."""


class SqlSinkTask(SinkTask):
    """Writes records as rows; see the module docstring."""

    takes_value_columns = True

    def __init__(self) -> None:
        self._engine: sa.Engine | None = None
        self._connection: sa.Connection | None = None
        self._connection_settings: ConnectionSettings | None = None
        self._settings: SinkSettings | None = None
        self._writer: SinkWriter | None = None
        self._retries_left = 0
        self._stop = threading.Event()

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG_DEF, props)
        self._settings = SinkSettings.from_config(config)
        self._connection_settings = connection_settings(config)
        self._engine = create_engine(self._connection_settings)
        if self._settings.insert_mode == UPSERT and self._engine.dialect.name not in UPSERT_DIALECTS:
            raise ConnectError(f"insert.mode=upsert is not supported for {self._engine.dialect.name}")
        self._writer = SinkWriter(self._settings, db_timezone(config.get_str(DB_TIMEZONE)))
        self._retries_left = self._settings.max_retries

    def put(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            return
        assert self._settings is not None
        rows: list[SinkRow] = []
        refused: Refused = []
        for record in records:
            try:
                rows.append(to_row(record, self._settings))
            except DataError as exc:
                refused.append((record, 0, str(exc)))
        self._write(rows, refused)

    def put_batches(self, batches: Sequence[SinkRecordBatch]) -> None:
        if not any(batches):
            return
        assert self._settings is not None
        rows: list[SinkRow] = []
        refused: Refused = []
        for batch in batches:
            made, failed = rows_of_batch(batch, self._settings)
            rows += made
            refused += [(batch, index, reason) for index, reason in failed]
        self._write(rows, refused)

    def _write(self, rows: list[SinkRow], refused: Refused) -> None:
        """Writes `rows` in one transaction, then reports what was refused, before or by the database."""
        assert self._settings is not None and self._writer is not None
        try:
            written = self._writer.write(self._connected(), rows)
            refused += [(row.origin, row.index, reason) for row, reason in written]
        except (sa.exc.DBAPIError, RetriableError) as exc:
            if isinstance(exc, sa.exc.DBAPIError) and not is_connection_failure(exc):
                raise ConnectError(f"Writing to the database failed: {describe_error(exc)}") from exc
            self._retry_later(exc)
        self._retries_left = self._settings.max_retries
        self._report(refused)

    def _connected(self) -> sa.Connection:
        if self._connection is None or self._connection.invalidated or self._connection.closed:
            assert self._engine is not None and self._connection_settings is not None
            self._connection = connect_with_retries(self._engine, self._connection_settings, self._stop)
        return self._connection

    def _retry_later(self, exc: Exception) -> None:
        assert self._settings is not None and self._writer is not None
        reason = describe_error(exc) if isinstance(exc, sa.exc.DBAPIError) else str(exc)
        self._close_connection()
        self._writer.tables.forget()  # the database may come back changed
        if self._retries_left <= 0:
            raise ConnectError(
                f"Writing to the database failed {self._settings.max_retries + 1} times in a row: {reason}"
            ) from exc
        self._retries_left -= 1
        log.warning(
            "Writing failed (%d retries left), retrying in %d ms: %s",
            self._retries_left,
            self._settings.retry_backoff_ms,
            reason,
        )
        self.context.timeout(self._settings.retry_backoff_ms)
        raise RetriableError(reason) from exc

    def _report(self, refused: Refused) -> None:
        if not refused:
            return
        reporter = self.context.errant_record_reporter
        for origin, index, reason in refused:
            record = record_at(origin, index)
            error = DataError(f"Record {record.topic}-{record.kafka_partition}@{record.kafka_offset}: {reason}")
            if reporter is None:
                raise error
            reporter.report(record, error)

    def _close_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            close_quietly(connection)

    def stop(self) -> None:
        self._stop.set()
        self._close_connection()
        if self._engine is not None:
            self._engine.dispose()
