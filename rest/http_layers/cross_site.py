"""Refuses writes a browser sends on behalf of another site (cross-site request forgery).

A browser that holds a worker's basic-auth credentials (a user of the dashboard at `/ui`) sends them with
any request to the worker, including a form POST or a fetch made by some other site's page: such
requests are "simple" (no CORS preflight), so CORS alone does not stop them; it only hides the answer.
Browsers name the page's origin in `Origin` on every cross-origin POST, PUT, PATCH and DELETE, so a write
whose `Origin` is neither this worker's own host nor one `access.control.allow.origin` allows is answered
403 before it reaches authentication or the app. Requests without `Origin` (curl, kcctl, other workers,
Kafka Connect clients) are not affected. Kafka Connect has no such check; beyond it, on purpose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class RefuseCrossSiteWrites:
    def __init__(self, app: ASGIApp, allowed_origins: Sequence[str] = ()) -> None:
        """`allowed_origins`: `access.control.allow.origin`'s entries (`*` alone: any; `*` inside: any text)."""
        self._app = app
        self._any = "*" in allowed_origins
        patterns = [".*".join(re.escape(part) for part in origin.split("*")) for origin in allowed_origins]
        self._allowed = re.compile("|".join(patterns)) if patterns else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in _SAFE_METHODS:
            await self._app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        origin = headers.get(b"origin", b"").decode("latin-1")
        if not origin or self._permitted(origin, headers.get(b"host", b"").decode("latin-1")):
            await self._app(scope, receive, send)
            return
        message = (
            f"Cross-site request refused: a page of {origin} may not change this worker "
            "(allow its origin with access.control.allow.origin)"
        )
        body = orjson.dumps({"error_code": 403, "message": message})
        response_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 403, "headers": response_headers})
        await send({"type": "http.response.body", "body": body})

    def _permitted(self, origin: str, host: str) -> bool:
        # The worker's own pages: same host and port, whatever the scheme a proxy in front may change.
        if urlsplit(origin).netloc.lower() == host.lower():
            return True
        return self._any or (self._allowed is not None and self._allowed.fullmatch(origin) is not None)
