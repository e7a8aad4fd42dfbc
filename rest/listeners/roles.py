"""Which listener may serve which path: Kafka's `admin.listeners`.

Unset, the `/admin` endpoints are served on the regular listeners, as in Kafka. A list of listeners
moves them there: the admin listeners answer only `/admin/...` and the regular ones no longer do. An
empty value turns them off everywhere. A request a listener may not serve gets Kafka's 404 body.
The role of a request is told by the port it arrived on (`scope["server"]`), so a regular and an admin
listener must not share a port.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from enum import Enum

from starlette.types import ASGIApp, Receive, Scope, Send

ADMIN_PATH = "/admin"


class AdminEndpoints(Enum):
    SHARED = "shared"  # admin.listeners unset: on the regular listeners
    SEPARATE = "separate"  # on their own listeners
    DISABLED = "disabled"  # admin.listeners empty


class ListenerRoles:
    """ASGI wrapper that refuses a path on a listener that may not serve it."""

    def __init__(self, app: ASGIApp, mode: AdminEndpoints, admin_ports: Collection[int] = ()) -> None:
        self.app = app
        self._mode = mode
        self._admin_ports = frozenset(admin_ports)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._allowed(scope):
            await _not_found(send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        path = str(scope.get("path", ""))
        is_admin_path = path == ADMIN_PATH or path.startswith(ADMIN_PATH + "/")
        if self._mode is AdminEndpoints.SHARED:
            return True
        if self._mode is AdminEndpoints.DISABLED:
            return not is_admin_path
        server = scope.get("server")
        on_admin_listener = server is not None and server[1] in self._admin_ports
        return is_admin_path == on_admin_listener


async def _not_found(send: Send) -> None:
    body = json.dumps({"error_code": 404, "message": "HTTP 404 Not Found"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 404,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
