"""`AuditChanges`: the ASGI layer of the app that records every change request, and `note_change`, the app-wide
dependency that tells it which change a request is.

The layer gives each request an `AuditState` in its scope; once routing found the request's route,
`note_change` (the first of the app's dependencies, so a request the authorizer refuses is noted too) names
the action, keeps the path parameters and reads the connector's config as it was before a config change.
The layer keeps the request body as the handler reads it and, when the answer is complete, reads the config
after the change (a worker reads its own writes) and hands one record to the trail before the answer goes
out: a caller told that a change was made can count on its record. Requests that change nothing pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connect.api.errors import ConnectError
from connect.runtime.config.providers import HIDDEN
from connect.runtime.herder import Herder
from rest.audit.changes import AUDITED_ROUTES, CONFIG_ACTIONS
from rest.audit.record import Exchange, audit_record
from rest.audit.trail import AuditTrail
from rest.authorization.secrets import SecretKeys
from rest.extensions.api import Principal
from rest.extensions.authentication import PRINCIPAL_SCOPE_KEY

AUDIT_SCOPE_KEY = "kconnect.audit"
# The part of a request or an error answer kept for the record; change requests are small.
_KEPT_BYTES = 1 << 20


@dataclass
class AuditState:
    """What `note_change` learnt of a request once it was routed (`action` None: not a change)."""

    herder: Herder
    action: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    before: dict[str, str] | None = None


async def note_change(request: Request) -> None:
    """The app-wide dependency that tells `AuditChanges` which change this request is."""
    state = request.scope.get(AUDIT_SCOPE_KEY)
    route = request.scope.get("route")
    if not isinstance(state, AuditState) or not isinstance(route, APIRoute):
        return
    state.action = AUDITED_ROUTES.get((request.method, route.path))
    state.params = dict(request.path_params)
    connector = state.params.get("connector")
    if state.action in CONFIG_ACTIONS and connector:
        state.before = await _config(state.herder, connector)


class AuditChanges:
    def __init__(self, app: ASGIApp, *, herder: Herder, trail: AuditTrail, secrets: SecretKeys) -> None:
        self.app = app
        self._herder = herder
        self._trail = trail
        self._secrets = secrets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        state = AuditState(self._herder)
        scope = {**scope, AUDIT_SCOPE_KEY: state}
        body = bytearray()
        answer = bytearray()
        held: list[Message] = []
        status = 500
        recorded = False

        async def keep_body() -> Message:
            message = await receive()
            if message["type"] == "http.request" and len(body) < _KEPT_BYTES:
                body.extend(message.get("body", b""))
            return message

        async def record() -> None:
            nonlocal recorded
            recorded = True
            if state.action is not None:
                await self._record(scope, state, bytes(body), status, bytes(answer))

        async def answer_after_record(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            if state.action is None or message["type"] not in ("http.response.start", "http.response.body"):
                await send(message)
                return
            held.append(message)
            if message["type"] == "http.response.body":
                if status >= 400 and len(answer) < _KEPT_BYTES:
                    answer.extend(message.get("body", b""))
                if not message.get("more_body", False):
                    await record()
                    for kept in held:
                        await send(kept)
                    held.clear()

        try:
            await self.app(scope, keep_body, answer_after_record)
        finally:
            if not recorded:  # no answer came (the app failed): recorded as the 500 the server sends
                await record()

    async def _record(self, scope: Scope, state: AuditState, body: bytes, status: int, answer: bytes) -> None:
        assert state.action is not None
        action, before = state.action, state.before
        request = _json(body)
        connector = state.params.get("connector")
        if action == "connector.create" and isinstance(request, dict) and isinstance(request.get("name"), str):
            connector = request["name"].strip() or None
        after = None
        if action in CONFIG_ACTIONS and action != "connector.delete" and status < 400 and connector:
            after = await _config(self._herder, connector)
        if action == "connector.update" and before is None:
            action = "connector.create"  # Kafka's PUT .../config creates a connector that does not exist
        principal = scope.get(PRINCIPAL_SCOPE_KEY)
        client = scope.get("client")
        exchange = Exchange(
            method=str(scope.get("method", "")),
            path=str(scope.get("path", "")),
            action=action,
            connector=connector,
            user=principal.name if isinstance(principal, Principal) else None,
            client=f"{client[0]}:{client[1]}" if client else None,
            status=status,
            answer=answer,
            details=_details(action, state.params, scope, request),
        )
        secrets = [*_secret_values(self._secrets, before), *_secret_values(self._secrets, after)]
        secrets += _secret_values(self._secrets, _request_config(action, request, before))
        entry = audit_record(exchange, self._trail.worker_id, before, after, secrets, self._secrets.hide)
        await run_in_threadpool(self._trail.record, entry)


async def _config(herder: Herder, connector: str) -> dict[str, str] | None:
    try:
        return await run_in_threadpool(herder.connector_config, connector)
    except ConnectError:
        return None


def _json(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except (ValueError, UnicodeDecodeError):
        return None


def _request_config(action: str, request: Any, before: Mapping[str, str] | None) -> dict[str, str] | None:
    """The config a create, update or patch asked for (to hide its secrets should an error quote them)."""
    if not isinstance(request, dict):
        return None
    if action == "connector.create" and isinstance(request.get("config"), dict):
        return {str(k): str(v) for k, v in request["config"].items()}
    if action in ("connector.create", "connector.update", "connector.patch"):
        return {**(before or {}), **{str(k): str(v) for k, v in request.items() if v is not None}}
    return None


def _secret_values(secrets: SecretKeys, config: Mapping[str, str] | None) -> list[str]:
    if config is None:
        return []
    hidden = secrets.hide(config)
    return [value for key, value in config.items() if hidden.get(key) == HIDDEN]


def _details(action: str, params: Mapping[str, Any], scope: Scope, request: Any) -> dict[str, Any]:
    """What else says what the change was: a restart's flags, the task, the offsets, the logger and level."""
    query = scope.get("query_string", b"").decode("latin-1")
    if action == "connector.restart" and query:
        return {"query": query}
    if action == "task.restart":
        return {"task": params.get("task")}
    if action == "offsets.alter" and isinstance(request, dict):
        return {"offsets": request.get("offsets")}
    if action == "logger.level":
        level = request.get("level") if isinstance(request, dict) else None
        return {"logger": params.get("logger"), "level": level, **({"query": query} if query else {})}
    return {}
