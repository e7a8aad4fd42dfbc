"""`BaseHerder`: the Herder requests both modes answer the same way, as Kafka's `AbstractHerder` does.

Owns what does not depend on where connector configs live: the checks of a create or update (the name
in the body must match the URL's, the config must validate), PATCH's merge, the topic-tracking switches
and their 403 texts, the offsets API (KIP-875) with its "must be STOPPED" precondition, KIP-745 restart
plans, plug-in listing, a plug-in's config, validation (with the distributed herder's extra checks when
it passes their settings), and `GET /`'s server info.

A mode's herder says where configs live (`connector_info`, `_current`), how a write takes effect
(`_store_connector_config`), and what a read-merge-write must exclude (`_exclusive`: standalone's herder
lock; nothing in distributed mode, where the config log orders the writes).

Threads: REST handler threads call the public methods; the only state kept here is the cached Kafka
cluster id (a racy first lookup only looks it up twice).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from connect.api.errors import ConfigError, NotFoundError
from connect.runtime.config.connector.keys import CONNECTOR_CLASS_CONFIG
from connect.runtime.config.providers import ConfigProviders, ConfigTransformer, SecretRedactor
from connect.runtime.config.providers.worker_secrets import WorkerSecrets
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.errors import BadRequestError, ForbiddenError
from connect.runtime.domain.info import (
    ConfigInfos,
    ConfigKeyInfo,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorType,
    PluginInfo,
    PluginType,
    RestartRequest,
    ServerInfo,
)
from connect.runtime.domain.states import TargetState
from connect.runtime.domain.status import ConnectorStatusSnapshot
from connect.runtime.kafka import KafkaClients
from connect.runtime.offsets import OffsetStore
from connect.runtime.plugins import PluginRegistry
from connect.runtime.validation import connector_plugin_config, invalid_config_message, validate_connector_config
from connect.runtime.validation.hidden_values import with_raw_values
from workers.herding.offset_admin import OffsetAdmin, admin_factory
from workers.herding.restart_plan import RestartPlan, restart_plan
from workers.herding.server_info import build_info, lookup_cluster_id

T = TypeVar("T")


class StatusReader(Protocol):
    """What the shared requests read from a mode's status store (memory or the status topic)."""

    def connector_snapshot(self, connector: str) -> ConnectorStatusSnapshot: ...

    def active_topics(self, connector: str) -> set[str]: ...

    def reset_active_topics(self, connector: str) -> None: ...


@dataclass(frozen=True)
class ConnectorRecord:
    """A connector's desired state as its herder holds it right now."""

    config: dict[str, str]
    target_state: TargetState
    task_count: int


@dataclass(frozen=True)
class ValidationOptions:
    """The distributed herder's extra validation checks (None: not checked, as in standalone mode)."""

    exactly_once_source_enabled: bool | None = None
    worker_group_id: str | None = None


