"""The REST app of a dedicated MirrorMaker process: every flow's worker under `/<source>/<target>`, the
process's own `/` and `/health`, and the DR runbook's questions under `/flows` (what `kconnect ctl mirror`
asks):

- `GET /flows`: each flow's connectors, replication lag per mirrored partition, heartbeat age and the age of
  its newest checkpoint;
- `GET /flows/<source>/<target>/groups/<group>/offsets`: the group's offsets translated to the target;
- `POST` to the same path: write them to the group on the target (409 while it has active members);
- `/ui`: a page of the flows with their lag from `GET /flows`, linking to each flow's own dashboard.

With `rest.authorizer.class`, the process's own routes take the cluster view (writing a group's offsets: the
admin role) and each flow's worker checks its routes as any worker does; `/health` and the pages take none.

One listener serves every flow (Java's dedicated mode namespaces its internal REST resources the same way,
KIP-710), so `kconnect ctl --url http://host:8083/A/B status` is the API of flow A->B's worker, and a container
engine checks one `/health`: healthy once every flow's worker is, else the first flow that is not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any, Protocol
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp

from connect.api.errors import ConnectError, NotFoundError
from connect.mirror.dedicated_config import Flow
from connect.mirror.mirror_client import GroupActiveError
from connect.mirror.records import Checkpoint
from connect.runtime.domain.errors import ForbiddenError
from connect.runtime.domain.info import WorkerHealth
from rest.authorization.api import Operation
from rest.authorization.enforcement import require
from rest.ui.routes import static_asset
from workers.common.health import HEALTHY

_STATUS_CODES = {"healthy": 200, "starting": 503}
_FLOWS_PAGE = resources.files("workers.mirror") / "static"
_DASHBOARD = resources.files("rest.ui") / "static"  # the flows page wears the dashboard's stylesheet


def flow_path(flow: Flow) -> str:
    """`/<source>/<target>`, each alias URL-encoded."""
    return f"/{quote(flow.source, safe='')}/{quote(flow.target, safe='')}"


class FlowQueries(Protocol):
    """What the process answers about its flows (`MirrorMaker`); each may block on Kafka."""

    def status(self, flow: Flow) -> dict[str, Any]: ...

    def translated_offsets(self, flow: Flow, group: str) -> list[Checkpoint]: ...

    def apply_translated_offsets(self, flow: Flow, group: str) -> list[Checkpoint]: ...


def _error(code: int, message: str) -> JSONResponse:
    return JSONResponse({"error_code": code, "message": message}, status_code=code)


def _offsets_body(group: str, checkpoints: list[Checkpoint]) -> dict[str, Any]:
    return {
        "group": group,
        "offsets": [
            {
                "topic": c.topic,
                "partition": c.partition,
                "offset": c.downstream_offset,
                "upstream_offset": c.upstream_offset,
                "metadata": c.metadata,
            }
            for c in checkpoints
        ],
    }


def _runbook_routes(flows: list[Flow], queries: FlowQueries) -> list[Route]:
    by_path = {(flow.source, flow.target): flow for flow in flows}

    async def answer(request: Request, ask: Callable[[], dict[str, Any]], operation: Operation) -> JSONResponse:
        try:
            require(request, operation)
            return JSONResponse(await run_in_threadpool(ask))
        except ForbiddenError as exc:
            return _error(403, str(exc))
        except GroupActiveError as exc:
            return _error(409, str(exc))
        except NotFoundError as exc:
            return _error(404, str(exc))
        except ConnectError as exc:
            return _error(500, str(exc))

    def flow_of(request: Request) -> Flow:
        params = request.path_params
        flow = by_path.get((params["source"], params["target"]))
        if flow is None:
            raise NotFoundError(f"This MirrorMaker runs no flow {params['source']}->{params['target']}")
        return flow

    async def all_status(request: Request) -> JSONResponse:
        return await answer(
            request, lambda: {str(flow): queries.status(flow) for flow in flows}, Operation.CLUSTER_READ
        )

    async def group_offsets(request: Request) -> JSONResponse:
        group = request.path_params["group"]

        def ask() -> dict[str, Any]:
            flow = flow_of(request)
            if request.method == "POST":
                checkpoints = queries.apply_translated_offsets(flow, group)
            else:
                checkpoints = queries.translated_offsets(flow, group)
            return _offsets_body(group, checkpoints)

        writes = request.method == "POST"
        return await answer(request, ask, Operation.MIRROR_OFFSETS_WRITE if writes else Operation.CLUSTER_READ)

    return [
        Route("/flows", all_status),
        Route("/flows/{source}/{target}/groups/{group}/offsets", group_offsets, methods=["GET", "POST"]),
    ]


def _ui_routes() -> list[Route]:
    def page(_: Request) -> Response:
        return static_asset(_FLOWS_PAGE, "flows.html")

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            return static_asset(_DASHBOARD if name == "style.css" else _FLOWS_PAGE, name)
        except NotFoundError as exc:
            return _error(404, str(exc))

    return [Route("/ui", page), Route("/ui/static/{name}", asset)]


def mirror_app(
    flows: Mapping[Flow, ASGIApp], health_of: Callable[[Flow], WorkerHealth], queries: FlowQueries
) -> ASGIApp:
    """`flows`' apps mounted at their paths; `health_of(flow)` is the flow worker's `/health`; `queries` answers
    the `/flows` routes."""

    async def root(request: Request) -> JSONResponse:
        try:
            require(request, Operation.CLUSTER_READ)
        except ForbiddenError as exc:
            return _error(403, str(exc))
        base = str(request.base_url).rstrip("/")
        return JSONResponse({"flows": {str(flow): f"{base}{flow_path(flow)}" for flow in flows}})

    def health(_: Request) -> JSONResponse:
        # The first flow that is not healthy speaks for the process, naming itself.
        answer, body_flows = HEALTHY, {}
        for flow in flows:
            flow_health = health_of(flow)
            body_flows[str(flow)] = {"status": flow_health.status, "message": flow_health.message}
            if answer is HEALTHY and flow_health.status != HEALTHY.status:
                answer = WorkerHealth(flow_health.status, f"{flow}: {flow_health.message}")
        code = _STATUS_CODES.get(answer.status, 500)
        body: dict[str, object] = {"status": answer.status, "message": answer.message, "flows": body_flows}
        if code != 200:
            body["error_code"] = code
        return JSONResponse(body, status_code=code)

    routes: list[Route | Mount] = [Route("/", root), Route("/health", health), *_runbook_routes(list(flows), queries)]
    routes += _ui_routes()
    routes += [Mount(flow_path(flow), app=app) for flow, app in flows.items()]
    return Starlette(routes=routes)
