"""`io.debezium.connector.postgresql.PostgresConnector`'s equivalent: one task streaming one database's
changes (Debezium's connector has one task too: one slot is read by one connection)."""

from __future__ import annotations

from collections.abc import Mapping

from connect.api import ConfigDef, ConfigValue, ConnectError, ExactlyOnceSupport, SourceConnector, SourceTask
from connect.api.version import distribution_version
from connectors.cdc.postgres import config as keys
from connectors.cdc.postgres.task import PostgresSourceTask


class PostgresConnector(SourceConnector):
    """Streams every insert, update and delete of a PostgreSQL database, in commit order, as Debezium does."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return keys.CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        return keys.validate(props)

    def start(self, props: Mapping[str, str]) -> None:
        problems = keys.errors(props)
        if problems:
            raise ConnectError("Invalid configuration: " + "; ".join(problems))
        self._props = dict(props)

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        """Supported, as Debezium's says: each record carries the exact stream position it was made at, and a
        task resumed from a committed offset drops everything up to it. (A snapshot cut short is read again
        whole, as Debezium's is: its rows already committed are then in the topic twice.)"""
        return ExactlyOnceSupport.SUPPORTED

    def task_class(self) -> type[SourceTask]:
        return PostgresSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        self._props = {}
