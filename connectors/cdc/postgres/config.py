"""The PostgreSQL CDC source's keys: Debezium 3.6.1's `PostgresConnectorConfig` names, defaults and meanings,
for the part of them kconnect implements. A key of Debezium's that kconnect does not implement yet is refused
at validation with that reason when it is set to anything but Debezium's default, never ignored: a config
that counts on it must not run as if it did not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connect.api import (
    NO_DEFAULT,
    Config,
    ConfigDef,
    ConfigType,
    ConfigValue,
    Importance,
    Range,
    ValidString,
    invalid_value,
)
from connectors.cdc.column_mappers import MAPPER_PREFIXES, mapper_key_problem
from connectors.cdc.naming import HEARTBEAT_TOPIC_PREFIX, TopicNaming
from connectors.cdc.postgres.catalog import ALL_TABLES, DISABLED, FILTERED, NO_TABLES, TableFilter
from connectors.cdc.postgres.columns import ColumnFilter, KeyColumns, key_columns_problem
from connectors.cdc.postgres.logical_messages import PrefixFilter
from connectors.cdc.postgres.types import BinaryMode, DecimalMode, IntervalMode, Modes, TimePrecisionMode

HOSTNAME, PORT, USER, PASSWORD, DBNAME = (
    "database.hostname",
    "database.port",
    "database.user",
    "database.password",
    "database.dbname",
)
TOPIC_PREFIX = "topic.prefix"
PLUGIN_NAME = "plugin.name"
SLOT_NAME = "slot.name"
PUBLICATION_NAME = "publication.name"
PUBLICATION_AUTOCREATE = "publication.autocreate.mode"
SCHEMA_INCLUDE, SCHEMA_EXCLUDE = "schema.include.list", "schema.exclude.list"
TABLE_INCLUDE, TABLE_EXCLUDE = "table.include.list", "table.exclude.list"
COLUMN_INCLUDE, COLUMN_EXCLUDE = "column.include.list", "column.exclude.list"
MESSAGE_KEY_COLUMNS = "message.key.columns"
MESSAGE_PREFIX_INCLUDE, MESSAGE_PREFIX_EXCLUDE = "message.prefix.include.list", "message.prefix.exclude.list"
LIST_PAIRS = ((TABLE_INCLUDE, TABLE_EXCLUDE), (SCHEMA_INCLUDE, SCHEMA_EXCLUDE), (COLUMN_INCLUDE, COLUMN_EXCLUDE))
TOMBSTONES_ON_DELETE = "tombstones.on.delete"
DECIMAL_MODE, TIME_PRECISION_MODE = "decimal.handling.mode", "time.precision.mode"
BINARY_MODE, INTERVAL_MODE = "binary.handling.mode", "interval.handling.mode"
MONEY_FRACTION_DIGITS = "money.fraction.digits"
SNAPSHOT_MODE = "snapshot.mode"
SKIPPED_OPERATIONS = "skipped.operations"
MAX_BATCH_SIZE = "max.batch.size"
POLL_INTERVAL_MS = "poll.interval.ms"
PLACEHOLDER = "unavailable.value.placeholder"
SLOT_MAX_RETRIES, SLOT_RETRY_DELAY_MS = "slot.max.retries", "slot.retry.delay.ms"
HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms"
HEARTBEAT_ACTION_QUERY = "heartbeat.action.query"
TOPIC_HEARTBEAT_PREFIX, TOPIC_HEARTBEAT_NAME = "topic.heartbeat.prefix", "topic.heartbeat.name"
PROVIDE_TRANSACTION_METADATA = "provide.transaction.metadata"

PGOUTPUT = "pgoutput"
INITIAL, INITIAL_ONLY, NO_DATA, ALWAYS, WHEN_NEEDED = "initial", "initial_only", "no_data", "always", "when_needed"
SNAPSHOT_MODES = (INITIAL, INITIAL_ONLY, NO_DATA, ALWAYS, WHEN_NEEDED)
OPERATIONS = ("c", "u", "d", "t")

# Debezium's keys kconnect does not implement yet, with the value under which they change nothing
# (None: any value counts as using the key).
_NOT_YET: dict[str, str | None] = {
    "signal.data.collection": None,
    "include.unknown.datatypes": "false",
    "hstore.handling.mode": "json",
    "topic.naming.strategy": "io.debezium.schema.SchemaTopicNamingStrategy",
    "topic.delimiter": ".",
    "snapshot.select.statement.overrides": None,
    "snapshot.include.collection.list": None,
    "snapshot.max.threads": "1",
    "slot.drop.on.stop": "false",
    "slot.stream.params": None,
    "publish.via.partition.root": "false",
    "replica.identity.autoset.values": None,
    "schema.name.adjustment.mode": "none",
    "field.name.adjustment.mode": "none",
    "column.propagate.source.type": None,
    "datatype.propagate.source.type": None,
    "skip.messages.without.change": "false",
    "lsn.flush.mode": "connector",
    "signal.enabled.channels": "source",
}
_NOT_YET_PREFIXES = ("incremental.snapshot.", "snapshot.mode.")


def _topic_name(name: str, value: Any) -> None:
    _topic_prefix(name, value)


def _topic_prefix(name: str, value: Any) -> None:
    text = "" if value is None else str(value)
    if not text or len(text) > 249 or not re.fullmatch(r"[A-Za-z0-9._-]+", text):
        raise invalid_value(name, value, "1 to 249 characters of ASCII letters, digits, '.', '_' and '-'")


def _optional_topic_name(name: str, value: Any) -> None:
    if value:
        _topic_name(name, value)


def _skipped(name: str, value: Any) -> None:
    parts = [part.strip() for part in str(value or "").split(",") if part.strip()]
    if parts != ["none"] and any(part not in OPERATIONS for part in parts):
        raise invalid_value(name, value, "a comma-separated list of c, u, d and t, or none")


def _key_columns(name: str, value: Any) -> None:
    problem = key_columns_problem(str(value)) if value else None
    if problem:
        raise invalid_value(name, value, problem)


def _enum_values(kind: Any) -> list[str]:
    return [member.value for member in kind]


CONFIG_DEF: ConfigDef = (
    ConfigDef()
    .define(HOSTNAME, ConfigType.STRING, NO_DEFAULT, None, Importance.HIGH, "Resolvable hostname or IP address")
    .define(PORT, ConfigType.INT, 5432, Range.between(1, 65535), Importance.HIGH, "Port of the database server")
    .define(USER, ConfigType.STRING, NO_DEFAULT, None, Importance.HIGH, "Name of the database user")
    .define(PASSWORD, ConfigType.PASSWORD, None, None, Importance.HIGH, "Password of the database user")
    .define(DBNAME, ConfigType.STRING, NO_DEFAULT, None, Importance.HIGH, "The database to stream changes from")
    .define(
        TOPIC_PREFIX,
        ConfigType.STRING,
        NO_DEFAULT,
        _topic_prefix,
        Importance.HIGH,
        "Prefix of every topic name, the server's logical name in events and the offsets' partition",
    )
    .define(
        PLUGIN_NAME,
        ConfigType.STRING,
        "decoderbufs",
        ValidString.in_("decoderbufs", PGOUTPUT),
        Importance.MEDIUM,
        "The logical decoding plug-in on the server: kconnect speaks pgoutput (built into PostgreSQL 10+)",
    )
    .define(SLOT_NAME, ConfigType.STRING, "debezium", None, Importance.MEDIUM, "The logical replication slot")
    .define(
        PUBLICATION_NAME,
        ConfigType.STRING,
        "dbz_publication",
        None,
        Importance.LOW,
        "The publication pgoutput streams",
    )
    .define(
        PUBLICATION_AUTOCREATE,
        ConfigType.STRING,
        ALL_TABLES,
        ValidString.in_(ALL_TABLES, DISABLED, FILTERED, NO_TABLES),
        Importance.LOW,
        "all_tables: create the publication for all tables if missing; filtered: for the captured tables, "
        "kept in step; no_tables: create it empty; disabled: it must exist",
    )
    .define(SCHEMA_INCLUDE, ConfigType.STRING, "", None, Importance.MEDIUM, "Schemas to capture (regexes)")
    .define(SCHEMA_EXCLUDE, ConfigType.STRING, "", None, Importance.MEDIUM, "Schemas not to capture (regexes)")
    .define(TABLE_INCLUDE, ConfigType.STRING, "", None, Importance.MEDIUM, "schema.table to capture (regexes)")
    .define(TABLE_EXCLUDE, ConfigType.STRING, "", None, Importance.MEDIUM, "schema.table not to capture (regexes)")
    .define(COLUMN_INCLUDE, ConfigType.STRING, "", None, Importance.MEDIUM, "schema.table.column in events (regexes)")
    .define(
        COLUMN_EXCLUDE,
        ConfigType.STRING,
        "",
        None,
        Importance.MEDIUM,
        "schema.table.column left out of events' rows (regexes); key columns stay in the key",
    )
    .define(
        MESSAGE_KEY_COLUMNS,
        ConfigType.STRING,
        "",
        _key_columns,
        Importance.MEDIUM,
        "Custom event keys: <table regex>:<column>,<column>;... (columns outside the primary key need REPLICA "
        "IDENTITY FULL for their values in deletes)",
    )
    .define(
        TOMBSTONES_ON_DELETE,
        ConfigType.BOOLEAN,
        True,
        None,
        Importance.MEDIUM,
        "A tombstone (null value) after each delete, so compaction can remove the key",
    )
    .define(
        PROVIDE_TRANSACTION_METADATA,
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.LOW,
        "BEGIN and END records of every transaction to <topic.prefix>.transaction, and a transaction block (its "
        "id, the event's place in it and in its table) in every change event",
    )
    .define(DECIMAL_MODE, ConfigType.STRING, "precise", ValidString.in_(*_enum_values(DecimalMode)), Importance.MEDIUM)
    .define(
        TIME_PRECISION_MODE,
        ConfigType.STRING,
        "adaptive",
        ValidString.in_(*_enum_values(TimePrecisionMode), "isostring"),
        Importance.MEDIUM,
    )
    .define(BINARY_MODE, ConfigType.STRING, "bytes", ValidString.in_(*_enum_values(BinaryMode)), Importance.LOW)
    .define(INTERVAL_MODE, ConfigType.STRING, "numeric", ValidString.in_(*_enum_values(IntervalMode)), Importance.LOW)
    .define(
        MONEY_FRACTION_DIGITS,
        ConfigType.SHORT,
        2,
        Range.at_least(0),
        Importance.LOW,
        "Digits after the decimal point of money values (the scale of their Decimal, decimal.handling.mode=precise)",
    )
    .define(
        SNAPSHOT_MODE,
        ConfigType.STRING,
        INITIAL,
        ValidString.in_(*SNAPSHOT_MODES, "configuration_based", "custom"),
        Importance.MEDIUM,
        "initial: snapshot, then stream; initial_only: snapshot only; no_data: stream only; always: snapshot "
        "at every start; when_needed: as initial, and a snapshot again when the stored position is no longer "
        "on the server (its slot is gone), where the others fail",
    )
    .define(
        SKIPPED_OPERATIONS,
        ConfigType.STRING,
        "t",
        _skipped,
        Importance.LOW,
        "Operations not to emit (c, u, d, t) or none",
    )
    .define(MAX_BATCH_SIZE, ConfigType.INT, 2048, Range.at_least(1), Importance.LOW, "Most events a poll returns")
    .define(
        POLL_INTERVAL_MS,
        ConfigType.LONG,
        500,
        Range.at_least(1),
        Importance.LOW,
        "How long a poll waits for changes",
    )
    .define(
        HEARTBEAT_INTERVAL_MS,
        ConfigType.INT,
        0,
        Range.at_least(0),
        Importance.MEDIUM,
        "How often, at most, to write a heartbeat to __debezium-heartbeat.<topic.prefix> carrying the position "
        "of the last commit seen, so the slot moves on while only tables that are not captured change (0: never)",
    )
    .define(
        MESSAGE_PREFIX_INCLUDE,
        ConfigType.STRING,
        "",
        None,
        Importance.LOW,
        "Regular expressions (comma-separated) of the pg_logical_emit_message prefixes to write to "
        "<topic.prefix>.message (all, if empty)",
    )
    .define(
        MESSAGE_PREFIX_EXCLUDE,
        ConfigType.STRING,
        "",
        None,
        Importance.LOW,
        "Regular expressions (comma-separated) of the message prefixes not to write",
    )
    .define(
        HEARTBEAT_ACTION_QUERY,
        ConfigType.STRING,
        "",
        None,
        Importance.LOW,
        "SQL run on the database with every heartbeat, e.g. an upsert into a small published table, so a slot "
        "whose captured tables are quiet still has changes to be confirmed past (needs heartbeat.interval.ms)",
    )
    .define(
        TOPIC_HEARTBEAT_PREFIX,
        ConfigType.STRING,
        HEARTBEAT_TOPIC_PREFIX,
        _topic_name,
        Importance.LOW,
        "The heartbeat topic is <this>.<topic.prefix>",
    )
    .define(
        TOPIC_HEARTBEAT_NAME,
        ConfigType.STRING,
        "",
        _optional_topic_name,
        Importance.LOW,
        "The heartbeat topic's whole name, in place of <topic.heartbeat.prefix>.<topic.prefix> (connectors may "
        "share it)",
    )
    .define(
        SLOT_MAX_RETRIES,
        ConfigType.INT,
        6,
        Range.at_least(0),
        Importance.LOW,
        "How often to try again to stream from a slot another connection still holds",
    )
    .define(
        SLOT_RETRY_DELAY_MS,
        ConfigType.LONG,
        10000,
        Range.at_least(0),
        Importance.LOW,
        "How long to wait between those tries",
    )
    .define(
        PLACEHOLDER,
        ConfigType.STRING,
        "__debezium_unavailable_value",
        None,
        Importance.LOW,
        "What stands for an unchanged TOASTed value the server did not send",
    )
)


def _refusals(props: Mapping[str, str]) -> dict[str, str]:
    """Errors by key for what kconnect does not do (yet) though Debezium does."""
    errors: dict[str, str] = {}
    for key, value in props.items():
        harmless = _NOT_YET.get(key, "")
        if (key in _NOT_YET and (harmless is None or str(value).strip().lower() != harmless.lower())) or key.startswith(
            _NOT_YET_PREFIXES
        ):
            errors[key] = f"{key} is not supported by kconnect's PostgreSQL connector yet"
    for key in props:
        if key.startswith(MAPPER_PREFIXES) and (problem := mapper_key_problem(key)):
            errors[key] = problem
    if props.get(PLUGIN_NAME, "decoderbufs") != PGOUTPUT:
        errors[PLUGIN_NAME] = (
            "kconnect speaks pgoutput, PostgreSQL's built-in logical decoding plug-in: set plugin.name=pgoutput"
        )
    mode = props.get(SNAPSHOT_MODE, INITIAL)
    if mode not in SNAPSHOT_MODES:
        errors[SNAPSHOT_MODE] = f"snapshot.mode={mode} is not supported yet; kconnect has {', '.join(SNAPSHOT_MODES)}"
    if props.get(TIME_PRECISION_MODE) == "isostring":
        errors[TIME_PRECISION_MODE] = "time.precision.mode=isostring is not supported yet"
    for include, exclude in (*LIST_PAIRS, (MESSAGE_PREFIX_INCLUDE, MESSAGE_PREFIX_EXCLUDE)):
        if props.get(include) and props.get(exclude):
            errors[exclude] = f"{include} and {exclude} exclude each other"
    return errors


def validate(props: Mapping[str, str]) -> list[ConfigValue]:
    results = CONFIG_DEF.validate(props)
    by_name = {result.name: result for result in results}
    for key, message in _refusals(props).items():
        result = by_name.get(key)
        if result is None:
            result = ConfigValue(key, props.get(key))
            results.append(result)
        result.error_messages.append(message)
    return results


def errors(props: Mapping[str, str]) -> list[str]:
    """Every validation error of `props`, for a task or connector that refuses to start on any."""
    return [f"{v.name}: {message}" for v in validate(props) for message in v.error_messages]


def modes(config: Config) -> Modes:
    return Modes(
        decimal=DecimalMode(config.get_str(DECIMAL_MODE)),
        time_precision=TimePrecisionMode(config.get_str(TIME_PRECISION_MODE)),
        binary=BinaryMode(config.get_str(BINARY_MODE)),
        interval=IntervalMode(config.get_str(INTERVAL_MODE)),
        money_fraction_digits=config.get_int(MONEY_FRACTION_DIGITS),
    )


def table_filter(config: Config) -> TableFilter:
    return TableFilter(
        table_include=config.get_str(TABLE_INCLUDE),
        table_exclude=config.get_str(TABLE_EXCLUDE),
        schema_include=config.get_str(SCHEMA_INCLUDE),
        schema_exclude=config.get_str(SCHEMA_EXCLUDE),
    )


def column_filter(config: Config) -> ColumnFilter:
    return ColumnFilter(config.get_str(COLUMN_INCLUDE), config.get_str(COLUMN_EXCLUDE))


def topic_naming(config: Config) -> TopicNaming:
    return TopicNaming(
        config.get_str(TOPIC_PREFIX),
        heartbeat_prefix=config.get_str(TOPIC_HEARTBEAT_PREFIX),
        heartbeat_name=config.get_str(TOPIC_HEARTBEAT_NAME),
    )


def message_filter(config: Config) -> PrefixFilter:
    return PrefixFilter(config.get_str(MESSAGE_PREFIX_INCLUDE), config.get_str(MESSAGE_PREFIX_EXCLUDE))


def key_columns(config: Config) -> KeyColumns:
    return KeyColumns(config.get_str(MESSAGE_KEY_COLUMNS))


def skipped_operations(config: Config) -> set[str]:
    parts = {part.strip() for part in config.get_str(SKIPPED_OPERATIONS).split(",") if part.strip()}
    return set() if parts == {"none"} else parts


def connection_params(config: Config) -> dict[str, Any]:
    password = config.get_password(PASSWORD)
    params: dict[str, Any] = {
        "host": config.get_str(HOSTNAME),
        "port": config.get_int(PORT),
        "user": config.get_str(USER),
        "dbname": config.get_str(DBNAME),
    }
    if password is not None:
        params["password"] = password.value
    return params
