"""Kafka Connect's `listeners` and `admin.listeners` values: `PROTOCOL://HOST:PORT`, comma-separated.

The protocol is `http` or `https` (any case), as in Kafka's `RestServerConfig`; an empty host means all
interfaces, an IPv6 host is written in brackets, port 0 asks for any free port.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from connect.api.errors import ConfigError

HTTP = "http"
HTTPS = "https"
_PROTOCOLS = (HTTP, HTTPS)
_LISTENER = re.compile(r"^(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*)://(?P<host>\[[^\]]*\]|[^:/\[\]]*):(?P<port>\d+)/?$")
ALL_INTERFACES = "0.0.0.0"


@dataclass(frozen=True)
class Listener:
    """One entry of `listeners`: `http://host:port`; an empty host means all interfaces, port 0 any free port."""

    protocol: str
    host: str
    port: int

    @property
    def bind_host(self) -> str:
        return self.host.strip("[]") or ALL_INTERFACES

    def __str__(self) -> str:
        return f"{self.protocol}://{self.host}:{self.port}"


def parse_listeners(listeners: str, *, key: str = "listeners", allow_empty: bool = False) -> list[Listener]:
    """Parse a comma-separated listener list; ConfigError naming `key` if malformed or not http/https."""
    parsed = []
    for entry in (part.strip() for part in listeners.split(",")):
        if not entry:
            continue
        match = _LISTENER.match(entry)
        if match is None or int(match["port"]) > 65535:
            raise ConfigError(f"Invalid {key} entry '{entry}': expected PROTOCOL://HOST:PORT, e.g. http://:8083")
        protocol = match["protocol"].lower()
        if protocol not in _PROTOCOLS:
            raise ConfigError(f"Invalid {key} entry '{entry}': the protocol must be http or https")
        parsed.append(Listener(protocol, match["host"], int(match["port"])))
    if not parsed and not allow_empty:
        raise ConfigError(f"{key} must name at least one listener, e.g. http://:8083")
    return parsed


def advertised_protocol(listeners: list[Listener], chosen: str | None) -> str:
    """The scheme other workers and clients are told: `rest.advertised.listener` if set, else Kafka's rule
    (`http` if any listener is http, else `https`)."""
    if chosen:
        protocol = chosen.strip().lower()
        if protocol not in _PROTOCOLS:
            raise ConfigError(f"Invalid rest.advertised.listener '{chosen}': expected http or https")
        if not any(listener.protocol == protocol for listener in listeners):
            raise ConfigError(f"rest.advertised.listener is {protocol} but listeners has no {protocol} listener")
        return protocol
    return HTTP if any(listener.protocol == HTTP for listener in listeners) else HTTPS
