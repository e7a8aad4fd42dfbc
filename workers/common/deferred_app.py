"""An ASGI app that answers "starting" until the real REST app is attached.

A worker's id is its advertised `host:port`, known only once the REST listener is bound (it may ask for
port 0), but the REST app needs the herder, which needs the worker id. Kafka solves the same knot by
binding its Jetty server first and adding the resources later; this is that, for uvicorn. Until `attach`
every request gets 503: `/health` in the `{"status": "starting"}` shape, anything else as an error body.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from workers.common.health import STARTING


class DeferredApp:
    def __init__(self) -> None:
        self._app: ASGIApp | None = None

    def attach(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            # The real app is attached after uvicorn's lifespan startup, so lifespan is answered here.
            await _lifespan(receive, send)
            return
        app = self._app
        if app is not None:
            await app(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        path = str(scope.get("path", "")).rstrip("/")
        body: dict[str, object] = {"error_code": 503, "message": STARTING.message}
        if path == "/health":
            body = {"status": STARTING.status, "message": STARTING.message}
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": payload})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message: Message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
