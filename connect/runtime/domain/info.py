"""Domain values the herder answers with. They mirror Kafka Connect's REST entities field for field;
`rest/` turns them into JSON (and only there are wire names such as `worker_id` spelled out)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connect.runtime.domain.states import ConnectorTaskId, State


class ConnectorType(enum.Enum):
    SOURCE = "source"
    SINK = "sink"
    UNKNOWN = "unknown"


class PluginType(enum.Enum):
    SOURCE = "source"
    SINK = "sink"
    CONVERTER = "converter"
    HEADER_CONVERTER = "header_converter"
    TRANSFORMATION = "transformation"
    PREDICATE = "predicate"


@dataclass(frozen=True)
class ServerInfo:
    version: str
    commit: str
    kafka_cluster_id: str | None


@dataclass(frozen=True)
class WorkerHealth:
    status: str  # "healthy" | "starting" | "unhealthy"
    message: str


@dataclass(frozen=True)
class ConfigVersion:
    """One version of a connector's config: `config` None when this version deleted the connector; `user` who
    wrote it (None when unknown, e.g. written by Java Kafka Connect or before authentication)."""

    version: int
    config: Mapping[str, str] | None
    timestamp_ms: int
    user: str | None


@dataclass(frozen=True)
class ConnectorInfo:
    name: str
    config: Mapping[str, str]
    tasks: list[ConnectorTaskId]
    type: ConnectorType


@dataclass(frozen=True)
class TaskInfo:
    id: ConnectorTaskId
    config: Mapping[str, str]


@dataclass(frozen=True)
class InstanceStatus:
    """The status of one connector or task instance: state, owning worker, and the failure trace if any."""

    state: State
    worker_id: str
    trace: str | None = None


@dataclass(frozen=True)
class TaskStateInfo:
    id: int
    status: InstanceStatus


@dataclass(frozen=True)
class ConnectorStateInfo:
    name: str
    connector: InstanceStatus
    tasks: list[TaskStateInfo]
    type: ConnectorType


@dataclass(frozen=True)
class PluginInfo:
    class_name: str
    type: PluginType
    version: str | None  # None when the plug-in has no version ("undefined"): omitted on the wire


@dataclass(frozen=True)
class ConfigKeyInfo:
    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str
    group: str | None
    order: int
    width: str
    display_name: str
    dependents: list[str]


@dataclass(frozen=True)
class ConfigValueInfo:
    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool


@dataclass(frozen=True)
class ConfigInfo:
    definition: ConfigKeyInfo | None
    value: ConfigValueInfo | None


@dataclass(frozen=True)
class ConfigInfos:
    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]


@dataclass(frozen=True)
class ConnectorOffset:
    """One partition's offset: source partitions/offsets are connector-defined maps; sink ones use the
    fixed keys kafka_topic/kafka_partition and kafka_offset. `offset=None` means reset (on writes)."""

    partition: Mapping[str, Any]
    offset: Mapping[str, Any] | None


@dataclass(frozen=True)
class LoggerLevel:
    level: str
    last_modified: int | None = None


@dataclass
class RestartRequest:
    connector: str
    only_failed: bool = False
    include_tasks: bool = False

    @property
    def legacy(self) -> bool:
        """Both flags false: the pre-KIP-745 form that restarts the connector instance only (204)."""
        return not self.only_failed and not self.include_tasks


@dataclass(frozen=True)
class ConnectorsOverview:
    """`GET /connectors?expand=...`: per connector, what was asked for."""

    status: dict[str, ConnectorStateInfo] = field(default_factory=dict)
    info: dict[str, ConnectorInfo] = field(default_factory=dict)
