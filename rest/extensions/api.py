"""The REST extension API: what a `rest.extension.classes` entry implements (Kafka's `ConnectRestExtension`).

Lifecycle: the worker builds each listed extension with no arguments, calls `configure` with the worker's
properties, then `register` with a `RestExtensionContext`, all before its REST listeners are bound, so an
extension that cannot start (a missing file, a bad key) stops the worker with its ConfigError. `close`
is called when the REST server stops.

Through the context an extension adds `Authenticator`s. Every request on every listener (the admin
listener and `/health` included) must then be accepted by one of them, or it is answered 401 with each
authenticator's `WWW-Authenticate` challenge and Kafka's error body. Authenticators run on the server's
event loop: `authenticate` must not block (no network calls per request; cache what it fetched).

Extensions are found through the `kconnect.rest_extensions` entry point group, by entry point name or by
the simple name of a Java class name (so Kafka's
`org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension` finds kconnect's),
or else by Python import path (`package.module.Class` or `package.module:Class`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field

ENTRY_POINT_GROUP = "kconnect.rest_extensions"


@dataclass(frozen=True)
class RestRequest:
    """What an authenticator sees of a request. Header names are lower case; `client` is `host:port`."""

    method: str
    path: str
    headers: Mapping[str, str] = field(repr=False)
    scheme: str
    client: str | None


@dataclass(frozen=True)
class Principal:
    """Who a request was authenticated as, and by which scheme (`BASIC`, `BEARER`, ...); `groups` are those
    the authenticator knows the principal in (an authorizer's rules may add more)."""

    name: str
    scheme: str
    groups: frozenset[str] = frozenset()


class Authenticator(ABC):
    """Decides whether a request carries valid credentials of one scheme."""

    @property
    @abstractmethod
    def challenge(self) -> str:
        """The `WWW-Authenticate` value sent with a 401, e.g. `Basic realm="kconnect"`."""

    @abstractmethod
    def authenticate(self, request: RestRequest) -> Principal | None:
        """The principal if the request's credentials are valid for this scheme, else None. Must not block."""


class RestExtensionContext:
    """Given to `RestExtension.register`: the worker's properties and environment, and the hooks."""

    def __init__(self, worker_config: Mapping[str, str], environ: Mapping[str, str]) -> None:
        self.worker_config = worker_config
        self.environ = environ
        self._authenticators: list[Authenticator] = []

    def add_authenticator(self, authenticator: Authenticator) -> None:
        """Require, from now on, that every request be accepted by this or another registered authenticator."""
        self._authenticators.append(authenticator)

    @property
    def authenticators(self) -> list[Authenticator]:
        return list(self._authenticators)


class RestExtension(ABC):
    """A plug-in of the REST server, listed in `rest.extension.classes`."""

    def configure(self, configs: Mapping[str, str]) -> None:
        """Read settings from the worker's properties; raise ConfigError naming the key if one is bad."""

    @abstractmethod
    def register(self, context: RestExtensionContext) -> None:
        """Add what this extension provides (authenticators) to the REST server."""

    def close(self) -> None:
        """Release what the extension holds; called once, when the REST server stops."""
