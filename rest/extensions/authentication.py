"""ASGI middleware requiring every request to be accepted by one of the registered authenticators.

Nothing is exempt: Kafka exempts the two worker-to-worker endpoints (`POST /connectors/{c}/tasks`, `PUT
/connectors/{c}/fence`) because its workers forward requests to the leader, but kconnect's never call
each other's REST API, so those need credentials like any other. A refused request is answered 401 with
Kafka's text in Kafka's error body and one `WWW-Authenticate` header per authenticator. A request that
presented credentials and was refused is logged, by user name when it has one, never with its secret.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging

from starlette.types import ASGIApp, Receive, Scope, Send

from rest.extensions.api import Authenticator, RestRequest

log = logging.getLogger(__name__)

UNAUTHORIZED_MESSAGE = "User cannot access the resource."
PRINCIPAL_SCOPE_KEY = "kconnect.principal"


class RequireAuthentication:
    def __init__(self, app: ASGIApp, authenticators: list[Authenticator]) -> None:
        if not authenticators:
            raise ValueError("RequireAuthentication needs at least one authenticator")
        self.app = app
        self._authenticators = authenticators
        self._challenges = [(b"www-authenticate", a.challenge.encode("latin-1")) for a in authenticators]
        self._body = json.dumps({"error_code": 401, "message": UNAUTHORIZED_MESSAGE}).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = _request_of(scope)
        for authenticator in self._authenticators:
            principal = authenticator.authenticate(request)
            if principal is not None:
                scope = {**scope, PRINCIPAL_SCOPE_KEY: principal}
                await self.app(scope, receive, send)
                return
        _log_refusal(request)
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(self._body)).encode()),
                    *self._challenges,
                ],
            }
        )
        await send({"type": "http.response.body", "body": self._body})


def _request_of(scope: Scope) -> RestRequest:
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}
    client = scope.get("client")
    return RestRequest(
        method=str(scope.get("method", "")),
        path=str(scope.get("path", "")),
        headers=headers,
        scheme=str(scope.get("scheme", "http")),
        client=f"{client[0]}:{client[1]}" if client else None,
    )


def _log_refusal(request: RestRequest) -> None:
    authorization = request.headers.get("authorization")
    if authorization is None:
        log.debug(
            "REST request without credentials refused: %s %s from %s", request.method, request.path, request.client
        )
        return
    scheme, _, credentials = authorization.partition(" ")
    user = basic_user(credentials) if scheme.lower() == "basic" else None
    who = f"user '{user}'" if user is not None else f"{scheme or 'unknown'} credentials"
    log.warning("REST authentication failed for %s from %s: %s %s", who, request.client, request.method, request.path)


def basic_user(credentials: str) -> str | None:
    """The user name of a Basic credentials value, or None if it is malformed (never the password)."""
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, colon, _ = decoded.partition(":")
    return user if colon else None
