"""SparkParquetSinkConnector: Kafka -> Parquet on any Hadoop filesystem, exactly once, via PySpark.

The connector only validates settings and copies them to every task; all the work is in
`spark_sink.task.SparkParquetSinkTask`. Each topic partition is owned by one task at a time (the
consumer group decides), and the commit manifests fence any task that lags behind a rebalance.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect.api import ConfigDef, ConfigError, ConfigValue, ConnectError, SinkConnector, SinkTask, TopicPartition
from connect.api.version import distribution_version
from spark_sink.config import CONFIG_DEF, PARTITIONER_CLASS_CONFIG, SinkSettings

EXTRA_HINT = "The Spark Parquet sink needs pyspark and pyarrow: pip install 'kconnect[spark]'"


class SparkParquetSinkConnector(SinkConnector):
    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        _check(props)
        self._props = dict(props)

    def task_class(self) -> type[SinkTask]:
        try:
            from spark_sink.task import SparkParquetSinkTask
        except ImportError as exc:
            raise ConnectError(EXTRA_HINT) from exc
        return SparkParquetSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        pass  # no background work of its own

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        values = super().validate(props)
        if any(v.error_messages for v in values):
            return values
        try:
            _check(props)
        except ConfigError as exc:
            by_name = {v.name: v for v in values}
            by_name[PARTITIONER_CLASS_CONFIG].error_messages.append(str(exc))
        return values

    def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]) -> bool:
        raise ConfigError(
            "The Spark Parquet sink resumes from the commit manifests under its path, not from the consumer "
            "group's offsets: changing those would have no effect. Remove or edit _commits/ instead."
        )


def _check(props: Mapping[str, str]) -> None:
    """Every cross-field check the task would do at start (partitioner and extractor settings included)."""
    try:
        from spark_sink.partitioners import load_partitioner, load_timestamp_extractor
    except ImportError as exc:
        raise ConfigError(EXTRA_HINT) from exc

    settings = SinkSettings.from_props(props)
    load_partitioner(settings.raw)
    if settings.rotate_interval_ms > 0:
        load_timestamp_extractor(settings.raw)
