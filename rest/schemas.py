"""Wire schemas: Kafka Connect's REST entities, field for field, and the request bodies it accepts.

Class names are Kafka's entity names (they name the OpenAPI components); each response model has a
`of(...)` constructor from the herder's domain value in `connect.runtime.info`, which never leaves
this module as JSON. Fields Kafka omits when empty (`trace`, a plug-in's `version`) are dropped here.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from connect.runtime import info as domain
from connect.runtime.states import ConnectorTaskId as DomainTaskId


def _json_scalar_as_text(value: Any) -> Any:
    # Jackson reads a JSON number or boolean into a Map<String, String> as its text; clients rely on it
    # (e.g. "tasks.max": 1), so do the same. Anything else is left for the str check to reject.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return value


ConfigValue = Annotated[str, BeforeValidator(_json_scalar_as_text)]
ConnectorConfig = dict[str, ConfigValue]
ConfigPatch = dict[str, ConfigValue | None]


def _empty(value: Any) -> bool:
    return not value


def _absent(value: Any) -> bool:
    return value is None


# ---------------------------------------------------------------------------------------------------
# Request bodies


class CreateConnectorRequest(BaseModel):
    """Body of `POST /connectors`."""

    name: str | None = None
    config: ConnectorConfig
    initial_state: str | None = Field(default=None, description="RUNNING (default), PAUSED or STOPPED")


class ConnectorOffset(BaseModel):
    """One partition and its offset; `offset: null` resets the partition when altering."""

    partition: dict[str, Any]
    offset: dict[str, Any] | None = None

    @classmethod
    def of(cls, offset: domain.ConnectorOffset) -> ConnectorOffset:
        return cls(partition=dict(offset.partition), offset=None if offset.offset is None else dict(offset.offset))

    def to_domain(self) -> domain.ConnectorOffset:
        return domain.ConnectorOffset(partition=self.partition, offset=self.offset)


class ConnectorOffsets(BaseModel):
    """Body of `GET` and `PATCH /connectors/{connector}/offsets`."""

    offsets: list[ConnectorOffset] | None = None


class LoggerLevelRequest(BaseModel):
    """Body of `PUT /admin/loggers/{logger}`."""

    level: ConfigValue | None = None


# ---------------------------------------------------------------------------------------------------
# Responses


class ErrorMessage(BaseModel):
    """The body of every non-2xx answer."""

    error_code: int
    message: str


class Message(BaseModel):
    message: str


class ServerInfo(BaseModel):
    version: str
    commit: str
    kafka_cluster_id: str | None

    @classmethod
    def of(cls, server: domain.ServerInfo) -> ServerInfo:
        return cls(version=server.version, commit=server.commit, kafka_cluster_id=server.kafka_cluster_id)


class WorkerStatus(BaseModel):
    status: str
    message: str
    # Not in Kafka's entity: added on a non-2xx so clients that read every error as an ErrorMessage work too.
    error_code: int | None = Field(default=None, exclude_if=_absent)


class ConnectorTaskId(BaseModel):
    connector: str
    task: int

    @classmethod
    def of(cls, task: DomainTaskId) -> ConnectorTaskId:
        return cls(connector=task.connector, task=task.task)


class ConnectorInfo(BaseModel):
    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: str

    @classmethod
    def of(cls, connector: domain.ConnectorInfo) -> ConnectorInfo:
        return cls(
            name=connector.name,
            config=dict(connector.config),
            tasks=[ConnectorTaskId.of(task) for task in connector.tasks],
            type=connector.type.value,
        )


class TaskInfo(BaseModel):
    id: ConnectorTaskId
    config: dict[str, str]

    @classmethod
    def of(cls, task: domain.TaskInfo) -> TaskInfo:
        return cls(id=ConnectorTaskId.of(task.id), config=dict(task.config))


class ConnectorState(BaseModel):
    state: str
    worker_id: str
    trace: str | None = Field(default=None, exclude_if=_empty)

    @classmethod
    def of(cls, status: domain.InstanceStatus) -> ConnectorState:
        return cls(state=status.state.value, worker_id=status.worker_id, trace=status.trace)


class TaskState(BaseModel):
    id: int
    state: str
    worker_id: str
    trace: str | None = Field(default=None, exclude_if=_empty)

    @classmethod
    def of(cls, task: domain.TaskStateInfo) -> TaskState:
        status = task.status
        return cls(id=task.id, state=status.state.value, worker_id=status.worker_id, trace=status.trace)


class ConnectorStateInfo(BaseModel):
    name: str
    connector: ConnectorState
    tasks: list[TaskState]
    type: str

    @classmethod
    def of(cls, state: domain.ConnectorStateInfo) -> ConnectorStateInfo:
        return cls(
            name=state.name,
            connector=ConnectorState.of(state.connector),
            tasks=[TaskState.of(task) for task in sorted(state.tasks, key=lambda task: task.id)],
            type=state.type.value,
        )


class ConnectorExpansions(BaseModel):
    """One connector in `GET /connectors?expand=...`: only the expansions asked for."""

    status: ConnectorStateInfo | None = Field(default=None, exclude_if=_absent)
    info: ConnectorInfo | None = Field(default=None, exclude_if=_absent)


class ActiveTopicsInfo(BaseModel):
    topics: list[str]


class PluginInfo(BaseModel):
    class_name: str = Field(serialization_alias="class")
    type: str
    version: str | None = Field(default=None, exclude_if=_empty)

    @classmethod
    def of(cls, plugin: domain.PluginInfo) -> PluginInfo:
        return cls(class_name=plugin.class_name, type=plugin.type.value, version=plugin.version)


class ConfigKeyInfo(BaseModel):
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

    @classmethod
    def of(cls, key: domain.ConfigKeyInfo) -> ConfigKeyInfo:
        return cls(
            name=key.name,
            type=key.type,
            required=key.required,
            default_value=key.default_value,
            importance=key.importance,
            documentation=key.documentation,
            group=key.group,
            order=key.order,
            width=key.width,
            display_name=key.display_name,
            dependents=list(key.dependents),
        )


class ConfigValueInfo(BaseModel):
    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool

    @classmethod
    def of(cls, value: domain.ConfigValueInfo) -> ConfigValueInfo:
        return cls(
            name=value.name,
            value=value.value,
            recommended_values=list(value.recommended_values),
            errors=list(value.errors),
            visible=value.visible,
        )


class ConfigInfo(BaseModel):
    definition: ConfigKeyInfo | None
    value: ConfigValueInfo | None

    @classmethod
    def of(cls, config: domain.ConfigInfo) -> ConfigInfo:
        return cls(
            definition=None if config.definition is None else ConfigKeyInfo.of(config.definition),
            value=None if config.value is None else ConfigValueInfo.of(config.value),
        )


class ConfigInfos(BaseModel):
    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]

    @classmethod
    def of(cls, infos: domain.ConfigInfos) -> ConfigInfos:
        return cls(
            name=infos.name,
            error_count=infos.error_count,
            groups=list(infos.groups),
            configs=[ConfigInfo.of(config) for config in infos.configs],
        )


class LoggerLevel(BaseModel):
    level: str
    last_modified: int | None

    @classmethod
    def of(cls, level: domain.LoggerLevel) -> LoggerLevel:
        return cls(level=level.level, last_modified=level.last_modified)
