"""`SqlSourceConnector`: Confluent's JdbcSourceConnector on SQLAlchemy.

Configs for `io.confluent.connect.jdbc.JdbcSourceConnector` run on it unchanged.

With `query`, one task runs it. Otherwise the connector lists the tables the filters accept, spreads
them over up to `tasks.max` tasks (each task gets a contiguous share, sizes differing by at most one),
and a monitor thread lists them again every `table.poll.interval.ms`: when the set changed it asks
the runtime for new task configs, so added tables start being copied and dropped ones stop, without a
restart (Confluent's TableMonitorThread). With no table found there are no tasks until one appears.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

import sqlalchemy as sa

from connect.api import (
    Config,
    ConfigDef,
    ConfigValue,
    ConnectError,
    ExactlyOnceSupport,
    SourceConnector,
    SourceTask,
)
from connect.api.version import distribution_version
from connectors.sql.common_config import connection_settings, validate_config
from connectors.sql.connection import ConnectionSettings, connect_with_retries, create_engine, describe_error
from connectors.sql.source_config import (
    CATALOG_PATTERN,
    CONFIG_DEF,
    MODE,
    MODE_INCREMENTING,
    MODE_TIMESTAMP_INCREMENTING,
    QUERY,
    SCHEMA_PATTERN,
    TABLE_BLACKLIST,
    TABLE_EXCLUDE_LIST,
    TABLE_INCLUDE_LIST,
    TABLE_POLL_INTERVAL_MS,
    TABLE_TYPES,
    TABLE_WHITELIST,
    TASK_TABLES,
    check,
    cross_field_errors,
)
from connectors.sql.source_task import SqlSourceTask
from connectors.sql.tables import TableFilter, TableId, encode_tables, list_tables, spread

log = logging.getLogger(__name__)

_EXACT_MODES = (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING)


def table_filter(config: Config) -> TableFilter:
    return TableFilter(
        whitelist=tuple(config.get_list(TABLE_WHITELIST)),
        blacklist=tuple(config.get_list(TABLE_BLACKLIST)),
        include=tuple(config.get_list(TABLE_INCLUDE_LIST)),
        exclude=tuple(config.get_list(TABLE_EXCLUDE_LIST)),
        schema_pattern=config.get_optional_str(SCHEMA_PATTERN),
        catalog_pattern=config.get_optional_str(CATALOG_PATTERN),
        table_types=tuple(t.upper() for t in config.get_list(TABLE_TYPES)),
    )


class SqlSourceConnector(SourceConnector):
    """Copies tables, or the result of a query, from a database to Kafka topics."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}
        self._query = ""
        self._tables: list[TableId] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._monitor: threading.Thread | None = None
        self._engine: sa.Engine | None = None
        self._settings: ConnectionSettings | None = None
        self._filter = TableFilter()

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        return validate_config(CONFIG_DEF, cross_field_errors, props)

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG_DEF, props)
        check(config)
        self._props = dict(props)
        self._query = config.get_str(QUERY)
        if self._query:
            return
        self._settings = connection_settings(config)
        self._filter = table_filter(config)
        self._engine = create_engine(self._settings)
        self._stop.clear()
        self._tables = self._list_tables()
        interval_s = config.get_int(TABLE_POLL_INTERVAL_MS) / 1000
        self._monitor = threading.Thread(
            target=self._watch_tables, args=(interval_s,), name="sql-source-table-monitor", daemon=True
        )
        self._monitor.start()

    def _list_tables(self) -> list[TableId]:
        assert self._engine is not None and self._settings is not None
        try:
            with connect_with_retries(self._engine, self._settings, self._stop) as connection:
                return list_tables(connection, self._filter)
        except sa.exc.DBAPIError as exc:
            raise ConnectError(f"Listing the tables failed: {describe_error(exc)}") from exc

    def _watch_tables(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                tables = self._list_tables()
            except ConnectError as exc:
                # A database that is away for a while is no reason to fail: the tasks report that.
                log.warning("Could not look for added or removed tables: %s", exc)
                continue
            with self._lock:
                changed = tables != self._tables
                if changed:
                    log.info(
                        "The tables to copy changed from %d to %d; reconfiguring the tasks",
                        len(self._tables),
                        len(tables),
                    )
                    self._tables = tables
            if changed:
                self.context.request_task_reconfiguration()

    def task_class(self) -> type[SourceTask]:
        return SqlSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if self._query:
            return [dict(self._props)]
        with self._lock:
            tables = list(self._tables)
        if not tables:
            log.warning("No tables match the connector's filters yet; no tasks until one appears")
        return [{**self._props, TASK_TABLES: encode_tables(group)} for group in spread(tables, max_tasks)]

    def stop(self) -> None:
        self._stop.set()
        if self._monitor is not None:
            self._monitor.join(timeout=30)
            self._monitor = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        # With offsets committed in the records' transaction (KIP-618), the modes whose offset names the
        # last row exactly resume without a repeat; timestamp mode re-reads a run of equal timestamps after
        # a restart, and bulk mode re-reads everything by design.
        mode = props.get(MODE, "")
        return ExactlyOnceSupport.SUPPORTED if mode in _EXACT_MODES else ExactlyOnceSupport.UNSUPPORTED
