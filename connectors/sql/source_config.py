"""The SQL source's keys: Confluent's `JdbcSourceConnectorConfig` names, defaults and meanings.

Cross-field rules (Confluent's): `mode` must be set; `query` excludes the table lists; the legacy
`table.whitelist`/`table.blacklist` exclude each other and the newer `table.include.list`/
`table.exclude.list`; `table.exclude.list` needs `table.include.list`.
"""

from __future__ import annotations

from typing import Any

from connect.api import (
    NO_DEFAULT,
    Config,
    ConfigDef,
    ConfigError,
    ConfigType,
    ConfigValue,
    Importance,
    Range,
    ValidList,
    ValidString,
    invalid_value,
)
from connectors.sql.common_config import define_connection_keys

MODE = "mode"
INCREMENTING_COLUMN = "incrementing.column.name"
TIMESTAMP_COLUMNS = "timestamp.column.name"
TIMESTAMP_INITIAL = "timestamp.initial"
TIMESTAMP_DELAY_MS = "timestamp.delay.interval.ms"
VALIDATE_NON_NULL = "validate.non.null"
TABLE_WHITELIST = "table.whitelist"
TABLE_BLACKLIST = "table.blacklist"
TABLE_INCLUDE_LIST = "table.include.list"
TABLE_EXCLUDE_LIST = "table.exclude.list"
SCHEMA_PATTERN = "schema.pattern"
CATALOG_PATTERN = "catalog.pattern"
TABLE_TYPES = "table.types"
TABLE_POLL_INTERVAL_MS = "table.poll.interval.ms"
QUERY = "query"
QUERY_SUFFIX = "query.suffix"
POLL_INTERVAL_MS = "poll.interval.ms"
BATCH_MAX_ROWS = "batch.max.rows"
NUMERIC_MAPPING = "numeric.mapping"
TOPIC_PREFIX = "topic.prefix"
QUOTE_SQL_IDENTIFIERS = "quote.sql.identifiers"

# The tables one task reads, set by the connector in each task's config: a JSON list of [schema, table].
TASK_TABLES = "tables"

MODE_BULK = "bulk"
MODE_INCREMENTING = "incrementing"
MODE_TIMESTAMP = "timestamp"
MODE_TIMESTAMP_INCREMENTING = "timestamp+incrementing"

TIMESTAMP_INITIAL_CURRENT = -1
"""`timestamp.initial=-1`: start from the database's current time."""

NUMERIC_NONE = "none"
NUMERIC_PRECISION_ONLY = "precision_only"
NUMERIC_BEST_FIT = "best_fit"
NUMERIC_BEST_FIT_EAGER_DOUBLE = "best_fit_eager_double"

_TABLE_TYPES = ("TABLE", "VIEW", "SYSTEM TABLE", "GLOBAL TEMPORARY", "LOCAL TEMPORARY", "ALIAS", "SYNONYM")


def _topic_prefix(name: str, value: Any) -> None:
    text = "" if value is None else str(value)
    if len(text) > 249 or any(not (c.isascii() and (c.isalnum() or c in "._-")) for c in text):
        raise invalid_value(name, value, "at most 249 characters of ASCII letters, digits, '.', '_' and '-'")


