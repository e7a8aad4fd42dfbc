"""`ConnectClient`: HTTP calls to a Kafka Connect REST API, with failures turned into `errors`.

Kafka Connect answers errors as `{"error_code": N, "message": "..."}` (Kafka's ErrorMessage); the
message is what a user needs, so it becomes the error's text. A 404 is `NotFoundError` (exit 4), a 403
`ForbiddenError` (exit 5: a permission the user lacks), any other error status `ClusterError` (exit 1); no
answer at all is `UnreachableError` (exit 3), naming the URL and whether it was a refused connection, a TLS
failure or a timeout.
"""

from __future__ import annotations

import ssl
from typing import Any
from urllib.parse import quote

import httpx

from ctl.contexts import Context
from ctl.errors import ClusterError, ForbiddenError, NotFoundError, UnreachableError, UsageError


def segment(name: str) -> str:
    """A connector or logger name as one URL path segment (names may hold '/', spaces, ...)."""
    return quote(name, safe="")


class ConnectClient:
    """One cluster's REST API; `call` returns the decoded JSON body (None when there is none)."""

    def __init__(self, context: Context, timeout: float = 30.0) -> None:
        self.url = context.url.rstrip("/")
        auth = httpx.BasicAuth(context.user, context.password or "") if context.user else None
        self._http = httpx.Client(base_url=self.url, auth=auth, verify=_verification(context.ca_file), timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def call(self, method: str, path: str, *, params: dict[str, str] | None = None, body: Any = None) -> Any:
        """Send one request; raise the `errors` type of a failure."""
        response = self.send(method, path, params=params, body=body)
        return response.json() if response.content else None

    def send(self, method: str, path: str, *, params: dict[str, str] | None = None, body: Any = None) -> httpx.Response:
        """Like `call`, but the response itself (for commands that read the status code)."""
        try:
            response = self._http.request(method, path, params=params, json=body)
        except httpx.TimeoutException as exc:
            raise UnreachableError(f"Timed out talking to the Kafka Connect cluster at {self.url}: {exc}") from exc
        except httpx.TransportError as exc:
            raise UnreachableError(f"Cannot reach the Kafka Connect cluster at {self.url}: {_reason(exc)}") from exc
        if response.status_code >= 400:
            message = _error_message(response)
            if response.status_code == 404:
                raise NotFoundError(message)
            if response.status_code == 403:
                raise ForbiddenError(f"{message} (HTTP 403)")
            raise ClusterError(f"{message} (HTTP {response.status_code})")
        return response


def _verification(ca_file: str | None) -> ssl.SSLContext | bool:
    if ca_file is None:
        return True
    try:
        return ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"Cannot use the CA file {ca_file}: {exc}") from exc


def _reason(exc: httpx.TransportError) -> str:
    cause = exc.__cause__ or exc.__context__
    while cause is not None and not isinstance(cause, ssl.SSLError) and cause.__cause__ is not None:
        cause = cause.__cause__
    if isinstance(cause, ssl.SSLError) or "CERTIFICATE_VERIFY_FAILED" in str(exc) or "SSL" in str(exc):
        return f"TLS error: {exc}"
    if isinstance(exc, httpx.ConnectError):
        return f"connection failed: {exc}"
    return str(exc) or type(exc).__name__


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    text = response.text.strip()
    return text or f"{response.request.method} {response.request.url.path} failed"
