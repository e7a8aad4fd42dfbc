"""Pins the plug-in API's public names: adding or removing one is a deliberate change to this list."""

import inspect

import connect.api
import connect.testing

PUBLIC_NAMES = {
    "NO_DEFAULT", "OFFSET_NOT_REPORTED", "OFFSET_NOT_WRITTEN",
    "AlreadyExistsError", "Config", "ConfigData", "ConfigDef", "ConfigProvider", "ConfigError",
    "ConfigKey", "ConfigType",
    "ConfigValue", "ConnectError", "Connector", "ConnectorContext", "ConnectorTransactionBoundaries",
    "Converter", "DataError", "ErrantRecordReporter", "ExactlyOnceSupport", "Field", "Header",
    "HeaderConverter", "Headers", "IllegalWorkerStateError", "Importance", "NotFoundError", "OffsetReader",
    "OffsetsToAlter", "Password", "PluginMetrics", "Predicate", "Range", "Recommender", "RecordListBatch",
    "RecordMetadata",
    "RetriableError", "Schema", "SchemaAndValue", "SchemaAndValues", "SchemaType", "SinkConnector", "SinkRecord",
    "SinkRecordBatch", "SinkTask", "SinkTaskContext",
    "SourceConnector", "SourceConnectorContext", "SourceOffset", "SourcePartition", "SourceRecord", "SourceRecordBatch",
    "SourceTask", "SourceTaskContext", "Struct", "StructColumns", "Task", "TimestampType", "TopicPartition",
    "TransactionContext", "Transformation", "Utf8Strings", "ValidList", "ValidString", "Validator", "Width",
    "composite", "distribution_version", "invalid_value", "non_empty_string",
    "non_empty_string_without_control_chars", "non_null",
    "single_topic",
    # Kafka Connect's Schema.*_SCHEMA constants.
    "BOOLEAN_SCHEMA",
    "BYTES_SCHEMA",
    "DATE_SCHEMA",
    "FLOAT32_SCHEMA",
    "FLOAT64_SCHEMA",
    "INT16_SCHEMA",
    "INT32_SCHEMA",
    "INT64_SCHEMA",
    "INT8_SCHEMA",
    "OPTIONAL_BOOLEAN_SCHEMA",
    "OPTIONAL_BYTES_SCHEMA",
    "OPTIONAL_FLOAT32_SCHEMA",
    "OPTIONAL_FLOAT64_SCHEMA",
    "OPTIONAL_INT16_SCHEMA",
    "OPTIONAL_INT32_SCHEMA",
    "OPTIONAL_INT64_SCHEMA",
    "OPTIONAL_INT8_SCHEMA",
    "OPTIONAL_STRING_SCHEMA",
    "STRING_SCHEMA",
    "TIMESTAMP_SCHEMA",
    "TIME_SCHEMA",
}  # fmt: skip


def test_public_names_are_pinned() -> None:
    assert set(connect.api.__all__) == PUBLIC_NAMES
    for name in PUBLIC_NAMES:
        assert hasattr(connect.api, name), name


def test_lifecycle_methods_connector_authors_implement() -> None:
    abstract = {cls.__name__: set(cls.__abstractmethods__) for cls in (connect.api.SourceTask, connect.api.SinkTask)}
    assert abstract == {"SourceTask": {"start", "stop", "poll"}, "SinkTask": {"start", "stop", "put"}}
    assert set(connect.api.SourceConnector.__abstractmethods__) == {
        "start",
        "stop",
        "task_class",
        "task_configs",
        "config",
    }


def test_every_public_class_is_documented() -> None:
    for name in PUBLIC_NAMES:
        obj = getattr(connect.api, name)
        if inspect.isclass(obj) and obj.__module__.startswith("connect.api"):
            assert vars(obj).get("__doc__"), f"{name} needs a docstring of its own"


def test_the_kits_names_are_pinned() -> None:
    assert set(connect.testing.__all__) == {
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
    }
