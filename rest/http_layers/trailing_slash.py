"""ASGI middleware that makes `/connectors/` the same resource as `/connectors`, without a redirect.

Kafka's Jersey routes match either form, and clients use both (kcctl POSTs to `/connectors/`, the Lenses
UI GETs `/connector-plugins/`); a 307 redirect would lose a POST body in some of them.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class StripTrailingSlash:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            if len(path) > 1 and path.endswith("/"):
                scope = dict(scope)
                scope["path"] = path.rstrip("/") or "/"
                raw_path = scope.get("raw_path")
                if isinstance(raw_path, bytes):
                    scope["raw_path"] = raw_path.rstrip(b"/") or b"/"
        await self.app(scope, receive, send)
