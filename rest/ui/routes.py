"""`/ui`: the dashboard page and its assets, and the one JSON endpoint it needs beyond Kafka's REST API.

The page is static (HTML, CSS and JavaScript in `static/`, no build step, nothing from a CDN) and talks to
the REST API of the worker that served it, with the browser's credentials for that worker: behind a
REST extension's authentication the page and its assets need credentials like every other path, so a
browser asks for them once and sends them with each of the page's requests.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any, Literal

from fastapi import APIRouter, Request, Response

from connect.api.errors import NotFoundError
from rest.authorization.api import Operation
from rest.authorization.enforcement import authorization_on, caller, permitted, visible, visible_names
from rest.ui.cluster import TASK_METRICS_PATH, ClusterView, gather
from rest.ui.task_metrics import task_figures

router = APIRouter(tags=["dashboard"])
PERMISSIONS_PATH = "/ui/api/permissions"

_STATIC = resources.files("rest.ui") / "static"
_MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# The page may only load what this worker serves: no inline scripts, no other origins.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


@router.get("/ui", include_in_schema=False)
def page(request: Request) -> Response:
    # Under a prefix when mounted (a dedicated MirrorMaker serves each flow's worker under `/<source>/<target>`).
    return static_asset(_STATIC, "index.html", root_path=request.scope.get("root_path", ""))


@router.get("/ui/static/{name}", include_in_schema=False)
def asset(name: str) -> Response:
    return static_asset(_STATIC, name)


@router.get(PERMISSIONS_PATH)
def permissions(request: Request) -> dict[str, Any]:
    """What the caller may do on each connector it may view: the dashboard shows no button it would refuse."""
    names = visible_names(request, request.app.state.herder.connectors())
    # One question per permission for every connector at once, not one per connector: the page asks each poll.
    held = {label: set(permitted(request, operation, names)) for label, operation in _SHOWN_PERMISSIONS}
    principal = caller(request)
    return {
        "user": principal.name if principal is not None else None,
        "enforced": authorization_on(request),
        "connectors": {name: [label for label, _ in _SHOWN_PERMISSIONS if name in held[label]] for name in names},
    }


_SHOWN_PERMISSIONS = (
    ("view", Operation.CONNECTOR_READ),
    ("operate", Operation.CONNECTOR_OPERATE),
    ("edit", Operation.CONNECTOR_UPDATE),
)


@router.get(TASK_METRICS_PATH)
async def task_metrics(request: Request, scope: Literal["cluster", "worker"] = "cluster") -> dict[str, Any]:
    """Per-task record counters and sink lag of every worker of the cluster (`scope=worker`: of this one)."""
    view: ClusterView = request.app.state.cluster

    def local() -> list[Any]:
        return visible(request, task_figures(request.app.state.metrics()), lambda figures: figures["connector"])

    if scope == "worker":
        return {"tasks": local()}
    return await gather(view, local, request.headers.get("authorization"))


def static_asset(directory: Traversable, name: str, *, root_path: str = "") -> Response:
    """The file `name` of `directory`, with the dashboard's security headers; a page's `/ui/static/` links go
    under `root_path`, where an app mounted under a prefix serves them (its script finds the API the same way,
    from its own path)."""
    suffix = name[name.rfind(".") :] if "." in name else ""
    media_type = _MEDIA_TYPES.get(suffix)
    path = directory / name
    # Only plain file names of known kinds: nothing outside the directory can be named.
    if media_type is None or "/" in name or name.startswith(".") or not path.is_file():
        raise NotFoundError(f"No dashboard asset named {name}")
    body = path.read_bytes()
    if root_path and suffix == ".html":
        body = body.replace(b'"/ui/static/', f'"{root_path}/ui/static/'.encode())
    headers = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"}
    return Response(body, media_type=media_type, headers=headers)
