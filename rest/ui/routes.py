"""`/ui`: the dashboard page and its assets, and the one JSON endpoint it needs beyond Kafka's REST API.

The page is static (HTML, CSS and JavaScript in `static/`, no build step, nothing from a CDN) and talks to
the REST API of the worker that served it, with the browser's credentials for that worker: behind a
REST extension's authentication the page and its assets need credentials like every other path, so a
browser asks for them once and sends them with each of the page's requests.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Literal

from fastapi import APIRouter, Request, Response

from connect.api.errors import NotFoundError
from rest.ui.cluster import TASK_METRICS_PATH, ClusterView, gather
from rest.ui.task_metrics import task_figures

router = APIRouter(tags=["dashboard"])

_STATIC = resources.files("rest.ui") / "static"
_MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# The page may only load what this worker serves: no inline scripts, no other origins.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


@router.get("/ui", include_in_schema=False)
def page() -> Response:
    return _asset("index.html")


@router.get("/ui/static/{name}", include_in_schema=False)
def asset(name: str) -> Response:
    return _asset(name)


@router.get(TASK_METRICS_PATH)
async def task_metrics(request: Request, scope: Literal["cluster", "worker"] = "cluster") -> dict[str, Any]:
    """Per-task record counters and sink lag of every worker of the cluster (`scope=worker`: of this one)."""
    view: ClusterView = request.app.state.cluster

    def local() -> list[Any]:
        return list(task_figures(request.app.state.metrics()))

    if scope == "worker":
        return {"tasks": local()}
    return await gather(view, local, request.headers.get("authorization"))


def _asset(name: str) -> Response:
    suffix = name[name.rfind(".") :] if "." in name else ""
    media_type = _MEDIA_TYPES.get(suffix)
    path = _STATIC / name
    # Only plain file names of known kinds: nothing outside static/ can be named.
    if media_type is None or "/" in name or name.startswith(".") or not path.is_file():
        raise NotFoundError(f"No dashboard asset named {name}")
    headers = {"Content-Security-Policy": _CSP, "Cache-Control": "no-cache"}
    return Response(path.read_bytes(), media_type=media_type, headers=headers)
