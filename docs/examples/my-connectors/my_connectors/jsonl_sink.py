"""my_connectors/jsonl_sink.py"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import IO

from connect.api import (
    Config,
    ConfigDef,
    ConfigType,
    Importance,
    SinkConnector,
    SinkRecord,
    SinkTask,
    TopicPartition,
    non_empty_string,
)

CONFIG = ConfigDef().define(
    "file",
    ConfigType.STRING,
    validator=non_empty_string,
    importance=Importance.HIGH,
    documentation="The file the records' values are appended to, one JSON value a line.",
)


class JsonLinesSinkConnector(SinkConnector):
    def version(self) -> str:
        return "1.0.0"

    def config(self) -> ConfigDef:
        return CONFIG

    def start(self, props: Mapping[str, str]) -> None:
        Config(CONFIG, props)
        self.props = dict(props)

    def task_class(self) -> type[SinkTask]:
        return JsonLinesSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]  # one file, one writer

    def stop(self) -> None:
        pass


class JsonLinesSinkTask(SinkTask):
    def start(self, props: Mapping[str, str]) -> None:
        self.out: IO[str] = open(Config(CONFIG, props).get_str("file"), "a", encoding="utf-8")

    def put(self, records: Sequence[SinkRecord]) -> None:
        for record in records:
            self.out.write(json.dumps(record.value, default=str) + "\n")

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        self.out.flush()  # durable before the worker commits these offsets

    def stop(self) -> None:
        self.out.close()
