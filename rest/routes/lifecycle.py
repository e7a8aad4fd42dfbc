"""Connector and task state: status, restart, pause, resume and stop.

Answers are encoded once by `rest.wire`; the `response_model`s are for the OpenAPI docs.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from connect.runtime.domain.info import RestartRequest
from connect.runtime.domain.states import ConnectorTaskId
from rest import wire
from rest.deps import HerderDep
from rest.errors import documented
from rest.schemas import ConnectorStateInfo, TaskState
from rest.status_reads import read_status
from rest.wire import JsonAnswer

router = APIRouter(prefix="/connectors", tags=["lifecycle"], responses=documented(500))

ConnectorName = Annotated[str, Path(description="The connector's name")]
TaskNumber = Annotated[int, Path(description="The task's number, from 0")]


@router.get("/{connector}/status", response_model=ConnectorStateInfo, responses=documented(404))
async def get_connector_status(connector: ConnectorName, herder: HerderDep) -> Response:
    """State and worker of the connector and of each of its tasks."""
    status = await read_status(herder, lambda: herder.connector_status(connector))
    return JsonAnswer(wire.connector_state_info(status))


@router.get("/{connector}/tasks/{task}/status", response_model=TaskState, responses=documented(404))
async def get_task_status(connector: ConnectorName, task: TaskNumber, herder: HerderDep) -> Response:
    """State and worker of one task."""
    status = await read_status(herder, lambda: herder.task_status(ConnectorTaskId(connector, task)))
    return JsonAnswer(wire.task_state(status))


@router.post("/{connector}/tasks/{task}/restart", status_code=204, responses=documented(404, 409))
def restart_task(connector: ConnectorName, task: TaskNumber, herder: HerderDep) -> None:
    """Restart one task."""
    herder.restart_task(ConnectorTaskId(connector, task))


@router.post(
    "/{connector}/restart",
    status_code=202,
    response_model=ConnectorStateInfo,
    responses={204: {"description": "Connector instance restarted (no flags)"}, **documented(404, 409)},
)
def restart_connector(
    connector: ConnectorName,
    herder: HerderDep,
    include_tasks: Annotated[bool, Query(alias="includeTasks")] = False,
    only_failed: Annotated[bool, Query(alias="onlyFailed")] = False,
) -> Response:
    """Restart the connector (204); with `includeTasks`/`onlyFailed`, 202 and what is being restarted."""
    request = RestartRequest(connector, only_failed=only_failed, include_tasks=include_tasks)
    planned = herder.restart_connector(request)
    if request.legacy or planned is None:
        return Response(status_code=204)
    return JsonAnswer(wire.connector_state_info(planned), status_code=202)


@router.put("/{connector}/pause", status_code=202, response_class=Response, responses=documented(404))
def pause_connector(connector: ConnectorName, herder: HerderDep) -> None:
    """Pause the connector and its tasks (idempotent)."""
    herder.pause_connector(connector)


@router.put("/{connector}/resume", status_code=202, response_class=Response, responses=documented(404))
def resume_connector(connector: ConnectorName, herder: HerderDep) -> None:
    """Resume a paused or stopped connector (idempotent)."""
    herder.resume_connector(connector)


@router.put("/{connector}/stop", status_code=204, responses=documented(404, 409))
def stop_connector(connector: ConnectorName, herder: HerderDep) -> None:
    """Stop the connector and shut its tasks down, keeping its config (idempotent)."""
    herder.stop_connector(connector)
