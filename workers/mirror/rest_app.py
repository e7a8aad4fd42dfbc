"""The REST app of a dedicated MirrorMaker process: every flow's worker under `/<source>/<target>`, and the
process's own `/` and `/health`.

One listener serves every flow (Java's dedicated mode namespaces its internal REST resources the same way,
KIP-710), so `kconnect ctl --url http://host:8083/A/B status` is the API of flow A->B's worker, and a container
engine checks one `/health`: healthy once every flow's worker is, else the first flow that is not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp

from connect.mirror.dedicated_config import Flow
from connect.runtime.domain.info import WorkerHealth
from workers.common.health import HEALTHY

_STATUS_CODES = {"healthy": 200, "starting": 503}


def flow_path(flow: Flow) -> str:
    """`/<source>/<target>`, each alias URL-encoded."""
    return f"/{quote(flow.source, safe='')}/{quote(flow.target, safe='')}"


def mirror_app(flows: Mapping[Flow, ASGIApp], health_of: Callable[[Flow], WorkerHealth]) -> ASGIApp:
    """`flows`' apps mounted at their paths; `health_of(flow)` is the flow worker's `/health`."""

    async def root(request: Request) -> JSONResponse:
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

    routes: list[Route | Mount] = [Route("/", root), Route("/health", health)]
    routes += [Mount(flow_path(flow), app=app) for flow, app in flows.items()]
    return Starlette(routes=routes)
