"""`GET /` (server info) and `GET /health`."""

from __future__ import annotations

from fastapi import APIRouter, Response

from rest.deps import HerderDep
from rest.errors import documented
from rest.schemas import ServerInfo, WorkerStatus

router = APIRouter(tags=["worker"])

_STATUS_CODES = {"healthy": 200, "starting": 503}


@router.get("/", responses=documented(500))
def server_info(herder: HerderDep) -> ServerInfo:
    """Version, commit and Kafka cluster id of this worker."""
    return ServerInfo.of(herder.server_info())


@router.get(
    "/health",
    responses={503: {"model": WorkerStatus, "description": "Starting"}, 500: {"model": WorkerStatus}},
)
def health(herder: HerderDep, response: Response) -> WorkerStatus:
    """Whether this worker can serve requests: 200 healthy, 503 starting, 500 unhealthy."""
    worker = herder.health()
    status_code = _STATUS_CODES.get(worker.status, 500)
    response.status_code = status_code
    return WorkerStatus(
        status=worker.status,
        message=worker.message,
        error_code=None if status_code == 200 else status_code,
    )
