"""Where the REST API asks the authorizer: one rule per route, checked before the route's handler runs.

`ProvideAuthorizer` (an HTTP layer inside authentication) puts the authorizer into each request's scope;
the app-wide dependency `authorize_request` finds the route's rule in `ROUTE_RULES` and refuses with 403
(`ForbiddenError`, Kafka's error body) naming the permission missing. The app refuses to build with a
route that has no rule. Lists (connectors, metrics, the dashboard's task figures) are answered with what
the caller may view; configs without their secret values to a caller who may not edit the connector.
Without an authorizer in scope (authorization off, or a request of a separate admin listener), every
check passes: today's behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.routing import APIRoute
from starlette.requests import HTTPConnection
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from connect.runtime.domain.errors import ForbiddenError
from connect.runtime.domain.requester import acting_as
from rest.authorization.api import CLUSTER, Authorizer, Operation, Resource
from rest.extensions.api import Principal
from rest.extensions.authentication import PRINCIPAL_SCOPE_KEY

AUTHORIZER_SCOPE_KEY = "kconnect.authorizer"
ADMIN_PATH = "/admin"
T = TypeVar("T")


class ProvideAuthorizer:
    """ASGI layer giving every HTTP request the authorizer, except those of a separate admin listener (when
    `admin.listeners` is set, `/admin` is served there only and keeps its rules: authentication alone)."""

    def __init__(self, app: ASGIApp, authorizer: Authorizer, *, exempt_admin_paths: bool) -> None:
        self.app = app
        self._authorizer = authorizer
        self._exempt_admin_paths = exempt_admin_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not (self._exempt_admin_paths and _is_admin_path(str(scope.get("path", "")))):
            scope = {**scope, AUTHORIZER_SCOPE_KEY: self._authorizer}
        await self.app(scope, receive, send)


def _is_admin_path(path: str) -> bool:
    return path == ADMIN_PATH or path.startswith(ADMIN_PATH + "/")


@dataclass(frozen=True)
class Rule:
    """A route's operation and where its connector comes from: the path (`connector`), the JSON body's
    `name` (`body`, the cluster when the body names none), or nowhere (the cluster)."""

    operation: Operation
    connector_from: str | None = None
    # For a body naming no connector: the operation then checked on the cluster.
    unnamed: Operation | None = None


_CONNECTOR = "/connectors/{connector}"
ROUTE_RULES: Mapping[tuple[str, str], Rule] = {
    ("GET", "/"): Rule(Operation.CLUSTER_READ),
    ("GET", "/health"): Rule(Operation.HEALTH),
    ("GET", "/connectors"): Rule(Operation.CONNECTOR_LIST),
    ("POST", "/connectors"): Rule(Operation.CONNECTOR_CREATE, "body", Operation.CONNECTOR_CREATE),
    ("GET", _CONNECTOR): Rule(Operation.CONNECTOR_READ, "path"),
    ("DELETE", _CONNECTOR): Rule(Operation.CONNECTOR_DELETE, "path"),
    ("GET", f"{_CONNECTOR}/config"): Rule(Operation.CONNECTOR_READ, "path"),
    ("PUT", f"{_CONNECTOR}/config"): Rule(Operation.CONNECTOR_UPDATE, "path"),
    ("PATCH", f"{_CONNECTOR}/config"): Rule(Operation.CONNECTOR_UPDATE, "path"),
    ("GET", f"{_CONNECTOR}/tasks"): Rule(Operation.CONNECTOR_READ, "path"),
    ("GET", f"{_CONNECTOR}/tasks-config"): Rule(Operation.CONNECTOR_READ, "path"),
    ("GET", f"{_CONNECTOR}/history"): Rule(Operation.CONNECTOR_READ, "path"),
    ("GET", f"{_CONNECTOR}/status"): Rule(Operation.CONNECTOR_READ, "path"),
    ("GET", f"{_CONNECTOR}/tasks/{{task}}/status"): Rule(Operation.CONNECTOR_READ, "path"),
    ("POST", f"{_CONNECTOR}/restart"): Rule(Operation.CONNECTOR_OPERATE, "path"),
    ("POST", f"{_CONNECTOR}/tasks/{{task}}/restart"): Rule(Operation.CONNECTOR_OPERATE, "path"),
    ("PUT", f"{_CONNECTOR}/pause"): Rule(Operation.CONNECTOR_OPERATE, "path"),
    ("PUT", f"{_CONNECTOR}/resume"): Rule(Operation.CONNECTOR_OPERATE, "path"),
    ("PUT", f"{_CONNECTOR}/stop"): Rule(Operation.CONNECTOR_OPERATE, "path"),
    ("GET", f"{_CONNECTOR}/topics"): Rule(Operation.CONNECTOR_READ, "path"),
    ("PUT", f"{_CONNECTOR}/topics/reset"): Rule(Operation.CONNECTOR_OFFSETS_WRITE, "path"),
    ("GET", f"{_CONNECTOR}/offsets"): Rule(Operation.CONNECTOR_READ, "path"),
    ("PATCH", f"{_CONNECTOR}/offsets"): Rule(Operation.CONNECTOR_OFFSETS_WRITE, "path"),
    ("DELETE", f"{_CONNECTOR}/offsets"): Rule(Operation.CONNECTOR_OFFSETS_WRITE, "path"),
    ("GET", "/connector-plugins"): Rule(Operation.CLUSTER_READ),
    ("GET", "/connector-plugins/{plugin}/config"): Rule(Operation.CLUSTER_READ),
    ("PUT", "/connector-plugins/{plugin}/config/validate"): Rule(
        Operation.CONNECTOR_VALIDATE, "body", Operation.CONFIG_VALIDATE
    ),
    ("GET", "/admin/loggers"): Rule(Operation.LOGGERS_READ),
    ("GET", "/admin/loggers/{logger}"): Rule(Operation.LOGGERS_READ),
    ("PUT", "/admin/loggers/{logger}"): Rule(Operation.LOGGERS_WRITE),
    ("GET", "/metrics"): Rule(Operation.CLUSTER_READ),
    ("GET", "/ui"): Rule(Operation.DASHBOARD_PAGE),
    ("GET", "/ui/static/{name}"): Rule(Operation.DASHBOARD_PAGE),
    ("GET", "/ui/api/task-metrics"): Rule(Operation.CLUSTER_READ),
    ("GET", "/ui/api/permissions"): Rule(Operation.CLUSTER_READ),
}


def check_every_route_has_a_rule(app: FastAPI) -> None:
    """RuntimeError naming each route of `app` without a rule: a new route must say who may call it."""
    missing = [
        f"{method} {path}"
        for path, methods in api_routes(app.router.routes)
        for method in sorted(methods)
        if (method, path) not in ROUTE_RULES
    ]
    if missing:
        raise RuntimeError(f"REST routes without an authorization rule: {', '.join(missing)}")


def api_routes(routes: Iterable[BaseRoute], prefix: str = "") -> list[tuple[str, set[str]]]:
    """Every API route's full path and methods, through the routers included in the app."""
    found: list[tuple[str, set[str]]] = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append((prefix + route.path, set(route.methods or ())))
            continue
        included = getattr(route, "original_router", None)  # FastAPI's included router, matched as one
        if included is not None:
            context = getattr(route, "include_context", None)
            found += api_routes(included.routes, prefix + str(getattr(context, "prefix", "") or ""))
        elif isinstance(nested := getattr(route, "routes", None), list):
            found += api_routes(nested, prefix + str(getattr(route, "path", "")))
    return found


