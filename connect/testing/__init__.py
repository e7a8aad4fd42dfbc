"""The test kit for connector authors, shipped with kconnect.

Two levels, as Kafka gives Java connector authors `MockSourceTaskContext` and `EmbeddedConnectCluster`:

- **Fakes** (`connect.testing.fakes`) of the contexts the worker hands connectors and tasks, recording what
  the plug-in asked of them: unit tests of a task's own logic, with neither a worker nor Kafka.
- **The harness** (`connect.testing.harness`): the connector and its tasks run in process through the
  worker's real record path (converters, transformations, error handling, offset commits) over Kafka in
  memory or a real cluster. `connect.testing.pytest_plugin` gives pytest fixtures for both
  (`connector_harness`, `kafka_connector_harness`); it is registered for pytest when kconnect is installed.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from connect.testing.fakes import (
        FakeConnectorContext,
        FakeErrantRecordReporter,
        FakeOffsetReader,
        FakePluginMetrics,
        FakeSinkTaskContext,
        FakeSourceConnectorContext,
        FakeSourceTaskContext,
        FakeTransactionContext,
    )
    from connect.testing.harness import ConnectorHarness, ConnectorState, wait_for
    from connect.testing.memory_kafka import MemoryKafka, TopicRecord

# Loaded on first use: pytest loads this package's plug-in in every project that installs kconnect, and the
# harness brings in the whole runtime.
_HOMES = {
    **dict.fromkeys(
        (
            "FakeConnectorContext",
            "FakeErrantRecordReporter",
            "FakeOffsetReader",
            "FakePluginMetrics",
            "FakeSinkTaskContext",
            "FakeSourceConnectorContext",
            "FakeSourceTaskContext",
            "FakeTransactionContext",
        ),
        "connect.testing.fakes",
    ),
    **dict.fromkeys(("ConnectorHarness", "ConnectorState", "wait_for"), "connect.testing.harness"),
    **dict.fromkeys(("MemoryKafka", "TopicRecord"), "connect.testing.memory_kafka"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


__all__ = [
    "ConnectorHarness",
    "ConnectorState",
    "FakeConnectorContext",
    "FakeErrantRecordReporter",
    "FakeOffsetReader",
    "FakePluginMetrics",
    "FakeSinkTaskContext",
    "FakeSourceConnectorContext",
    "FakeSourceTaskContext",
    "FakeTransactionContext",
    "MemoryKafka",
    "TopicRecord",
    "wait_for",
]
