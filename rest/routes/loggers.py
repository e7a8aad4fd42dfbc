"""`/admin/loggers`: read and change this worker's logger levels at runtime."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from connect.runtime.errors import BadRequestError
from rest.deps import JSON_BODY, LoggerLevelsDep
from rest.errors import documented
from rest.schemas import LoggerLevel, LoggerLevelRequest

router = APIRouter(prefix="/admin/loggers", tags=["admin"], responses=documented(500))

LoggerName = Annotated[str, Path(description="A logger name, or 'root'")]


@router.get("")
def list_loggers(loggers: LoggerLevelsDep) -> dict[str, LoggerLevel]:
    """Loggers whose level was set explicitly, and the root logger."""
    return {name: LoggerLevel.of(level) for name, level in loggers.all_levels().items()}


@router.get("/{logger}", responses=documented(404))
def get_logger(logger: LoggerName, loggers: LoggerLevelsDep) -> LoggerLevel:
    """The effective level of one logger."""
    return LoggerLevel.of(loggers.level(logger))


@router.put(
    "/{logger}",
    dependencies=JSON_BODY,
    response_model=list[str],
    responses={204: {"description": "Applied (scope=cluster)"}, **documented(400, 404)},
)
def set_logger_level(
    logger: LoggerName,
    body: LoggerLevelRequest,
    loggers: LoggerLevelsDep,
    scope: Annotated[str, Query(description="worker (default) or cluster")] = "worker",
) -> list[str] | Response:
    """Set the level of a logger and its descendants; answers the names of the loggers set."""
    if body.level is None:
        raise BadRequestError("Desired 'level' parameter was not specified in request.")
    changed = loggers.set_level(logger, body.level)
    # Kafka writes a cluster-scoped level to the config topic for every worker and answers 204. There is
    # no cluster-wide channel for it yet, so it is applied here only. Any other scope means worker.
    if scope.lower() == "cluster":
        return Response(status_code=204)
    return changed
