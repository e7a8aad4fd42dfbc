"""The records of the config topic: Kafka Connect's keys and JSON values, plus kconnect's.

Kafka's records (those of its `KafkaConfigBackingStore`), read and written byte-compatibly (values are
schemaless JSON, `null` a tombstone):

| key                          | value                                                      |
|------------------------------|------------------------------------------------------------|
| `connector-<c>`              | `{"properties": {...}}`                                    |
| `task-<c>-<n>`               | `{"properties": {...}, "epoch": E}` (staged until commit)  |
| `commit-<c>`                 | `{"tasks": N, "epoch": E}`                                 |
| `target-state-<c>`           | `{"state": "STARTED"/"PAUSED", "state.v2": ...}`           |
| `restart-connector-<c>`      | `{"include-tasks": bool, "only-failed": bool}`             |
| `tasks-fencing-<c>`          | `{"task-count": N}`                                        |
| `logger-cluster-<namespace>` | `{"level": "DEBUG"}`                                       |

`epoch` is kconnect's addition (Java ignores unknown fields): the writer's ownership epoch, so that a
zombie connector instance cannot commit task configs over its successor's. kconnect's own records use
keys starting `kconnect-`: `kconnect-restart-task-<c>-<n>` (a task restart the owning worker executes)
and free-form extension records (`kconnect-<anything else>`, JSON object values) for coordination data.
Pure functions, any thread.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import orjson

from connect.runtime.domain.info import RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, TargetState

log = logging.getLogger(__name__)

CONNECTOR_PREFIX = "connector-"
TASK_PREFIX = "task-"
COMMIT_PREFIX = "commit-"
TARGET_STATE_PREFIX = "target-state-"
RESTART_PREFIX = "restart-connector-"
TASK_COUNT_PREFIX = "tasks-fencing-"
LOGGER_PREFIX = "logger-cluster-"
SESSION_KEY = "session-key"
TASK_RESTART_PREFIX = "kconnect-restart-task-"
EXTENSION_PREFIX = "kconnect-"


# -- keys --------------------------------------------------------------------------------------


def connector_key(name: str) -> bytes:
    return (CONNECTOR_PREFIX + name).encode()


def task_key(task: ConnectorTaskId) -> bytes:
    return f"{TASK_PREFIX}{task.connector}-{task.task}".encode()


def commit_key(name: str) -> bytes:
    return (COMMIT_PREFIX + name).encode()


def target_state_key(name: str) -> bytes:
    return (TARGET_STATE_PREFIX + name).encode()


def restart_key(name: str) -> bytes:
    return (RESTART_PREFIX + name).encode()


def task_count_key(name: str) -> bytes:
    return (TASK_COUNT_PREFIX + name).encode()


def logger_key(namespace: str) -> bytes:
    return (LOGGER_PREFIX + namespace).encode()


def task_restart_key(task: ConnectorTaskId) -> bytes:
    return f"{TASK_RESTART_PREFIX}{task.connector}-{task.task}".encode()


def extension_key(key: str) -> bytes:
    if not key.startswith(EXTENSION_PREFIX) or key.startswith(TASK_RESTART_PREFIX):
        raise ValueError(f"extension record keys start with {EXTENSION_PREFIX!r} (not {TASK_RESTART_PREFIX!r}): {key}")
    return key.encode()


def parse_task_id(suffix: str) -> ConnectorTaskId | None:
    """`<connector>-<n>` (the connector name may contain dashes: the number is after the last one)."""
    connector, dash, number = suffix.rpartition("-")
    if not dash or not connector or not number.isdigit():
        return None
    return ConnectorTaskId(connector, int(number))


# -- values ------------------------------------------------------------------------------------


def _dumps(value: Mapping[str, Any]) -> bytes:
    return orjson.dumps(value)


def properties_value(config: Mapping[str, str], epoch: int | None = None) -> bytes:
    value: dict[str, Any] = {"properties": dict(config)}
    if epoch is not None:
        value["epoch"] = epoch
    return _dumps(value)


def commit_value(tasks: int, epoch: int | None = None) -> bytes:
    value: dict[str, Any] = {"tasks": tasks}
    if epoch is not None:
        value["epoch"] = epoch
    return _dumps(value)


def target_state_value(state: TargetState) -> bytes:
    # `state` is what workers before KIP-875 read: they know no STOPPED, and PAUSED is the nearest.
    legacy = TargetState.PAUSED if state is TargetState.STOPPED else state
    return _dumps({"state": legacy.value, "state.v2": state.value})


def restart_value(request: RestartRequest) -> bytes:
    return _dumps({"include-tasks": request.include_tasks, "only-failed": request.only_failed})


def task_count_value(count: int) -> bytes:
    return _dumps({"task-count": count})


def logger_value(level: str) -> bytes:
    return _dumps({"level": level})


def task_restart_value(requested_ms: int) -> bytes:
    return _dumps({"requested": requested_ms})


def extension_value(value: Mapping[str, Any]) -> bytes:
    return _dumps(value)


# -- decoding (None: not a JSON object; callers log and skip) ----------------------------------


# kconnect's header on the connector records it writes: the REST user who asked (Java ignores headers here).
REQUESTER_HEADER = "kconnect.user"


def requester_headers(user: str | None) -> list[tuple[str, bytes]]:
    return [(REQUESTER_HEADER, user.encode())] if user else []


def requester_of(headers: Mapping[str, bytes]) -> str | None:
    value = headers.get(REQUESTER_HEADER)
    return value.decode("utf-8", errors="replace") if value else None


def parse_object(value: bytes) -> dict[str, Any] | None:
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


def parse_properties(value: Mapping[str, Any]) -> dict[str, str] | None:
    properties = value.get("properties")
    if not isinstance(properties, dict):
        return None
    # Kafka's records hold strings; another writer may have put numbers or booleans, kept as text.
    return {
        str(k): v if isinstance(v, str) else orjson.dumps(v).decode() for k, v in properties.items() if v is not None
    }


def parse_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return None


def parse_target_state(value: Mapping[str, Any]) -> TargetState | None:
    # state.v2 first: it is the only one that can say STOPPED.
    for field in ("state.v2", "state"):
        raw = value.get(field)
        if isinstance(raw, str):
            try:
                return TargetState(raw)
            except ValueError:
                log.error("Unknown target state %r in the config topic", raw)
                return None
    return None


def parse_restart(name: str, value: Mapping[str, Any]) -> RestartRequest:
    return RestartRequest(
        name, only_failed=bool(value.get("only-failed", False)), include_tasks=bool(value.get("include-tasks", False))
    )