class BaseHerder(ABC):
    """Implements the shared part of `connect.runtime.herder.Herder`; subclasses add the rest."""

    def __init__(
        self,
        *,
        worker_id: str,
        config: WorkerConfig,
        registry: PluginRegistry,
        status: StatusReader,
        offset_store: OffsetStore,
        clients: KafkaClients | None,
        validation: ValidationOptions | None = None,
        secrets: WorkerSecrets | None = None,
    ) -> None:
        """`secrets`: the Worker's (config providers resolve what `/validate` checks, and hide it in the
        answer); by default a set of the worker config's own providers."""
        self.worker_id = worker_id
        self._config = config
        self._registry = registry
        self._status = status
        self._clients = clients
        self._validation = validation or ValidationOptions()
        self._secrets = secrets or WorkerSecrets(
            ConfigTransformer(ConfigProviders.from_props(config.originals)), SecretRedactor()
        )
        self._offsets = OffsetAdmin(registry, offset_store, admin_factory(clients) if clients is not None else None)
        self._cluster_id: str | None = None

    # -- what each mode provides ---------------------------------------------------------------

    @abstractmethod
    def connector_info(self, name: str) -> ConnectorInfo: ...

    @abstractmethod
    def _current(self, name: str) -> ConnectorRecord:
        """The connector's config, target state and task count; NotFoundError if it does not exist."""

    @abstractmethod
    def _store_connector_config(
        self, name: str, config: dict[str, str], allow_replace: bool, initial_state: TargetState | None
    ) -> tuple[bool, ConnectorInfo]:
        """Create or replace a checked, valid config; AlreadyExistsError if it exists and not `allow_replace`."""

    def _exclusive(self, operation: Callable[[], T]) -> T:
        """Run `operation` with no other write of this herder in between (here: as is)."""
        return operation()

    # -- reads ---------------------------------------------------------------------------------

    def server_info(self) -> ServerInfo:
        if self._cluster_id is None:
            self._lookup_cluster_id()
        return build_info(self._cluster_id)

    def _lookup_cluster_id(self) -> None:
        self._cluster_id = lookup_cluster_id(self._clients)

    def connector_config(self, name: str) -> dict[str, str]:
        return dict(self.connector_info(name).config)

    # -- create, update ------------------------------------------------------------------------

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        # Kafka's checkAndPutConnectorConfigName: a `name` in the config must match; absent, it is added.
        included = config.get("name")
        if included is not None and included != name:
            raise BadRequestError(
                f"Connector name configuration ({included}) doesn't match connector name in the URL ({name})"
            )
        named = {**config, "name": name}
        # Validation comes before any lock or write: it may instantiate plug-ins and take a while.
        message = invalid_config_message(self.validate_connector_config(named))
        if message is not None:
            raise ConfigError(message)
        return self._store_connector_config(name, named, allow_replace, initial_state)

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Kafka's PATCH: keys with a value replace or add, keys with null remove; the result is validated."""

        def merge_and_put() -> ConnectorInfo:
            merged = {k: v for k, v in self.connector_config(name).items() if patch.get(k, v) is not None}
            merged.update({k: v for k, v in patch.items() if v is not None})
            _, info = self.put_connector_config(name, merged, allow_replace=True)
            return info

        # Read, merge and write as one, so two PATCHes on one worker cannot lose each other's keys.
        return self._exclusive(merge_and_put)

    # -- restarts ------------------------------------------------------------------------------

    def _restart_plan(
        self, request: RestartRequest, *, exists: bool, connector_type: ConnectorType, task_count: int | None = None
    ) -> RestartPlan:
        """KIP-745's plan; NotFoundError if the connector does not exist or has no status yet."""
        if not exists:
            raise NotFoundError(f"Unknown connector: {request.connector}")
        statuses = self._status.connector_snapshot(request.connector)
        return restart_plan(request, statuses, connector_type, task_count=task_count)

    # -- topics and offsets --------------------------------------------------------------------

    def connector_active_topics(self, name: str) -> list[str]:
        self._require_topic_tracking()
        return sorted(self._status.active_topics(name))

    def reset_connector_active_topics(self, name: str) -> None:
        self._require_topic_tracking()
        if not self._config.topic_tracking_allow_reset:
            raise ForbiddenError("Topic tracking reset is disabled.")
        self._status.reset_active_topics(name)

    def _require_topic_tracking(self) -> None:
        if not self._config.topic_tracking_enable:
            raise ForbiddenError("Topic tracking is disabled.")

    def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        return self._exclusive(lambda: self._offsets.offsets(name, self._current(name).config))

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        return self._exclusive(lambda: self._offsets.alter(name, self._stopped_config(name), offsets))

    def reset_connector_offsets(self, name: str) -> str:
        return self._exclusive(lambda: self._offsets.reset(name, self._stopped_config(name)))

    def _stopped_config(self, name: str) -> dict[str, str]:
        current = self._current(name)
        if current.target_state is not TargetState.STOPPED or current.task_count != 0:
            raise BadRequestError(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
                f"the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
            )
        return current.config

    # -- plug-ins and validation ---------------------------------------------------------------

    def connector_plugins(self, connectors_only: bool) -> list[PluginInfo]:
        types = (PluginType.SOURCE, PluginType.SINK) if connectors_only else ()
        return [PluginInfo(d.class_name, d.type, d.version) for d in self._registry.plugins(*types)]

    def connector_plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        return connector_plugin_config(plugin, self._registry)

    def validate_connector_config(self, config: Mapping[str, str]) -> ConfigInfos:
        resolved = self._secrets.resolve(config).config
        infos = validate_connector_config(
            resolved,
            self._registry,
            exactly_once_source_enabled=self._validation.exactly_once_source_enabled,
            worker_group_id=self._validation.worker_group_id,
            topic_creation_enabled=self._config.topic_creation_enable,
            override_policy=self._config.client_config_override_policy,
        )
        return with_raw_values(infos, config, resolved, self._secrets.redactor)

    def _connector_type(self, config: Mapping[str, str]) -> ConnectorType:
        return self._registry.connector_type(config.get(CONNECTOR_CLASS_CONFIG, ""))
