"""The SQL sink's keys: Confluent's `JdbcSinkConfig` names, defaults and meanings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connect.api import Config, ConfigDef, ConfigError, ConfigType, ConfigValue, Importance, Range, ValidString
from connectors.sql.common_config import define_connection_keys

INSERT_MODE = "insert.mode"
PK_MODE = "pk.mode"
PK_FIELDS = "pk.fields"
FIELDS_WHITELIST = "fields.whitelist"
TABLE_NAME_FORMAT = "table.name.format"
AUTO_CREATE = "auto.create"
AUTO_EVOLVE = "auto.evolve"
DELETE_ENABLED = "delete.enabled"
BATCH_SIZE = "batch.size"
MAX_RETRIES = "max.retries"
RETRY_BACKOFF_MS = "retry.backoff.ms"
QUOTE_SQL_IDENTIFIERS = "quote.sql.identifiers"

INSERT, UPSERT, UPDATE = "insert", "upsert", "update"
PK_NONE, PK_KAFKA, PK_RECORD_KEY, PK_RECORD_VALUE = "none", "kafka", "record_key", "record_value"
KAFKA_PK_DEFAULTS = ("__connect_topic", "__connect_partition", "__connect_offset")

CONFIG_DEF: ConfigDef = (
    define_connection_keys(ConfigDef())
    .define(
        INSERT_MODE,
        ConfigType.STRING,
        INSERT,
        ValidString.in_(INSERT, UPSERT, UPDATE, ignore_case=True),
        Importance.HIGH,
        "insert: INSERT only; upsert: insert or update by primary key with the database's native form; "
        "update: UPDATE only",
        group="Writes",
    )
    .define(
        BATCH_SIZE,
        ConfigType.INT,
        3000,
        Range.at_least(0),
        Importance.MEDIUM,
        "Rows written in one statement batch",
        group="Writes",
    )
    .define(
        DELETE_ENABLED,
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "Delete the row of a record with a null value (a tombstone); needs pk.mode=record_key",
        group="Writes",
    )
    .define(
        TABLE_NAME_FORMAT,
        ConfigType.STRING,
        "${topic}",
        None,
        Importance.MEDIUM,
        "The destination table's name; ${topic} is replaced by the record's topic",
        group="Data Mapping",
    )
    .define(
        PK_MODE,
        ConfigType.STRING,
        PK_NONE,
        ValidString.in_(PK_NONE, PK_KAFKA, PK_RECORD_KEY, PK_RECORD_VALUE, ignore_case=True),
        Importance.HIGH,
        "Where the primary key comes from: none, kafka (topic, partition, offset), record_key, record_value",
        group="Data Mapping",
    )
    .define(
        PK_FIELDS,
        ConfigType.LIST,
        "",
        None,
        Importance.MEDIUM,
        "The primary key columns: kafka: three names (default __connect_topic,__connect_partition,"
        "__connect_offset); record_key: key fields (empty: all; a primitive key needs one name); "
        "record_value: value fields (empty: all)",
        group="Data Mapping",
    )
    .define(
        FIELDS_WHITELIST,
        ConfigType.LIST,
        "",
        None,
        Importance.MEDIUM,
        "Value fields to write (empty: all); the primary key columns are written regardless",
        group="Data Mapping",
    )
    .define(
        AUTO_CREATE,
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "CREATE a missing destination table from the record's schema",
        group="DDL Support",
    )
    .define(
        AUTO_EVOLVE,
        ConfigType.BOOLEAN,
        False,
        None,
        Importance.MEDIUM,
        "ALTER the table to ADD columns for fields it lacks (nullable ones, or with a default); never drops",
        group="DDL Support",
    )
    .define(
        QUOTE_SQL_IDENTIFIERS,
        ConfigType.STRING,
        "always",
        ValidString.in_("always", "never"),
        Importance.LOW,
        "Accepted for compatibility: identifiers are quoted as the database needs them",
        group="DDL Support",
    )
    .define(
        MAX_RETRIES,
        ConfigType.INT,
        10,
        Range.at_least(0),
        Importance.MEDIUM,
        "How many times a put that failed because of the database is retried before the task fails",
        group="Retries",
    )
    .define(
        RETRY_BACKOFF_MS,
        ConfigType.INT,
        3000,
        Range.at_least(0),
        Importance.MEDIUM,
        "Milliseconds to wait before retrying a failed put",
        group="Retries",
    )
)


@dataclass(frozen=True)
class SinkSettings:
    insert_mode: str
    pk_mode: str
    pk_fields: tuple[str, ...]
    fields_whitelist: frozenset[str]
    table_name_format: str
    auto_create: bool
    auto_evolve: bool
    delete_enabled: bool
    batch_size: int
    max_retries: int
    retry_backoff_ms: int

    @staticmethod
    def from_config(config: Config) -> SinkSettings:
        settings = SinkSettings.from_values(config.values)
        problem = settings.problem()
        if problem is not None:
            raise ConfigError(problem[1])
        return settings

    @staticmethod
    def from_values(values: Mapping[str, Any]) -> SinkSettings:
        return SinkSettings(
            insert_mode=str(values[INSERT_MODE]).lower(),
            pk_mode=str(values[PK_MODE]).lower(),
            pk_fields=tuple(values[PK_FIELDS] or ()),
            fields_whitelist=frozenset(values[FIELDS_WHITELIST] or ()),
            table_name_format=str(values[TABLE_NAME_FORMAT]),
            auto_create=bool(values[AUTO_CREATE]),
            auto_evolve=bool(values[AUTO_EVOLVE]),
            delete_enabled=bool(values[DELETE_ENABLED]),
            batch_size=int(values[BATCH_SIZE]),
            max_retries=int(values[MAX_RETRIES]),
            retry_backoff_ms=int(values[RETRY_BACKOFF_MS]),
        )

    def problem(self) -> tuple[str, str] | None:
        """The first cross-field error as (key, message), or None."""
        if self.delete_enabled and self.pk_mode != PK_RECORD_KEY:
            return DELETE_ENABLED, "Primary key mode must be 'record_key' when delete support is enabled"
        if self.insert_mode in (UPSERT, UPDATE) and self.pk_mode == PK_NONE:
            return PK_MODE, f"insert.mode={self.insert_mode} needs a primary key: set pk.mode"
        if self.pk_mode == PK_KAFKA and self.pk_fields and len(self.pk_fields) != 3:
            return PK_FIELDS, "pk.mode=kafka needs three pk.fields (topic, partition and offset columns)"
        return None


def cross_field_errors(results: list[ConfigValue]) -> None:
    """Adds the first cross-field error to the key it concerns (when every key parsed)."""
    if any(result.error_messages for result in results):
        return
    problem = SinkSettings.from_values({result.name: result.value for result in results}).problem()
    if problem is not None:
        next(r for r in results if r.name == problem[0]).error_messages.append(problem[1])