async def authorize_request(request: Request) -> None:
    """The app-wide dependency: 403 unless the caller may perform the route's operation. It also records who
    asks, for the stores that say who made each change (`connect.runtime.domain.requester`)."""
    authorizer, principal = _parties(request)
    acting_as(principal.name if principal is not None else None)
    if authorizer is None or principal is None:
        return
    route = request.scope.get("route")
    path = route.path if isinstance(route, APIRoute) else str(request.scope.get("path", ""))
    rule = ROUTE_RULES.get((request.method, path))
    if rule is None:
        raise ForbiddenError(f"No authorization rule for {request.method} {path}")
    operation, resource = rule.operation, CLUSTER
    if rule.connector_from == "path":
        resource = Resource(str(request.path_params.get("connector", "")))
    elif rule.connector_from == "body":
        name = await _body_name(request)
        if name is None:
            operation = rule.unnamed or rule.operation
        else:
            resource = Resource(name)
    _require(authorizer, principal, operation, resource)


def require(connection: HTTPConnection, operation: Operation, resource: Resource = CLUSTER) -> None:
    """ForbiddenError unless the caller of `connection` may perform `operation` on `resource` (for handlers
    outside the route table, such as a dedicated MirrorMaker's own routes)."""
    authorizer, principal = _parties(connection)
    if authorizer is not None and principal is not None:
        _require(authorizer, principal, operation, resource)


