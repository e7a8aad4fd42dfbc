"""Wire schemas: Kafka Connect's REST entities, field for field, and the request bodies it accepts.

Class names are Kafka's entity names (they name the OpenAPI components); each response model has a
`of(...)` constructor from the herder's domain value in `connect.runtime.domain.info`, which never leaves
this module as JSON. Where the domain value has the entity's fields under the same names, `of` reads
them with pydantic's `from_attributes` (enums become their value); the rest copy what differs. Fields
Kafka omits when empty (`trace`, a plug-in's `version`) are dropped here.
"""

from __future__ import annotations

import enum
import json
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from connect.runtime.domain import info as domain
from connect.runtime.domain.states import ConnectorTaskId as DomainTaskId


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


def _enum_value(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


EnumValue = Annotated[str, BeforeValidator(_enum_value)]
"""A domain enum (a state, a connector or plug-in type) on the wire: its value, a string."""


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
        return cls.model_validate(offset, from_attributes=True)

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


class _FromDomain(BaseModel):
    """A response read from a domain value with the same field names (nested entities included)."""

    model_config = ConfigDict(from_attributes=True)


class ErrorMessage(BaseModel):
    """The body of every non-2xx answer."""

    error_code: int
    message: str


class Message(BaseModel):
    message: str


class ServerInfo(_FromDomain):
    version: str
    commit: str
    kafka_cluster_id: str | None

    @classmethod
    def of(cls, server: domain.ServerInfo) -> ServerInfo:
        return cls.model_validate(server)


class WorkerStatus(BaseModel):
    status: str
    message: str
    # Not in Kafka's entity: added on a non-2xx so clients that read every error as an ErrorMessage work too.
    error_code: int | None = Field(default=None, exclude_if=_absent)


class ConnectorTaskId(_FromDomain):
    connector: str
    task: int

    @classmethod
    def of(cls, task: DomainTaskId) -> ConnectorTaskId:
        return cls.model_validate(task)


class ConnectorInfo(_FromDomain):
    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: EnumValue

    @classmethod
    def of(cls, connector: domain.ConnectorInfo) -> ConnectorInfo:
        return cls.model_validate(connector)


class ConfigVersionInfo(BaseModel):
    """kconnect's: one version of a connector's config (`config` null: this version deleted the connector)."""

    version: int
    timestamp: int = Field(description="When it was written, in ms since the epoch")
    user: str | None = Field(description="Who wrote it (null: unknown, e.g. Java Kafka Connect)")
    config: dict[str, str] | None


class TaskInfo(_FromDomain):
    id: ConnectorTaskId
    config: dict[str, str]

    @classmethod
    def of(cls, task: domain.TaskInfo) -> TaskInfo:
        return cls.model_validate(task)


class ConnectorState(_FromDomain):
    state: EnumValue
    worker_id: str
    trace: str | None = Field(default=None, exclude_if=_empty)

    @classmethod
    def of(cls, status: domain.InstanceStatus) -> ConnectorState:
        return cls.model_validate(status)


# Copied field by field: it flattens the domain's (id, status) pair.
class TaskState(BaseModel):
    id: int
    state: str
    worker_id: str
    trace: str | None = Field(default=None, exclude_if=_empty)

    @classmethod
    def of(cls, task: domain.TaskStateInfo) -> TaskState:
        status = task.status
        return cls(id=task.id, state=status.state.value, worker_id=status.worker_id, trace=status.trace)


# Copied field by field: its tasks are sorted by id.
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


class PluginInfo(_FromDomain):
    class_name: str = Field(serialization_alias="class")
    type: EnumValue
    version: str | None = Field(default=None, exclude_if=_empty)

    @classmethod
    def of(cls, plugin: domain.PluginInfo) -> PluginInfo:
        return cls.model_validate(plugin)


class ConfigKeyInfo(_FromDomain):
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
        return cls.model_validate(key)


class ConfigValueInfo(_FromDomain):
    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool

    @classmethod
    def of(cls, value: domain.ConfigValueInfo) -> ConfigValueInfo:
        return cls.model_validate(value)


class ConfigInfo(_FromDomain):
    definition: ConfigKeyInfo | None
    value: ConfigValueInfo | None

    @classmethod
    def of(cls, config: domain.ConfigInfo) -> ConfigInfo:
        return cls.model_validate(config)


class ConfigInfos(_FromDomain):
    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]

    @classmethod
    def of(cls, infos: domain.ConfigInfos) -> ConfigInfos:
        return cls.model_validate(infos)


class LoggerLevel(_FromDomain):
    level: str
    last_modified: int | None

    @classmethod
    def of(cls, level: domain.LoggerLevel) -> LoggerLevel:
        return cls.model_validate(level)
