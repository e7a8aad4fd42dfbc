"""`SqlSinkConnector`: Confluent's JdbcSinkConnector on SQLAlchemy (`io.confluent.connect.jdbc.JdbcSinkConnector`).

Every task gets the connector's config: the topics' partitions are spread over the tasks by the
runtime's consumer group, so there is nothing to divide here.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect.api import Config, ConfigDef, ConfigValue, SinkConnector, SinkTask
from connect.api.version import distribution_version
from connectors.sql.common_config import validate_config
from connectors.sql.sink_config import CONFIG_DEF, SinkSettings, cross_field_errors
from connectors.sql.sink_task import SqlSinkTask


class SqlSinkConnector(SinkConnector):
    """Writes records from Kafka topics as rows of database tables."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return distribution_version("kconnect")

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        return validate_config(CONFIG_DEF, cross_field_errors, props)

    def start(self, props: Mapping[str, str]) -> None:
        SinkSettings.from_config(Config(CONFIG_DEF, props))
        self._props = dict(props)

    def task_class(self) -> type[SinkTask]:
        return SqlSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        pass  # the tasks hold the connections
