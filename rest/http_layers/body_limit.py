"""A limit on request body size (`rest.request.body.max.bytes`, a kconnect key: Kafka relies on Jetty's).

Connector configs and offsets are small; a multi-megabyte body is a mistake or an attack on the worker's
memory. A declared `Content-Length` over the limit is refused before anything is read; a chunked body is
counted as it arrives and refused once it passes the limit. The answer is 413 with Kafka's error body.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_BODY_MAX_BYTES = "rest.request.body.max.bytes"


class BodyLimit:
    """Reads the whole body (bounded by the limit) before the app sees it, so a refusal never races a
    response the app has started; bodies here are small, and unauthenticated requests never get this far."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self._max = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name.lower() == b"content-length" and value.isdigit() and int(value) > self._max:
                await self._refuse(send)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, _replay([message], receive), send)  # a disconnect: let the app see it
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._max:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body_message: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body_message], receive), send)

    async def _refuse(self, send: Send) -> None:
        message = f"The request body is larger than {REQUEST_BODY_MAX_BYTES}={self._max} bytes"
        body = json.dumps({"error_code": 413, "message": message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
