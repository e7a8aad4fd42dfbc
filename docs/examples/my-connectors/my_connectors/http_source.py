"""my_connectors/http_source.py"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import httpx
from connect.api import (
    STRING_SCHEMA,
    Config,
    ConfigDef,
    ConfigType,
    Importance,
    RetriableError,
    SourceConnector,
    SourceRecord,
    SourceTask,
    non_empty_string,
)

CONFIG = (
    ConfigDef()
    .define(
        "url",
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.HIGH,
        documentation="The endpoint to poll.",
    )
    .define(
        "topic",
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.HIGH,
        documentation="The topic to write the items to.",
    )
    .define(
        "poll.interval.ms",
        ConfigType.LONG,
        default=1000,
        importance=Importance.MEDIUM,
        documentation="How long to wait between two polls that found nothing.",
    )
)


class HttpSourceConnector(SourceConnector):
    def version(self) -> str:
        return "1.0.0"

    def config(self) -> ConfigDef:
        return CONFIG

    def start(self, props: Mapping[str, str]) -> None:
        Config(CONFIG, props)  # raises ConfigError naming a bad key
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return HttpSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [self.props]  # one endpoint, one task

    def stop(self) -> None:
        pass


class HttpSourceTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG, props)
        self.url, self.topic = config.get_str("url"), config.get_str("topic")
        self.idle_s = config.get_int("poll.interval.ms") / 1000
        self.partition = {"url": self.url}
        stored = self.context.offset_reader.offset(self.partition)
        self.after: int = int(stored["id"]) if stored else 0
        self.client = httpx.Client(timeout=10)
        self.stopping = False

    def poll(self) -> list[SourceRecord] | None:
        try:
            items: list[dict[str, Any]] = self.client.get(self.url, params={"after": self.after}).json()
        except httpx.HTTPError as exc:
            raise RetriableError(f"could not poll {self.url}: {exc}") from exc  # polled again
        if not items:
            time.sleep(self.idle_s)  # short enough for stop() to be seen soon
            return None
        records = []
        for item in items:
            self.after = int(item["id"])
            records.append(
                SourceRecord(
                    self.partition,
                    {"id": self.after},
                    self.topic,
                    key_schema=STRING_SCHEMA,
                    key=str(item["id"]),
                    value=item,  # schemaless: JsonConverter writes the dict as a JSON object
                )
            )
        return records

    def stop(self) -> None:
        self.client.close()
