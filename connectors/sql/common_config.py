"""The keys both SQL connectors share (Confluent's JDBC names and defaults), and their validation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from connect.api import (
    NO_DEFAULT,
    Config,
    ConfigDef,
    ConfigType,
    ConfigValue,
    Importance,
    Password,
    Range,
)
from connectors.sql.connection import ConnectionSettings, check_reachable, db_timezone

CONNECTION_URL = "connection.url"
CONNECTION_USER = "connection.user"
CONNECTION_PASSWORD = "connection.password"
CONNECTION_ATTEMPTS = "connection.attempts"
CONNECTION_BACKOFF_MS = "connection.backoff.ms"
DB_TIMEZONE = "db.timezone"

CONNECTION_GROUP = "Database"


def define_connection_keys(definition: ConfigDef) -> ConfigDef:
    return (
        definition.define(
            CONNECTION_URL,
            ConfigType.STRING,
            NO_DEFAULT,
            None,
            Importance.HIGH,
            "JDBC URL (jdbc:postgresql://, jdbc:mariadb://, jdbc:mysql://, jdbc:sqlite:) or SQLAlchemy URL "
            "(dialect+driver://user:password@host:port/database) of the database",
            group=CONNECTION_GROUP,
            order_in_group=1,
        )
        .define(
            CONNECTION_USER,
            ConfigType.STRING,
            None,
            None,
            Importance.HIGH,
            "JDBC connection user; overrides a user in the URL",
            group=CONNECTION_GROUP,
            order_in_group=2,
        )
        .define(
            CONNECTION_PASSWORD,
            ConfigType.PASSWORD,
            None,
            None,
            Importance.HIGH,
            "JDBC connection password; overrides a password in the URL",
            group=CONNECTION_GROUP,
            order_in_group=3,
        )
        .define(
            CONNECTION_ATTEMPTS,
            ConfigType.INT,
            3,
            Range.at_least(1),
            Importance.LOW,
            "Maximum number of attempts to get a valid connection",
            group=CONNECTION_GROUP,
            order_in_group=4,
        )
        .define(
            CONNECTION_BACKOFF_MS,
            ConfigType.LONG,
            10_000,
            Range.at_least(0),
            Importance.LOW,
            "Backoff time in milliseconds between connection attempts",
            group=CONNECTION_GROUP,
            order_in_group=5,
        )
        .define(
            DB_TIMEZONE,
            ConfigType.STRING,
            "UTC",
            _timezone_validator,
            Importance.MEDIUM,
            "Name of the time zone of timestamps without a zone in the database (an IANA name such as "
            "Europe/Berlin); the connector's sessions use it too",
        )
    )


def _timezone_validator(name: str, value: Any) -> None:
    if value is not None:
        db_timezone(str(value))


def connection_settings(config: Config) -> ConnectionSettings:
    return ConnectionSettings(
        url=config.get_str(CONNECTION_URL),
        user=config.get_optional_str(CONNECTION_USER),
        password=config.get_password(CONNECTION_PASSWORD),
        attempts=config.get_int(CONNECTION_ATTEMPTS),
        backoff_ms=config.get_int(CONNECTION_BACKOFF_MS),
        timezone=config.get_str(DB_TIMEZONE),
    )


def validate_connection(results: list[ConfigValue]) -> None:
    """Adds the database's answer to `connection.url`'s result when the connection keys themselves are valid."""
    by_name = {result.name: result for result in results}
    keys = (CONNECTION_URL, CONNECTION_USER, CONNECTION_PASSWORD, DB_TIMEZONE)
    if any(by_name[key].error_messages for key in keys):
        return
    password = by_name[CONNECTION_PASSWORD].value
    settings = ConnectionSettings(
        url=str(by_name[CONNECTION_URL].value),
        user=by_name[CONNECTION_USER].value,
        password=password if isinstance(password, Password) else None,
        timezone=str(by_name[DB_TIMEZONE].value),
    )
    problem = check_reachable(settings)
    if problem is not None:
        by_name[CONNECTION_URL].error_messages.append(problem)


def validate_config(
    definition: ConfigDef, cross_field_errors: Callable[[list[ConfigValue]], None], props: Mapping[str, str]
) -> list[ConfigValue]:
    """`Connector.validate` of both SQL connectors: each key, then the connector's rules across keys, then
    the database's answer (only when the connection keys are valid)."""
    results = definition.validate(props)
    cross_field_errors(results)
    validate_connection(results)
    return results
