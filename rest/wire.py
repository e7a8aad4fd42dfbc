"""Responses encoded once: the herder's domain values straight to Kafka Connect's JSON bytes.

FastAPI checks a handler's return value against its response model and then serialises it; for a
plain (sync) handler the check is one more hop through the thread pool. For values the herder built
that is pure overhead, paid on every read. The handlers of the connector reads and writes therefore
return a `JsonAnswer` of the plain dicts built here, and keep the `rest.schemas` entity as their
`response_model`, which is what the OpenAPI docs are made from.

Each builder mirrors its entity in `rest.schemas` field for field, in the same order, with the same
omissions (an empty `trace`, an expansion not asked for); tests hold both to the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

from connect.runtime.domain import info as domain
from connect.runtime.domain.states import ConnectorTaskId

Json = dict[str, Any]


class JsonAnswer(Response):
    """`application/json` encoded by orjson: compact UTF-8, as pydantic's own JSON is."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def connector_task_id(task: ConnectorTaskId) -> Json:
    return {"connector": task.connector, "task": task.task}


def connector_info(connector: domain.ConnectorInfo) -> Json:
    return {
        "name": connector.name,
        "config": _plain(connector.config),
        "tasks": [connector_task_id(task) for task in connector.tasks],
        "type": connector.type.value,
    }


def config_version(version: domain.ConfigVersion, config: Mapping[str, str] | None) -> Json:
    """A history entry, with `config` as the caller may see it."""
    return {
        "version": version.version,
        "timestamp": version.timestamp_ms,
        "user": version.user,
        "config": _plain(config) if config is not None else None,
    }


def task_info(task: domain.TaskInfo) -> Json:
    return {"id": connector_task_id(task.id), "config": _plain(task.config)}


def connector_state(status: domain.InstanceStatus) -> Json:
    state = {"state": status.state.value, "worker_id": status.worker_id}
    if status.trace:
        state["trace"] = status.trace
    return state


def task_state(task: domain.TaskStateInfo) -> Json:
    status = task.status
    state: Json = {"id": task.id, "state": status.state.value, "worker_id": status.worker_id}
    if status.trace:
        state["trace"] = status.trace
    return state


def connector_state_info(state: domain.ConnectorStateInfo) -> Json:
    return {
        "name": state.name,
        "connector": connector_state(state.connector),
        "tasks": [task_state(task) for task in sorted(state.tasks, key=lambda task: task.id)],
        "type": state.type.value,
    }


def connector_expansions(status: domain.ConnectorStateInfo | None, info: domain.ConnectorInfo | None) -> Json:
    """One connector of `GET /connectors?expand=...`: only the expansions asked for."""
    expansions: Json = {}
    if status is not None:
        expansions["status"] = connector_state_info(status)
    if info is not None:
        expansions["info"] = connector_info(info)
    return expansions


def _plain(config: Mapping[str, str]) -> dict[str, str]:
    # orjson encodes dicts only; the herders' configs usually are dicts already, so no copy then.
    return config if type(config) is dict else dict(config)
