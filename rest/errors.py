"""Errors to HTTP answers, in one place: every non-2xx body is `{"error_code": <status>, "message": ...}`.

Kafka Connect's mapping (`ConnectExceptionMapper`): ConfigError and BadRequestError 400, ForbiddenError
403, NotFoundError 404, AlreadyExistsError and ConflictError 409, everything else 500 (a timed-out
herder call says "Request timed out"). The framework's own answers (unknown path 404, wrong method
405, wrong content type 415) and request validation errors get the same body; FastAPI's 422 becomes
400, as Kafka clients expect. Unexpected exceptions are logged here, once, with their traceback.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connect.api.errors import AlreadyExistsError, ConfigError, ConnectError, NotFoundError
from connect.runtime.domain.errors import BadRequestError, ConflictError, ForbiddenError, RequestTimeoutError
from rest.schemas import ErrorMessage

_log = logging.getLogger(__name__)

_STATUS_BY_ERROR: tuple[tuple[type[BaseException], int], ...] = (
    (ConfigError, 400),
    (BadRequestError, 400),
    (ForbiddenError, 403),
    (NotFoundError, 404),
    (AlreadyExistsError, 409),
    (ConflictError, 409),
)

_NOT_AN_OBJECT = {"dict_type", "model_type", "model_attributes_type"}


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The one error body Kafka Connect clients parse."""
    return JSONResponse({"error_code": status, "message": message}, status_code=status, headers=headers)


def status_of(exc: BaseException) -> int:
    """The HTTP status Kafka Connect answers with for this error."""
    for error_type, status in _STATUS_BY_ERROR:
        if isinstance(exc, error_type):
            return status
    return 500


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(ConnectError, _connect_error)
    # Not an `Exception` handler: Starlette runs that one in its outermost middleware, which answers and
    # then re-raises into the server (logged twice, and raised into in-process test clients).
    app.add_middleware(AnswerUnexpectedErrors)


class AnswerUnexpectedErrors:
    """ASGI middleware: any other exception a handler raises becomes a logged 500 with its message."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if started:
                raise
            _log.error("Uncaught exception in REST call to %s %s", scope["method"], scope["path"], exc_info=exc)
            await error_response(500, str(exc) or type(exc).__name__)(scope, receive, send)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    phrase = HTTPStatus(exc.status_code).phrase
    # Starlette's default detail is the bare phrase; Jersey says "HTTP 405 Method Not Allowed".
    message = f"HTTP {exc.status_code} {phrase}" if exc.detail in (None, "", phrase) else str(exc.detail)
    return error_response(exc.status_code, message, exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if any(error.get("loc", ("",))[0] == "path" for error in errors):
        # JAX-RS answers a path parameter it cannot convert (e.g. a task id "abc") with 404.
        return error_response(404, _describe(errors, exc.body))
    return error_response(400, _describe(errors, exc.body))


async def _connect_error(request: Request, exc: Exception) -> JSONResponse:
    status = status_of(exc)
    if isinstance(exc, RequestTimeoutError):
        return error_response(500, str(exc) or "Request timed out")
    if status == 500:
        _log.error("Uncaught exception in REST call to %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(status, str(exc) or type(exc).__name__)


def _describe(errors: Sequence[Any], body: Any) -> str:
    return "; ".join(_describe_one(error, body) for error in errors)


def _describe_one(error: Mapping[str, Any], body: Any) -> str:
    loc = tuple(error.get("loc", ()))
    kind = error.get("type", "")
    where = ".".join(str(part) for part in loc[1:])
    if kind == "json_invalid":
        position = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else 0
        reason = error.get("ctx", {}).get("error", "invalid JSON")
        document = body if isinstance(body, str) else ""
        return f"Malformed JSON body: {json.JSONDecodeError(reason, document, position)}"
    if loc[:1] == ("body",):
        if len(loc) == 1 and kind == "missing":
            return "Request body is missing; a JSON object is expected"
        if len(loc) == 1 and kind in _NOT_AN_OBJECT:
            return "Request body must be a JSON object"
        return f"Invalid request body field '{where}': {error.get('msg', '')}"
    if loc[:1] == ("query",):
        return f"Invalid query parameter '{where}': {error.get('msg', '')}"
    if loc[:1] == ("path",):
        return f"Invalid path parameter '{where}': {error.get('msg', '')}"
    return f"Invalid request: {error.get('msg', '')}"


def documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for error statuses a route may answer with."""
    return {status: {"model": ErrorMessage, "description": HTTPStatus(status).phrase} for status in statuses}