CONFIG_DEF: ConfigDef = (
    define_connection_keys(ConfigDef())
    .define(
        MODE,
        ConfigType.STRING,
        "",
        ValidString.in_("", MODE_BULK, MODE_INCREMENTING, MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING),
        Importance.HIGH,
        "How to detect new and changed rows: bulk (the whole table each poll), incrementing (a strictly "
        "increasing column), timestamp (a modification timestamp column), timestamp+incrementing (both)",
        group="Mode",
    )
    .define(
        INCREMENTING_COLUMN,
        ConfigType.STRING,
        "",
        None,
        Importance.MEDIUM,
        "The strictly increasing, non-null column; empty: the table's auto-increment column",
        group="Mode",
    )
    .define(
        TIMESTAMP_COLUMNS,
        ConfigType.LIST,
        "",
        None,
        Importance.MEDIUM,
        "Timestamp column(s) to detect new or modified rows; several are combined with COALESCE",
        group="Mode",
    )
    .define(
        TIMESTAMP_INITIAL,
        ConfigType.LONG,
        None,
        None,
        Importance.LOW,
        "Epoch milliseconds to start timestamp modes from when no offset is stored; -1: the database's "
        "current time; unset: from the beginning",
        group="Mode",
    )
    .define(
        TIMESTAMP_DELAY_MS,
        ConfigType.LONG,
        0,
        Range.at_least(0),
        Importance.HIGH,
        "How long after a row's timestamp it is read, so transactions with earlier timestamps can commit",
        group="Mode",
    )
    .define(
        VALIDATE_NON_NULL,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.LOW,
        "Fail when the incrementing or timestamp columns are nullable",
        group="Mode",
    )
    .define(
        TABLE_WHITELIST,
        ConfigType.LIST,
        "",
        None,
        Importance.MEDIUM,
        "Tables to copy (names or schema-qualified names); deprecated: use table.include.list",
        group="Tables",
    )
    .define(
        TABLE_BLACKLIST,
        ConfigType.LIST,
        "",
        None,
        Importance.MEDIUM,
        "Tables not to copy; deprecated: use table.exclude.list",
        group="Tables",
    )
    .define(
        TABLE_INCLUDE_LIST,
        ConfigType.LIST,
        "",
        None,
        Importance.MEDIUM,
        "Regular expressions matching the fully-qualified names of the tables to copy",
        group="Tables",
    )
    .define(
        TABLE_EXCLUDE_LIST,
        ConfigType.LIST,
        "",
        None,
        Importance.MEDIUM,
        "Regular expressions matching the fully-qualified names of tables not to copy (needs table.include.list)",
        group="Tables",
    )
    .define(
        SCHEMA_PATTERN,
        ConfigType.STRING,
        None,
        None,
        Importance.MEDIUM,
        "SQL LIKE pattern of the schemas to read tables from; unset: the connection's default schema",
        group="Tables",
    )
    .define(
        CATALOG_PATTERN,
        ConfigType.STRING,
        None,
        None,
        Importance.MEDIUM,
        "SQL LIKE pattern of the catalogs; MariaDB/MySQL databases are catalogs, so it selects them there",
        group="Tables",
    )
    .define(
        TABLE_TYPES,
        ConfigType.LIST,
        "TABLE",
        ValidList.in_(*_TABLE_TYPES),
        Importance.LOW,
        "Kinds of table to copy: TABLE and VIEW are read; the other JDBC kinds are accepted and find nothing",
        group="Tables",
    )
    .define(
        TABLE_POLL_INTERVAL_MS,
        ConfigType.LONG,
        60_000,
        Range.at_least(1),
        Importance.LOW,
        "How often to look for added or removed tables, which then start or stop without a restart",
        group="Tables",
    )
    .define(
        QUERY,
        ConfigType.STRING,
        "",
        None,
        Importance.MEDIUM,
        "A SELECT to run instead of copying tables; the mode's WHERE clause is appended to it",
        group="Tables",
    )
    .define(
        QUERY_SUFFIX,
        ConfigType.STRING,
        "",
        None,
        Importance.LOW,
        "SQL appended to the generated query (e.g. a locking or hint clause)",
        group="Tables",
    )
    .define(
        POLL_INTERVAL_MS,
        ConfigType.INT,
        5_000,
        Range.at_least(0),
        Importance.HIGH,
        "How often each table is queried for new data",
        group="Connector",
    )
    .define(
        BATCH_MAX_ROWS,
        ConfigType.INT,
        100,
        Range.at_least(1),
        Importance.LOW,
        "Maximum rows in one batch handed to Kafka",
        group="Connector",
    )
    .define(
        NUMERIC_MAPPING,
        ConfigType.STRING,
        None,
        ValidString.in_(NUMERIC_NONE, NUMERIC_PRECISION_ONLY, NUMERIC_BEST_FIT, NUMERIC_BEST_FIT_EAGER_DOUBLE),
        Importance.LOW,
        "How NUMERIC/DECIMAL columns map: none (Connect Decimal), precision_only (integers when the scale is "
        "0), best_fit (also doubles when the precision fits), best_fit_eager_double (doubles whenever scale > 0)",
        group="Connector",
    )
    .define(
        TOPIC_PREFIX,
        ConfigType.STRING,
        NO_DEFAULT,
        _topic_prefix,
        Importance.HIGH,
        "Prefix of the topic names: the topic of a table is the prefix and the table's name; with a query, "
        "the prefix is the topic",
        group="Connector",
    )
    .define(
        QUOTE_SQL_IDENTIFIERS,
        ConfigType.STRING,
        "always",
        ValidString.in_("always", "never"),
        Importance.LOW,
        "Accepted for compatibility: identifiers are quoted as the database needs them",
        group="Connector",
    )
)


def cross_field_errors(results: list[ConfigValue]) -> None:
    """Confluent's checks between keys, added to the results of the keys involved."""
    values = {result.name: result.value for result in results}
    by_name = {result.name: result for result in results}

    def listed(name: str) -> bool:
        return bool(values.get(name))

    if not values.get(MODE):
        by_name[MODE].error_messages.append("Query mode must be specified")
    if listed(TABLE_WHITELIST) and listed(TABLE_BLACKLIST):
        by_name[TABLE_BLACKLIST].error_messages.append(
            f"{TABLE_WHITELIST} and {TABLE_BLACKLIST} are exclusive, set only one"
        )
    legacy = listed(TABLE_WHITELIST) or listed(TABLE_BLACKLIST)
    if legacy and (listed(TABLE_INCLUDE_LIST) or listed(TABLE_EXCLUDE_LIST)):
        by_name[TABLE_INCLUDE_LIST].error_messages.append(
            f"{TABLE_INCLUDE_LIST}/{TABLE_EXCLUDE_LIST} cannot be combined with {TABLE_WHITELIST}/{TABLE_BLACKLIST}"
        )
    if listed(TABLE_EXCLUDE_LIST) and not listed(TABLE_INCLUDE_LIST):
        by_name[TABLE_EXCLUDE_LIST].error_messages.append(f"{TABLE_EXCLUDE_LIST} needs {TABLE_INCLUDE_LIST}")
    if values.get(QUERY) and (legacy or listed(TABLE_INCLUDE_LIST)):
        by_name[QUERY].error_messages.append("Do not specify table filtering for query based source")
    mode = values.get(MODE)
    if mode in (MODE_TIMESTAMP, MODE_TIMESTAMP_INCREMENTING) and not listed(TIMESTAMP_COLUMNS):
        by_name[TIMESTAMP_COLUMNS].error_messages.append(f"{TIMESTAMP_COLUMNS} is required in mode {mode}")
    needs_column = mode in (MODE_INCREMENTING, MODE_TIMESTAMP_INCREMENTING) and not values.get(INCREMENTING_COLUMN)
    if values.get(QUERY) and needs_column:
        by_name[INCREMENTING_COLUMN].error_messages.append(
            f"{INCREMENTING_COLUMN} is required with a query (there is no table to find it in)"
        )


def check(config: Config) -> None:
    """Raises the first cross-field error of a parsed config (what `start` does)."""
    results = [ConfigValue(name, value) for name, value in config.values.items()]
    cross_field_errors(results)
    for result in results:
        if result.error_messages:
            raise ConfigError(result.error_messages[0])
