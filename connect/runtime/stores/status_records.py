"""The records of the status topic, in Kafka Connect's keys and JSON values (Kafka's `KafkaStatusBackingStore`).

| key                                   | value                                                          |
|---------------------------------------|----------------------------------------------------------------|
| `status-connector-<c>`                | `{"state", "trace", "worker_id", "generation"}`                |
| `status-task-<c>-<n>`                 | the same                                                       |
| `status-topic-<t>:connector-<c>`      | `{"topic": {"name", "connector", "task", "discoverTimestamp"}}` |

A tombstone is Kafka's DESTROYED (deleted connector or task, reset topics). Pure functions, any thread.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import orjson

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.stores.config_records import parse_int, parse_object

log = logging.getLogger(__name__)

CONNECTOR_PREFIX = "status-connector-"
TASK_PREFIX = "status-task-"
TOPIC_PREFIX = "status-topic-"
TOPIC_SEPARATOR = ":connector-"


@dataclass(frozen=True)
class StatusEntry:
    """A status as written: the instance status plus the writer's generation."""

    status: InstanceStatus
    generation: int


@dataclass(frozen=True)
class TopicStatus:
    """A topic a connector's task used (KIP-558), first seen at `discover_timestamp` (ms)."""

    topic: str
    connector: str
    task: int
    discover_timestamp: int


def connector_key(connector: str) -> bytes:
    return (CONNECTOR_PREFIX + connector).encode()


def task_key(task: ConnectorTaskId) -> bytes:
    return f"{TASK_PREFIX}{task.connector}-{task.task}".encode()


def topic_key(topic: str, connector: str) -> bytes:
    return f"{TOPIC_PREFIX}{topic}{TOPIC_SEPARATOR}{connector}".encode()


def status_value(entry: StatusEntry) -> bytes:
    status = entry.status
    return orjson.dumps(
        {
            "state": status.state.value,
            "trace": status.trace,
            "worker_id": status.worker_id,
            "generation": entry.generation,
        }
    )


def topic_value(status: TopicStatus) -> bytes:
    return orjson.dumps(
        {
            "topic": {
                "name": status.topic,
                "connector": status.connector,
                "task": status.task,
                "discoverTimestamp": status.discover_timestamp,
            }
        }
    )


def parse_status(value: bytes) -> StatusEntry | None:
    parsed = parse_object(value)
    if parsed is None:
        return None
    try:
        state = State(parsed.get("state"))
    except ValueError:
        return None
    worker = parsed.get("worker_id")
    trace = parsed.get("trace")
    generation = parse_int(parsed.get("generation"))
    return StatusEntry(
        InstanceStatus(state, worker if isinstance(worker, str) else "", trace if isinstance(trace, str) else None),
        generation if generation is not None else 0,
    )


def parse_topic_key(suffix: str) -> tuple[str, str] | None:
    """(topic, connector) from what follows `status-topic-`; topic names cannot contain ':'."""
    topic, separator, connector = suffix.partition(TOPIC_SEPARATOR)
    return (topic, connector) if separator and topic and connector else None


def parse_topic(value: bytes) -> TopicStatus | None:
    parsed = parse_object(value)
    inner: Any = parsed.get("topic") if parsed is not None else None
    if not isinstance(inner, dict):
        return None
    name, connector = inner.get("name"), inner.get("connector")
    if not isinstance(name, str) or not isinstance(connector, str):
        return None
    return TopicStatus(
        name, connector, parse_int(inner.get("task")) or 0, parse_int(inner.get("discoverTimestamp")) or 0
    )
