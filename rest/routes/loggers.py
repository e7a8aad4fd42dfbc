"""`/admin/loggers`: read and change logger levels at runtime, on this worker or (KIP-976) on all of them."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from connect.runtime.domain.errors import BadRequestError
from connect.runtime.herder import SupportsClusterLoggerLevels
from connect.runtime.logs.levels import parse_level
from rest.deps import JSON_BODY, HerderDep, LoggerLevelsDep
from rest.errors import documented
from rest.schemas import LoggerLevel, LoggerLevelRequest

log = logging.getLogger(__name__)

WORKER_SCOPE = "worker"
CLUSTER_SCOPE = "cluster"

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
    herder: HerderDep,
    scope: Annotated[str, Query(description="worker (default) or cluster")] = WORKER_SCOPE,
) -> list[str] | Response:
    """Set the level of a logger and its descendants: on this worker (answers the names of the loggers set),
    or with scope=cluster on every worker of the cluster (answers 204)."""
    if body.level is None:
        raise BadRequestError("Desired 'level' parameter was not specified in request.")
    if scope.lower() != CLUSTER_SCOPE:
        if scope.lower() != WORKER_SCOPE:
            log.warning("Received invalid scope '%s' in request to adjust logging level; will default to worker", scope)
        return loggers.set_level(logger, body.level)
    parse_level(body.level)  # an unknown level is 404, before anything is written
    if isinstance(herder, SupportsClusterLoggerLevels):
        herder.set_cluster_logger_level(logger, body.level)
    else:
        loggers.set_level(logger, body.level)
    return Response(status_code=204)
