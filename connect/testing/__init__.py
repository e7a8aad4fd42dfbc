"""The test kit for connector authors, shipped with kconnect.

Two levels, as Kafka gives Java connector authors `MockSourceTaskContext` and `EmbeddedConnectCluster`:

- **Fakes** (`connect.testing.fakes`) of the contexts the worker hands connectors and tasks, recording what
  the plug-in asked of them: unit tests of a task's own logic, with neither a worker nor Kafka.
- **The harness** (`connect.testing.harness`): the connector and its tasks run in process through the
  worker's real record path (converters, transformations, error handling, offset commits) over Kafka in
  memory or a real cluster. `connect.testing.pytest_plugin` gives pytest fixtures for both
  (`connector_harness`, `kafka_connector_harness`); it is registered for pytest when kconnect is installed.
"""

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
