"""Plug-in discovery and name resolution, as Kafka Connect resolves `connector.class` and friends."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import pytest

from connect.api import (
    ConfigDef,
    ConfigError,
    NotFoundError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Task,
)
from connect.converters import JsonConverter, SimpleHeaderConverter, StringConverter
from connect.runtime.domain.info import ConnectorType, PluginType
from connect.runtime.plugins import JAVA_CLASS_NAMES, PluginRegistry
from connect.transforms import Filter, InsertFieldValue, TopicNameMatches


class _NoopSourceTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None: ...

    def stop(self) -> None: ...

    def poll(self) -> list[SourceRecord] | None:
        return None


class _NoopSinkTask(SinkTask):
    def start(self, props: Mapping[str, str]) -> None: ...

    def stop(self) -> None: ...

    def put(self, records: Any) -> None: ...


class ExampleSourceConnector(SourceConnector):
    def version(self) -> str:
        return "2.5"

    def start(self, props: Mapping[str, str]) -> None: ...

    def task_class(self) -> type[SourceTask]:
        return _NoopSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None: ...

    def config(self) -> ConfigDef:
        return ConfigDef()


class ExampleSinkConnector(SinkConnector):
    def start(self, props: Mapping[str, str]) -> None: ...

    def task_class(self) -> type[SinkTask]:
        return _NoopSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None: ...

    def config(self) -> ConfigDef:
        return ConfigDef()


# Two different classes with the same simple name, as two packages might ship.
_Duplicate = type("ExampleSinkConnector", (ExampleSinkConnector,), {"__module__": "other.package"})


class FileStreamSourceConnector(ExampleSourceConnector):
    """Stands in for the real file connector: Java names resolve by the entry point name."""


@pytest.fixture
def registry() -> PluginRegistry:
    return PluginRegistry.of(ExampleSourceConnector, ExampleSinkConnector, JsonConverter, InsertFieldValue)


def _full(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_connectors_resolve_by_full_name_simple_name_and_alias(registry: PluginRegistry) -> None:
    for name in (_full(ExampleSourceConnector), "ExampleSourceConnector", "ExampleSource"):
        assert registry.connector_class(name) is ExampleSourceConnector
    assert registry.connector_class("ExampleSink") is ExampleSinkConnector


def test_resolution_is_case_sensitive_as_in_kafka(registry: PluginRegistry) -> None:
    with pytest.raises(ConfigError):
        registry.connector_class("examplesource")


def test_unknown_connector_error_names_the_name_and_lists_the_available(registry: PluginRegistry) -> None:
    with pytest.raises(ConfigError) as err:
        registry.connector_class("NoSuchConnector")
    message = str(err.value)
    assert message.startswith(
        "Failed to find any class that implements Connector and which name matches NoSuchConnector, "
        "available connectors are: "
    )
    assert _full(ExampleSourceConnector) in message and _full(ExampleSinkConnector) in message
    assert "JsonConverter" not in message


def test_find_raises_not_found_and_types_narrow_the_search(registry: PluginRegistry) -> None:
    with pytest.raises(NotFoundError):
        registry.find("Nothing")
    with pytest.raises(NotFoundError):
        registry.find("JsonConverter", PluginType.SOURCE)
    assert registry.find("JsonConverter", PluginType.CONVERTER).type is PluginType.CONVERTER


def test_a_class_implementing_two_plugin_types_is_listed_once_per_type(registry: PluginRegistry) -> None:
    types = {d.type for d in registry.plugins() if d.cls is JsonConverter}
    assert types == {PluginType.CONVERTER, PluginType.HEADER_CONVERTER}
    assert registry.header_converter_class("JsonConverter") is JsonConverter


def test_ambiguous_simple_names_are_an_error_listing_both() -> None:
    registry = PluginRegistry.of(ExampleSinkConnector, _Duplicate)
    with pytest.raises(ConfigError) as err:
        registry.connector_class("ExampleSinkConnector")
    assert _full(ExampleSinkConnector) in str(err.value)
    assert "other.package.ExampleSinkConnector" in str(err.value)
    assert registry.connector_class(_full(ExampleSinkConnector)) is ExampleSinkConnector


def test_plugins_are_sorted_by_class_name_and_carry_versions(registry: PluginRegistry) -> None:
    names = [d.class_name for d in registry.plugins()]
    assert names == sorted(names)
    source = registry.find("ExampleSource")
    assert source.version == "2.5"
    assert registry.find("ExampleSink").version is None  # "undefined" is shown as no version
    assert [d.cls for d in registry.plugins(PluginType.SOURCE, PluginType.SINK)] == [
        ExampleSinkConnector,
        ExampleSourceConnector,
    ]


def test_connector_type(registry: PluginRegistry) -> None:
    assert registry.connector_type("ExampleSource") is ConnectorType.SOURCE
    assert registry.connector_type("ExampleSinkConnector") is ConnectorType.SINK
    assert registry.connector_type("JsonConverter") is ConnectorType.UNKNOWN
    assert registry.connector_type("Missing") is ConnectorType.UNKNOWN


def test_a_connector_type_answered_before_an_import_follows_the_imported_plugin() -> None:
    # Types are remembered by name; a plug-in imported later must still change what a name answers.
    registry = PluginRegistry.of(ExampleSinkConnector)
    assert registry.connector_type("FileStreamSource") is ConnectorType.UNKNOWN
    assert registry.connector_type("ExampleSink") is ConnectorType.SINK
    assert registry.connector_class(_full(FileStreamSourceConnector)) is FileStreamSourceConnector
    assert registry.connector_type("FileStreamSource") is ConnectorType.SOURCE
    assert registry.connector_type("ExampleSink") is ConnectorType.SINK


def test_kafka_java_class_names_resolve_to_the_kconnect_equivalents() -> None:
    registry = PluginRegistry.of(FileStreamSourceConnector, JsonConverter, InsertFieldValue, TopicNameMatches)
    assert (
        registry.connector_class("org.apache.kafka.connect.file.FileStreamSourceConnector") is FileStreamSourceConnector
    )
    assert registry.converter_class("org.apache.kafka.connect.json.JsonConverter") is JsonConverter
    assert registry.transformation_class("org.apache.kafka.connect.transforms.InsertField$Value") is InsertFieldValue
    assert registry.transformation_class("InsertField$Value") is InsertFieldValue
    assert (
        registry.predicate_class("org.apache.kafka.connect.transforms.predicates.TopicNameMatches") is TopicNameMatches
    )
    with pytest.raises(ConfigError):
        registry.transformation_class("org.apache.kafka.connect.transforms.InsertField$Key")


def test_the_java_name_table_covers_every_builtin_and_points_at_installed_entry_points() -> None:
    registry = PluginRegistry.discover()
    for java_name, entry_point in JAVA_CLASS_NAMES.items():
        if entry_point in ("FileStreamSourceConnector", "FileStreamSinkConnector", "DatagenConnector"):
            continue  # another package's plug-ins; their presence is not this module's concern
        assert registry.find(java_name).class_name.endswith(entry_point), java_name
    for name in ("Cast", "ExtractField", "Flatten", "HeaderFrom", "HoistField", "InsertField", "MaskField"):
        for variant in ("$Key", "$Value"):
            assert f"org.apache.kafka.connect.transforms.{name}{variant}" in JAVA_CLASS_NAMES


def test_discover_finds_the_builtin_converters_transforms_and_predicates() -> None:
    registry = PluginRegistry.discover()
    assert registry.converter_class("JsonConverter") is JsonConverter
    assert registry.converter_class("StringConverter") is StringConverter
    assert registry.header_converter_class("SimpleHeaderConverter") is SimpleHeaderConverter
    assert registry.converter_class("org.apache.kafka.connect.converters.IntegerConverter").__name__ == (
        "IntegerConverter"
    )
    assert registry.transformation_class("org.apache.kafka.connect.transforms.Filter").__name__ == "Filter"
    assert registry.predicate_class("RecordIsTombstone").__name__ == "RecordIsTombstone"
    assert all(d.version for d in registry.plugins(PluginType.TRANSFORMATION, PluginType.PREDICATE))


class _EntryPoint:
    def __init__(self, name: str, value: str, loaded: Any) -> None:
        self.name, self.value, self._loaded = name, value, loaded

    def load(self) -> Any:
        if isinstance(self._loaded, Exception):
            raise self._loaded
        return self._loaded


def test_a_broken_entry_point_is_logged_and_skipped(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def entry_points(group: str) -> list[_EntryPoint]:
        if group != "kconnect.connectors":
            return []
        return [
            _EntryPoint("Broken", "missing.module:Broken", ImportError("No module named 'missing'")),
            _EntryPoint("NotAPlugin", "builtins:dict", dict),
            _EntryPoint("ExampleSourceConnector", "tests:ExampleSourceConnector", ExampleSourceConnector),
        ]

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    with caplog.at_level(logging.WARNING, logger="connect.runtime.plugins.registry"):
        registry = PluginRegistry.discover()
    assert [d.cls for d in registry.plugins()] == [ExampleSourceConnector]
    assert "Broken" in caplog.text and "NotAPlugin" in caplog.text


def test_a_dotted_name_nothing_registered_is_imported_as_a_last_resort() -> None:
    registry = PluginRegistry()
    assert registry.transformation_class("connect.transforms.filter.Filter").__name__ == "Filter"
    with pytest.raises(ConfigError):
        registry.transformation_class("connect.transforms.filter.NoSuchClass")
    with pytest.raises(ConfigError):
        registry.connector_class("connect.transforms.filter.Filter")  # not a connector


def test_a_class_named_by_the_python_path_it_had_before_its_package_moved_still_resolves() -> None:
    # Stored connector configs may name built-in plug-ins by where they lived until they left the runtime.
    registry = PluginRegistry()
    assert registry.transformation_class("connect.runtime.transforms.filter.Filter") is Filter
    assert registry.converter_class("connect.runtime.converters.json.JsonConverter") is JsonConverter
    with pytest.raises(ConfigError):
        registry.transformation_class("connect.runtime.transforms.filter.NoSuchClass")


def test_classes_that_are_no_plugins_are_ignored() -> None:
    assert PluginRegistry.of(SinkRecord, Task, dict).plugins() == []
