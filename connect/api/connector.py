"""Connectors: the plug-in that reads a config and splits the work into task configs.

Lifecycle, driven by the runtime on one thread per connector instance:

1. The class is instantiated with no arguments.
2. `initialize(context)` hands it its `ConnectorContext`.
3. `start(props)` with the user's config (a map of strings). Raise `ConfigError` for bad values.
4. `task_configs(max_tasks)` returns at most `max_tasks` config maps, one per task to run; called
   again whenever the connector calls `context.request_task_reconfiguration()` or its config changes.
5. `stop()` when the connector is deleted, paused, stopped, reconfigured or moved to another worker.
   After `stop` the instance is discarded.

`config()` and `validate()` are also called on throw-away instances (by the REST validate endpoint),
without `initialize` or `start`.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping

from connect.api.config import ConfigDef, ConfigValue
from connect.api.context import ConnectorContext, OffsetsToAlter, SourceConnectorContext
from connect.api.records import TopicPartition
from connect.api.task import SinkTask, SourceTask, Task

UNDEFINED_VERSION = "undefined"


class ExactlyOnceSupport(enum.Enum):
    """Whether a source connector can deliver exactly once (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(enum.Enum):
    """Whether a source connector can define its own transaction boundaries (KIP-618)."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class Connector(abc.ABC):
    """Base of all connectors; subclass `SourceConnector` or `SinkConnector`, not this."""

    context: ConnectorContext

    def version(self) -> str:
        """The plug-in's version, shown by `GET /connector-plugins`."""
        return UNDEFINED_VERSION

    def initialize(self, context: ConnectorContext) -> None:
        self.context = context

    @abc.abstractmethod
    def start(self, props: Mapping[str, str]) -> None: ...

    @abc.abstractmethod
    def task_class(self) -> type[Task]: ...

    @abc.abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    @abc.abstractmethod
    def config(self) -> ConfigDef:
        """The definition of this connector's own settings (framework settings are added by the runtime)."""

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        """Per-key validation results; override to add cross-field checks (append to `error_messages`)."""
        return self.config().validate(props)

    def reconfigure(self, props: Mapping[str, str]) -> None:
        """Apply a changed config. The default restarts the connector."""
        self.stop()
        self.start(props)


class SourceConnector(Connector):
    """A connector whose tasks read from an external system and produce to Kafka."""

    context: SourceConnectorContext

    @abc.abstractmethod
    def task_class(self) -> type[SourceTask]: ...

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether the connector can run with exactly-once delivery (KIP-618); None means unknown."""
        return None

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.UNSUPPORTED

    def alter_offsets(self, props: Mapping[str, str], offsets: OffsetsToAlter) -> bool:
        """Called before the offsets API changes stored offsets; raise to reject.

        Return True if the connector manages no offsets of its own elsewhere (so the change is complete).
        """
        return False


class SinkConnector(Connector):
    """A connector whose tasks consume from Kafka and write to an external system."""

    TOPICS_CONFIG = "topics"
    TOPICS_REGEX_CONFIG = "topics.regex"

    @abc.abstractmethod
    def task_class(self) -> type[SinkTask]: ...

    def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]) -> bool:
        """Called before the offsets API changes the consumer group's offsets; raise to reject."""
        return False
