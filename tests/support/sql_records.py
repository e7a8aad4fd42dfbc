"""Helpers of the SQL connector integration tests (this module holds no tests): reading a topic's JSON
records as they arrive, producing records with schemas, and the DDL each database spells differently."""

from __future__ import annotations

import json
import uuid
from typing import Any

from confluent_kafka import Consumer, Producer

from tests.fixtures.sql.plugin import SqlDatabase

JSON_WITH_SCHEMAS = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "true",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "true",
}


def serial_key(database: SqlDatabase) -> str:
    """An auto-increment integer primary key column definition."""
    return {
        "sqlite": "INTEGER PRIMARY KEY",
        "postgresql": "SERIAL PRIMARY KEY",
        "mariadb": "INT AUTO_INCREMENT PRIMARY KEY",
    }[database.kind]


def timestamp_type(database: SqlDatabase) -> str:
    return {"sqlite": "TIMESTAMP", "postgresql": "TIMESTAMP(3)", "mariadb": "DATETIME(3)"}[database.kind]


class TopicReader:
    """Reads a topic from the beginning; `read()` returns every record seen so far (decoded JSON values,
    with the raw headers), polling briefly for more each call."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"sql-check-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "topic.metadata.refresh.interval.ms": 500,
            }
        )
        self._consumer.subscribe([topic])
        self.values: list[Any] = []
        self.headers: list[dict[str, bytes]] = []

    def read(self, wait_s: float = 0.5) -> list[Any]:
        for message in self._consumer.consume(1000, wait_s):
            if message.error() is not None:
                continue
            raw = message.value()
            self.values.append(None if raw is None else json.loads(raw))
            headers: list[tuple[str, bytes | None]] = list(message.headers() or [])
            self.headers.append({key: value or b"" for key, value in headers})
        return self.values

    def close(self) -> None:
        self._consumer.close()


def payloads(values: list[Any]) -> list[dict[str, Any]]:
    return [value["payload"] for value in values if value is not None]


def struct_json(fields: list[tuple[str, str, bool]], payload: dict[str, Any] | None, name: str) -> bytes | None:
    """A JsonConverter envelope: `fields` are (name, Connect type, optional)."""
    if payload is None:
        return None
    schema = {
        "type": "struct",
        "name": name,
        "optional": False,
        "fields": [{"field": f, "type": t, "optional": o} for f, t, o in fields],
    }
    return json.dumps({"schema": schema, "payload": payload}).encode()


def produce(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes | None]]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for key, value in records:
        producer.produce(topic, value=value, key=key)
    assert producer.flush(30) == 0