def allows(connection: HTTPConnection, operation: Operation, connector: str) -> bool:
    """Whether the caller may perform `operation` on `connector` (always, without an authorizer)."""
    authorizer, principal = _parties(connection)
    return authorizer is None or principal is None or authorizer.authorize(principal, operation, Resource(connector))


def permitted(connection: HTTPConnection, operation: Operation, names: Collection[str]) -> Collection[str]:
    """Those of `names` the caller may perform `operation` on, asked of the authorizer at once (all of them
    without an authorizer)."""
    authorizer, principal = _parties(connection)
    if authorizer is None or principal is None:
        return names
    return authorizer.allowed_connectors(principal, operation, names)


def visible(connection: HTTPConnection, items: Iterable[T], connector_of: Callable[[T], str | None]) -> list[T]:
    """The items whose connector the caller may view (items of no connector stay)."""
    listed = [(item, connector_of(item)) for item in items]
    allowed = permitted(connection, Operation.CONNECTOR_READ, {name for _, name in listed if name is not None})
    return [item for item, name in listed if name is None or name in allowed]


def visible_names(connection: HTTPConnection, names: list[str]) -> list[str]:
    """The connector names the caller may view, in their order (a list's answer, in one pass)."""
    allowed = permitted(connection, Operation.CONNECTOR_READ, names)
    return names if len(allowed) == len(names) else [name for name in names if name in allowed]


def caller(connection: HTTPConnection) -> Principal | None:
    """Who the request was authenticated as (None without authentication)."""
    return _parties(connection)[1]


def authorization_on(connection: HTTPConnection) -> bool:
    return _parties(connection)[0] is not None


def refusal(principal: Principal, operation: Operation, resource: Resource) -> str:
    needed = operation.permission.value if operation.permission is not None else "none"
    return (
        f"User '{principal.name}' may not perform {operation.label} on {resource.describe()}: "
        f"it needs the '{needed}' permission there"
    )


def _require(authorizer: Authorizer, principal: Principal, operation: Operation, resource: Resource) -> None:
    if not authorizer.authorize(principal, operation, resource):
        raise ForbiddenError(refusal(principal, operation, resource))


def _parties(connection: HTTPConnection) -> tuple[Authorizer | None, Principal | None]:
    authorizer = connection.scope.get(AUTHORIZER_SCOPE_KEY)
    principal = connection.scope.get(PRINCIPAL_SCOPE_KEY)
    return (
        authorizer if isinstance(authorizer, Authorizer) else None,
        principal if isinstance(principal, Principal) else None,
    )


async def _body_name(request: Request) -> str | None:
    """The connector a create or validate body names (its `name`), else None; a body that is not JSON names
    none (its handler then answers 400 to whoever may reach it)."""
    try:
        body: Any = json.loads(await request.body() or b"null")
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(body, dict):
        return None
    name = body.get("name")
    return name.strip() if isinstance(name, str) and name.strip() else None
