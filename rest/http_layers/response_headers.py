"""`response.http.headers.config`: headers every response carries, in the syntax of Jetty's `HeaderFilter`
that Kafka Connect hands the value to.

A comma-separated list of rules (a rule holding a comma is written in double quotes), each
`<action> <name>: <value>` with the action `set` (replace), `add` (append), `setDate` or `addDate` (the
value is milliseconds from now, written as an HTTP date), in any case. As Kafka's validator, the name
must not be empty nor hold whitespace, and `name: value` must split into exactly two parts at `:`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from email.utils import formatdate

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connect.api.errors import ConfigError

RESPONSE_HTTP_HEADERS_CONFIG = "response.http.headers.config"
_ACTIONS = {"set": "set", "add": "add", "setdate": "setDate", "adddate": "addDate"}


@dataclass(frozen=True)
class HeaderRule:
    action: str  # set, add, setDate or addDate
    name: str
    value: str

    def rendered_value(self, now: float) -> str:
        if self.action in ("setDate", "addDate"):
            return formatdate(now + int(self.value) / 1000, usegmt=True)
        return self.value


def parse_header_rules(config: str) -> list[HeaderRule]:
    """The rules of the key's value; ConfigError naming the key and the bad rule."""
    return [_rule(text) for text in _split_quoted(config)]


def _split_quoted(config: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for char in config:
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if quoted:
        raise ConfigError(f"Invalid {RESPONSE_HTTP_HEADERS_CONFIG}: unbalanced double quote in '{config}'")
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def _rule(text: str) -> HeaderRule:
    def bad(why: str) -> ConfigError:
        return ConfigError(f"Invalid {RESPONSE_HTTP_HEADERS_CONFIG} rule '{text}': {why}")

    action, _, header = text.partition(" ")
    canonical = _ACTIONS.get(action.lower())
    if canonical is None:
        raise bad("the action must be one of set, add, setDate, addDate")
    pieces = header.split(":")
    if len(pieces) != 2:
        raise bad("expected '<action> <name>: <value>' with exactly one ':'")
    name, value = pieces[0].strip(), pieces[1].strip()
    if not name or any(c.isspace() for c in name):
        raise bad("the header name must be non-empty and hold no whitespace")
    if canonical in ("setDate", "addDate") and not value.lstrip("-").isdigit():
        raise bad("a date action takes a number of milliseconds")
    return HeaderRule(canonical, name, value)


class ResponseHeaders:
    """ASGI middleware applying the rules to every HTTP response."""

    def __init__(self, app: ASGIApp, rules: list[HeaderRule]) -> None:
        self.app = app
        self._rules = rules

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": self._apply(list(message.get("headers", [])))}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _apply(self, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        now = time.time()
        for rule in self._rules:
            name = rule.name.lower().encode("latin-1")
            value = rule.rendered_value(now).encode("latin-1")
            if rule.action in ("set", "setDate"):
                headers = [(n, v) for n, v in headers if n.lower() != name]
            headers.append((name, value))
        return headers
