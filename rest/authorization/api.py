"""The authorizer API: what a `rest.authorizer.class` implements.

Lifecycle: the worker builds the authorizer with no arguments and calls `configure` with its properties
before its REST listeners are bound (a ConfigError stops the worker), and `close` when the REST server
stops. `authorize` runs on the server's event loop for every request (and for every connector of a list
the caller asked for): it must not block; read files and fetch rules in the background.

Decisions are made from the principal, the operation and the connector named by the request only, before
anything is looked up, so a refusal says nothing about whether the connector exists.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from rest.extensions.api import Principal

ENTRY_POINT_GROUP = "kconnect.rest_authorizers"


class Permission(Enum):
    """The built-in roles, each allowing what the ones before it allow."""

    VIEW = "view"  # status, configs with secrets hidden, tasks, offsets, metrics
    OPERATE = "operate"  # pause, resume, stop, restart, offsets and topics reset
    EDIT = "edit"  # create, reconfigure, delete, validate; configs with their secrets
    ADMIN = "admin"  # every connector, logger levels, validating any config

    @property
    def rank(self) -> int:
        return _RANKS[self]


_RANKS = {permission: rank for rank, permission in enumerate(Permission)}


class Operation(Enum):
    """What a REST route does. `permission` is what the built-in authorizer requires for it."""

    CLUSTER_READ = ("cluster.read", Permission.VIEW)  # server info, plug-ins, metrics, the dashboard
    CONNECTOR_LIST = ("connector.list", Permission.VIEW)  # answered with the connectors the caller may view
    CONNECTOR_READ = ("connector.read", Permission.VIEW)  # info, status, tasks, topics, offsets
    CONNECTOR_READ_SECRETS = ("connector.read_secrets", Permission.EDIT)  # config values of secret keys
    CONNECTOR_OPERATE = ("connector.operate", Permission.OPERATE)  # pause, resume, stop, restart
    CONNECTOR_OFFSETS_WRITE = ("connector.offsets.write", Permission.OPERATE)  # alter or reset offsets, topics
    CONNECTOR_CREATE = ("connector.create", Permission.EDIT)
    CONNECTOR_UPDATE = ("connector.update", Permission.EDIT)
    CONNECTOR_DELETE = ("connector.delete", Permission.EDIT)
    CONNECTOR_VALIDATE = ("connector.validate", Permission.EDIT)  # a config naming the connector
    CONFIG_VALIDATE = ("config.validate", Permission.ADMIN)  # a config naming no connector
    LOGGERS_READ = ("loggers.read", Permission.ADMIN)
    LOGGERS_WRITE = ("loggers.write", Permission.ADMIN)
    MIRROR_OFFSETS_WRITE = ("mirror.offsets.write", Permission.ADMIN)  # a dedicated MirrorMaker's failover
    HEALTH = ("health", None)  # never refused: `/health` keeps its rules (authentication only)
    DASHBOARD_PAGE = ("dashboard.page", None)  # the dashboard's page and files: what it shows is checked

    def __init__(self, label: str, permission: Permission | None) -> None:
        self.label = label
        self.permission = permission


@dataclass(frozen=True)
class Resource:
    """A connector by name, or the cluster (`connector` None)."""

    connector: str | None = None

    def describe(self) -> str:
        return "the cluster" if self.connector is None else f"connector '{self.connector}'"


CLUSTER = Resource()


class Authorizer(ABC):
    """Decides whether a principal may perform an operation on a resource."""

    def configure(self, configs: Mapping[str, str]) -> None:
        """Read settings from the worker's properties; raise ConfigError naming the key if one is bad."""

    @abstractmethod
    def authorize(self, principal: Principal, operation: Operation, resource: Resource) -> bool:
        """Whether `principal` may perform `operation` on `resource`. Must not block."""

    def allowed_connectors(self, principal: Principal, operation: Operation, connectors: Iterable[str]) -> set[str]:
        """Those of `connectors` that `principal` may perform `operation` on (for lists); by default one
        `authorize` each, which an authorizer may answer faster at once."""
        return {name for name in connectors if self.authorize(principal, operation, Resource(name))}

    def close(self) -> None:
        """Release what the authorizer holds; called once, when the REST server stops."""
