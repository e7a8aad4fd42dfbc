"""The Herder protocol: what the REST API (and the CLI) ask of a cluster of workers.

One protocol, two implementations: the standalone herder (one process, memory and file stores) and
the distributed herder (workers coordinated through Kafka). Calls are synchronous and may block for
up to the REST request timeout; FastAPI runs them in its thread pool. Errors are `ConnectError`s
(see `connect.runtime.domain.errors` for which become which HTTP status).

Config maps are always str → str and are stored and returned exactly as given.

`SupportsClusterLoggerLevels` is optional: a herder that can set logger levels on every worker of its
cluster implements it, and REST's `?scope=cluster` calls it; with any other herder the level is set on the
answering worker only (a single worker is the whole cluster).

`SupportsInstantStatusReads` is optional too: a herder whose status reads never wait says so, and REST
answers them without a hop through its thread pool.

`SupportsOverviewVersions` is optional as well: a herder that can tell, without waiting, whether anything
`connector_overviews` shows may have changed lets REST serve `GET /connectors?expand=...` again from the
answer it encoded last.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Protocol, runtime_checkable

from connect.api.errors import NotFoundError
from connect.runtime.domain.info import (
    ConfigInfos,
    ConfigKeyInfo,
    ConfigVersion,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    PluginInfo,
    RestartRequest,
    ServerInfo,
    TaskInfo,
    TaskStateInfo,
    WorkerHealth,
)
from connect.runtime.domain.states import ConnectorTaskId, TargetState

ConnectorOverview = tuple[ConnectorStateInfo | None, ConnectorInfo | None]
"""A connector's status and info, each None when not asked for."""


def overviews_one_by_one(herder: Herder, status: bool, info: bool) -> dict[str, ConnectorOverview]:
    """`connector_overviews` for herders whose reads are local and cheap: one connector at a time."""
    overviews: dict[str, ConnectorOverview] = {}
    for name in herder.connectors():
        try:
            overviews[name] = (
                herder.connector_status(name) if status else None,
                herder.connector_info(name) if info else None,
            )
        except NotFoundError:
            continue
    return overviews


class Herder(Protocol):
    def server_info(self) -> ServerInfo: ...

    def health(self) -> WorkerHealth: ...

    def connectors(self) -> list[str]:
        """Names of all connectors, sorted."""
        ...

    def connector_info(self, name: str) -> ConnectorInfo:
        """NotFoundError if unknown."""
        ...

    def connector_config(self, name: str) -> dict[str, str]: ...

    def connector_history(self, name: str) -> list[ConfigVersion]:
        """The versions of the connector's config still known, oldest first; NotFoundError if none is."""
        ...

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        """Create (or replace, if allowed) a connector. Returns (created, info).

        Raises AlreadyExistsError when it exists and `allow_replace` is false, ConfigError with Kafka
        Connect's "Connector configuration is invalid and contains the following N error(s): ..." text
        when validation fails, BadRequestError on a name mismatch.
        """
        ...

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge `patch` into the config (None deletes a key), re-validate and apply."""
        ...

    def delete_connector(self, name: str) -> None: ...

    def connector_status(self, name: str) -> ConnectorStateInfo:
        """NotFoundError "No status found for connector {name}" if unknown."""
        ...

    def connector_overviews(self, status: bool, info: bool) -> dict[str, ConnectorOverview]:
        """Every connector, by name, with its status and/or info read together: `GET /connectors?expand=...`.
        A connector deleted while this reads is left out (Kafka leaves it out too)."""
        ...

    def task_status(self, task: ConnectorTaskId) -> TaskStateInfo: ...

    def task_configs(self, name: str) -> list[TaskInfo]: ...

    def restart_connector(self, request: RestartRequest) -> ConnectorStateInfo | None:
        """Legacy request (no flags): restart the connector instance, return None (HTTP 204).
        Otherwise return the status with the instances to be restarted shown as RESTARTING (202)."""
        ...

    def restart_task(self, task: ConnectorTaskId) -> None: ...

    def pause_connector(self, name: str) -> None: ...

    def resume_connector(self, name: str) -> None: ...

    def stop_connector(self, name: str) -> None: ...

    def connector_active_topics(self, name: str) -> list[str]: ...

    def reset_connector_active_topics(self, name: str) -> None: ...

    def connector_offsets(self, name: str) -> list[ConnectorOffset]: ...

    def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        """Returns the success message; BadRequestError unless the connector is STOPPED with no tasks."""
        ...

    def reset_connector_offsets(self, name: str) -> str: ...

    def connector_plugins(self, connectors_only: bool) -> list[PluginInfo]: ...

    def connector_plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        """NotFoundError "Unknown plugin {plugin}." if no plug-in matches."""
        ...

    def validate_connector_config(self, config: Mapping[str, str]) -> ConfigInfos: ...


@runtime_checkable
class SupportsClusterLoggerLevels(Protocol):
    def set_cluster_logger_level(self, namespace: str, level: str) -> None:
        """Set `level` on logger `namespace` and its descendants on every worker of the cluster (KIP-976).

        Returns once the level is in effect on this worker; the others apply it as they learn of it.
        NotFoundError "invalid log level '<level>'." for an unknown level.
        """
        ...


@runtime_checkable
class SupportsInstantStatusReads(Protocol):
    def status_reads_are_instant(self) -> bool:
        """True if `connector_status` and `task_status` never wait on I/O or on another request.

        Such reads only copy what the status store holds in memory, as Kafka's StandaloneHerder answers
        them from its status backing store without the herder's lock. REST then calls them on its event
        loop rather than its thread pool: each hop between threads waits for the interpreter lock, which
        task threads hold most of the time under load.
        """
        ...


@runtime_checkable
class SupportsOverviewVersions(Protocol):
    def overviews_version(self) -> Hashable:
        """A value that differs from every earlier one once anything `connector_overviews` shows may have changed
        (a connector's config, task configs or statuses, a connector added or deleted, a plug-in added).

        Never waits: REST calls it on its event loop for every `GET /connectors?expand=...`, and serves the
        answer it kept for an equal version without reading the herder again. So every write must change the
        version, no earlier than the write can be seen: a reader that sees the new version must see the write.
        """
        ...

    def versioned_overviews(self, status: bool, info: bool) -> tuple[Hashable, dict[str, ConnectorOverview]]:
        """`connector_overviews`, with the `overviews_version` read no later than anything they show: an
        answer kept under that version is read again as soon as something it shows may have changed."""
        ...
