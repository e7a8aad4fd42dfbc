"""`/connectors`: list, create, read, reconfigure and delete connectors, and read their tasks' configs.

Answers are encoded once by `rest.wire`; the `response_model`s are for the OpenAPI docs. The list with
`?expand` is kept between requests while nothing in it changes (`rest.expand_answers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Annotated
from urllib.parse import quote

import orjson
from fastapi import APIRouter, Path, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from connect.runtime.domain.errors import BadRequestError
from connect.runtime.domain.states import TargetState
from rest import wire
from rest.authorization.enforcement import authorization_on, visible_names
from rest.authorization.secrets import config_for
from rest.deps import JSON_BODY, ExpandAnswersDep, HerderDep
from rest.errors import documented
from rest.schemas import (
    ConfigPatch,
    ConfigVersionInfo,
    ConnectorConfig,
    ConnectorExpansions,
    ConnectorInfo,
    CreateConnectorRequest,
    TaskInfo,
)
from rest.wire import JsonAnswer

router = APIRouter(prefix="/connectors", tags=["connectors"], responses=documented(500))

ConnectorName = Annotated[str, Path(description="The connector's name")]


@router.get("", response_model=list[str] | dict[str, ConnectorExpansions])
async def list_connectors(
    request: Request,
    herder: HerderDep,
    answers: ExpandAnswersDep,
    expand: Annotated[list[str] | None, Query(description="status and/or info; repeatable")] = None,
) -> Response:
    """Connector names; with `expand=status` and/or `expand=info`, an object keyed by name."""
    if expand is None:
        return JsonAnswer(visible_names(request, await run_in_threadpool(herder.connectors)))
    wanted = {part.strip() for value in expand for part in value.split(",")}
    body = await answers.body("status" in wanted, "info" in wanted)
    if authorization_on(request):
        body = await run_in_threadpool(_as_seen_by, request, body)
    return Response(body, media_type=JsonAnswer.media_type)


def _as_seen_by(request: Request, body: bytes) -> bytes:
    """An `?expand` answer cut to the connectors the caller may view, their configs as it may see them."""
    overviews = orjson.loads(body)
    shown = {}
    for name in visible_names(request, list(overviews)):
        overview = overviews[name]
        info = overview.get("info")
        if isinstance(info, dict) and isinstance(info.get("config"), dict):
            overview = {**overview, "info": {**info, "config": config_for(request, name, info["config"])}}
        shown[name] = overview
    return orjson.dumps(shown)


@router.post("", status_code=201, response_model=ConnectorInfo, dependencies=JSON_BODY, responses=documented(400, 409))
def create_connector(body: CreateConnectorRequest, herder: HerderDep, request: Request) -> Response:
    """Create a connector; 201 with `Location: /connectors/{name}`, 409 if the name is taken."""
    name = (body.name or "").strip()
    initial_state = _initial_state(body.initial_state)
    # The herder checks that a `name` in the config matches and adds it otherwise (Kafka's
    # checkAndPutConnectorConfigName), for this request as for every other writer.
    _, info = herder.put_connector_config(name, body.config, allow_replace=False, initial_state=initial_state)
    return JsonAnswer(wire.connector_info(info), status_code=201, headers={"Location": _location(request, name)})


@router.get("/{connector}", response_model=ConnectorInfo, responses=documented(404))
def get_connector(connector: ConnectorName, herder: HerderDep, request: Request) -> Response:
    """The connector's config, task ids and type."""
    info = herder.connector_info(connector)
    return JsonAnswer(wire.connector_info(replace(info, config=config_for(request, connector, info.config))))


@router.delete("/{connector}", status_code=204, responses=documented(404, 409))
def delete_connector(connector: ConnectorName, herder: HerderDep) -> None:
    """Delete the connector and stop its tasks."""
    herder.delete_connector(connector)


@router.get("/{connector}/config", response_model=dict[str, str], responses=documented(404))
def get_connector_config(connector: ConnectorName, herder: HerderDep, request: Request) -> Response:
    """The connector's config exactly as submitted (references unresolved)."""
    return JsonAnswer(config_for(request, connector, herder.connector_config(connector)))


@router.put(
    "/{connector}/config",
    dependencies=JSON_BODY,
    response_model=ConnectorInfo,
    responses={201: {"model": ConnectorInfo, "description": "Created"}, **documented(400, 409)},
)
def put_connector_config(
    connector: ConnectorName, config: ConnectorConfig, herder: HerderDep, request: Request
) -> Response:
    """Create (201) or replace (200) the connector's config."""
    created, info = herder.put_connector_config(connector, config, allow_replace=True)
    if created:
        return JsonAnswer(
            wire.connector_info(info), status_code=201, headers={"Location": _location(request, connector)}
        )
    return JsonAnswer(wire.connector_info(info))


@router.patch(
    "/{connector}/config", response_model=ConnectorInfo, dependencies=JSON_BODY, responses=documented(400, 404, 409)
)
def patch_connector_config(connector: ConnectorName, patch: ConfigPatch, herder: HerderDep) -> Response:
    """Merge keys into the connector's config; a null value removes the key."""
    return JsonAnswer(wire.connector_info(herder.patch_connector_config(connector, patch)))


@router.get("/{connector}/tasks", response_model=list[TaskInfo], responses=documented(404))
def get_task_configs(connector: ConnectorName, herder: HerderDep, request: Request) -> Response:
    """The connector's tasks with their configs."""
    tasks = herder.task_configs(connector)
    return JsonAnswer([wire.task_info(replace(t, config=config_for(request, connector, t.config))) for t in tasks])


@router.get(
    "/{connector}/tasks-config", response_model=dict[str, dict[str, str]], deprecated=True, responses=documented(404)
)
def get_tasks_config(connector: ConnectorName, herder: HerderDep, request: Request) -> Response:
    """The tasks' configs keyed by task id (deprecated in Kafka 3.7; use `/tasks`)."""
    tasks = herder.task_configs(connector)
    return JsonAnswer({str(task.id): config_for(request, connector, task.config) for task in tasks})


@router.get("/{connector}/history", response_model=list[ConfigVersionInfo], responses=documented(404))
def get_connector_history(connector: ConnectorName, herder: HerderDep, request: Request) -> Response:
    """kconnect's: the versions of the connector's config still known, oldest first, with who wrote each and
    when (`config` null: that version deleted it). Distributed, read from the config topic (what compaction
    left); standalone, those since the worker started. Secrets hidden as in `GET .../config`."""
    versions = herder.connector_history(connector)
    return JsonAnswer([wire.config_version(v, _shown(request, connector, v.config)) for v in versions])


def _shown(request: Request, connector: str, config: Mapping[str, str] | None) -> dict[str, str] | None:
    return None if config is None else config_for(request, connector, config)


def _initial_state(text: str | None) -> TargetState | None:
    if text is None:
        return None
    try:
        return TargetState.from_initial_state(text)
    except ValueError:
        raise BadRequestError(f"Invalid initial_state '{text}'; expected RUNNING, PAUSED or STOPPED") from None


def _location(request: Request, name: str) -> str:
    # Absolute, as Jersey makes Kafka's relative `/connectors/{name}` against the server's base URI.
    return f"{str(request.base_url).rstrip('/')}/connectors/{quote(name)}"
