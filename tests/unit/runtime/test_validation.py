"""Connector config validation: the ConfigInfos of Kafka Connect's validate endpoint, the 400 message on create,
and the plug-in config listing, for small source and sink connectors, a transform, a predicate and a converter
registered as real plug-ins."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from connect.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigError,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Converter,
    ExactlyOnceSupport,
    Importance,
    NotFoundError,
    Password,
    Predicate,
    Range,
    SchemaAndValue,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Transformation,
    ValidString,
    Width,
)
from connect.api.data import Schema
from connect.api.records import Headers
from connect.runtime.config.connector import source_connector_config_def
from connect.runtime.domain.errors import BadRequestError
from connect.runtime.domain.info import ConfigInfos, ConfigKeyInfo
from connect.runtime.plugins import PluginRegistry
from connect.runtime.validation import (
    config_key_info,
    config_value_info,
    connector_plugin_config,
    invalid_config_message,
    validate_connector_config,
)

SOURCE_GROUPS = [
    "Common",
    "Transforms",
    "Predicates",
    "Error Handling",
    "Topic Creation",
    "Exactly Once Support",
    "offsets.topic",
]
SINK_GROUPS = ["Common", "Transforms", "Predicates", "Error Handling"]


class ModeRecommender:
    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
        return ["bulk", "incrementing"]

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
        return True


class TableSourceConnector(SourceConnector):
    """Reads tables; a required URL, a password, a validated batch size and a recommended mode."""

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def stop(self) -> None:
        pass

    def task_class(self) -> type[SourceTask]:
        return SourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                "db.url",
                ConfigType.STRING,
                importance=Importance.HIGH,
                documentation="Where the database is.",
                group="Connection",
                order_in_group=1,
                width=Width.LONG,
                display_name="Database URL",
            )
            .define("db.password", ConfigType.PASSWORD, "changeme", importance=Importance.HIGH, group="Connection")
            .define("batch.size", ConfigType.INT, 100, Range.at_least(1), Importance.MEDIUM, "Rows.", group="Tuning")
            .define("mode", ConfigType.STRING, "bulk", recommender=ModeRecommender(), group="Tuning")
        )

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.UNSUPPORTED


class ArchiveSinkConnector(SinkConnector):
    """Writes to an archive; its own `topics` key overrides the framework's, and validate() adds a cross check."""

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def stop(self) -> None:
        pass

    def task_class(self) -> type[SinkTask]:
        return SinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("path", ConfigType.STRING, importance=Importance.HIGH, documentation="Archive path.")
            .define("topics", ConfigType.LIST, "", importance=Importance.HIGH, documentation="Archived topics.")
            .define("format", ConfigType.STRING, "json", ValidString.in_("json", "avro"))
        )

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        values = super().validate(props)
        if props.get("format") == "avro" and "schema.url" not in props:
            values.append(ConfigValue("schema.url", None, error_messages=["schema.url is required for avro"]))
        return values


class MaskField(Transformation[SourceRecord]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return record

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("fields", ConfigType.LIST, importance=Importance.HIGH, documentation="Fields to mask.")
            .define("length", ConfigType.INT, 4, Range.at_least(1))
            .define("negate", ConfigType.STRING, "masked by the framework's own key")
        )


class TopicMatches(Predicate[SinkRecord]):
    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def test(self, record: SinkRecord) -> bool:
        return True

    def config(self) -> ConfigDef:
        return ConfigDef().define("pattern", ConfigType.STRING, importance=Importance.HIGH, group="Matching")


class RecordingConverter(Converter):
    closed: list[str] = []

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        pass

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any, headers: Headers = ()) -> bytes | None:
        return None

    def to_connect_data(self, topic: str, value: bytes | None, headers: Headers = ()) -> SchemaAndValue:
        raise NotImplementedError

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("schemas.enable", ConfigType.BOOLEAN, True, group="Schemas")
            .define("cache.size", ConfigType.INT, 1000, Range.at_least(0))
        )

    def close(self) -> None:
        RecordingConverter.closed.append(type(self).__name__)


class UnbuildableSinkConnector(ArchiveSinkConnector):
    def __init__(self) -> None:
        raise RuntimeError("no driver installed")


@pytest.fixture
def registry() -> PluginRegistry:
    return PluginRegistry.of(TableSourceConnector, ArchiveSinkConnector, MaskField, TopicMatches, RecordingConverter)


def by_name(infos: ConfigInfos) -> dict[str, dict[str, Any]]:
    """The JSON-able form of each entry, keyed by name; entries without a definition keyed by their value's name."""
    entries: dict[str, dict[str, Any]] = {}
    for info in infos.configs:
        name = info.definition.name if info.definition else info.value.name if info.value else ""
        entries[name] = dataclasses.asdict(info)
    return entries


def errors_of(infos: ConfigInfos) -> dict[str, list[str]]:
    return {info.value.name: info.value.errors for info in infos.configs if info.value and info.value.errors}


SOURCE = {"name": "tables", "connector.class": "TableSource", "db.url": "db://host/x"}
SINK = {"name": "archive", "connector.class": "ArchiveSinkConnector", "topics": "orders", "path": "/archive"}


class TestValidSource:
    def test_a_valid_config_has_no_errors(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(SOURCE, registry)
        assert infos.error_count == 0
        assert errors_of(infos) == {}
        assert infos.name == "TableSource"  # connector.class as the user gave it
        assert invalid_config_message(infos) is None

    def test_groups_are_the_frameworks_then_the_connectors(self, registry: PluginRegistry) -> None:
        assert validate_connector_config(SOURCE, registry).groups == [*SOURCE_GROUPS, "Connection", "Tuning"]

    def test_configs_are_framework_keys_then_connector_keys(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(SOURCE, registry)
        names = [info.definition.name for info in infos.configs if info.definition]
        assert names == [*source_connector_config_def().names(), "db.url", "db.password", "batch.size", "mode"]

    def test_entries_have_kafkas_shape(self, registry: PluginRegistry) -> None:
        entries = by_name(validate_connector_config({**SOURCE, "tasks.max": "3"}, registry))
        assert entries["tasks.max"] == {
            "definition": {
                "name": "tasks.max",
                "type": "INT",
                "required": False,
                "default_value": "1",
                "importance": "HIGH",
                "documentation": "Maximum number of tasks to use for this connector.",
                "group": "Common",
                "order": 3,
                "width": "SHORT",
                "display_name": "Tasks max",
                "dependents": [],
            },
            "value": {"name": "tasks.max", "value": "3", "recommended_values": [], "errors": [], "visible": True},
        }
        assert entries["db.url"]["definition"] == {
            "name": "db.url",
            "type": "STRING",
            "required": True,
            "default_value": None,
            "importance": "HIGH",
            "documentation": "Where the database is.",
            "group": "Connection",
            "order": 1,
            "width": "LONG",
            "display_name": "Database URL",
            "dependents": [],
        }
        assert entries["transforms"]["value"]["value"] == ""
        assert entries["key.converter"]["value"]["value"] is None

    def test_passwords_are_hidden(self, registry: PluginRegistry) -> None:
        entries = by_name(validate_connector_config({**SOURCE, "db.password": "s3cret"}, registry))
        assert entries["db.password"]["definition"]["default_value"] == "[hidden]"
        assert entries["db.password"]["value"]["value"] == "[hidden]"
        assert "s3cret" not in repr(entries)

    def test_recommended_values(self, registry: PluginRegistry) -> None:
        entries = by_name(validate_connector_config(SOURCE, registry))
        assert entries["mode"]["value"]["recommended_values"] == ["bulk", "incrementing"]


class TestErrors:
    def test_connector_and_framework_errors_are_reported_and_counted(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(
            {"name": "", "connector.class": "TableSource", "tasks.max": "x", "batch.size": "0"}, registry
        )
        assert errors_of(infos) == {
            "name": ["Invalid value  for configuration name: String may not be empty"],
            "tasks.max": ["Invalid value x for configuration tasks.max: Not a number of type INT"],
            "db.url": ['Missing required configuration "db.url" which has no default value.'],
            "batch.size": ["Invalid value 0 for configuration batch.size: Value must be at least 1"],
        }
        assert infos.error_count == 4

    def test_error_count_counts_messages_as_kafka_does(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config({**SOURCE, "exactly.once.support": "required"}, registry)
        assert infos.error_count == 0  # standalone: no exactly-once preflight
        distributed = validate_connector_config(
            {**SOURCE, "exactly.once.support": "required"}, registry, exactly_once_source_enabled=False
        )
        assert errors_of(distributed) == {
            "exactly.once.support": [
                "This worker does not have exactly-once source support enabled.",
                "The connector does not support exactly-once semantics with the provided configuration.",
            ]
        }
        assert distributed.error_count == 2

    def test_null_values(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config({**SOURCE, "batch.size": None, "unknown.key": None}, registry)
        entries = by_name(infos)
        null = ["Null value can not be supplied as the configuration value."]
        assert entries["batch.size"]["value"]["errors"] == null
        assert entries["unknown.key"] == {
            "definition": None,
            "value": {"name": "unknown.key", "value": None, "recommended_values": [], "errors": null, "visible": True},
        }
        assert infos.error_count == 2

    def test_the_create_error_message_is_kafkas(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config({"connector.class": "TableSource", "batch.size": "0"}, registry)
        assert invalid_config_message(infos) == (
            "Connector configuration is invalid and contains the following 3 error(s):\n"
            'Missing required configuration "name" which has no default value.\n'
            'Missing required configuration "db.url" which has no default value.\n'
            "Invalid value 0 for configuration batch.size: Value must be at least 1\n"
            "You can also find the above list of errors at the endpoint "
            "`/connector-plugins/{connectorType}/config/validate`"
        )


class TestConnectorClass:
    def test_missing_connector_class_is_a_bad_request(self, registry: PluginRegistry) -> None:
        with pytest.raises(BadRequestError) as info:
            validate_connector_config({"name": "x", "topics": "a"}, registry)
        assert str(info.value) == "Connector config {name=x, topics=a} contains no connector type"

    def test_unknown_connector_class_is_an_error_on_connector_class(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config({"name": "x", "connector.class": "com.example.Nope"}, registry)
        assert infos.name == "com.example.Nope"
        assert infos.groups == SINK_GROUPS
        errors = errors_of(infos)
        assert list(errors) == ["connector.class"]
        assert errors["connector.class"][0].startswith(
            "Failed to find any class that implements Connector and which name matches com.example.Nope"
        )
        assert infos.error_count == 1
        message = invalid_config_message(infos)
        assert message is not None and "com.example.Nope" in message

    def test_a_connector_that_cannot_be_built_is_an_error_on_connector_class(self) -> None:
        infos = validate_connector_config(
            {"name": "x", "connector.class": "UnbuildableSink"}, PluginRegistry.of(UnbuildableSinkConnector)
        )
        assert errors_of(infos) == {"connector.class": ["no driver installed"]}

    @pytest.mark.parametrize("name", ["TableSource", "TableSourceConnector", f"{__name__}.TableSourceConnector"])
    def test_aliases_resolve(self, registry: PluginRegistry, name: str) -> None:
        infos = validate_connector_config({**SOURCE, "connector.class": name}, registry)
        assert (infos.name, infos.error_count) == (name, 0)


class TestTransformsAndPredicates:
    def config(self, **extra: str) -> dict[str, str]:
        return {
            **SOURCE,
            "transforms": "mask",
            "transforms.mask.type": "MaskField",
            "transforms.mask.fields": "ssn",
            **extra,
        }

    def test_alias_keys_appear_in_their_own_group(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(
            self.config(**{"predicates": "isOrders", "predicates.isOrders.type": "TopicMatches"}), registry
        )
        assert infos.groups == [
            *SOURCE_GROUPS,
            "Transforms: mask",
            "Predicates: isOrders",
            "Predicates: isOrders: Matching",
            "Connection",
            "Tuning",
        ]
        alias_keys = [
            (d.name, d.group, d.order)
            for d in (info.definition for info in infos.configs)
            if d and d.name.startswith(("transforms.", "predicates."))
        ]
        assert alias_keys == [
            ("transforms.mask.type", "Transforms: mask", 0),
            ("transforms.mask.fields", "Transforms: mask", 1),  # Kafka's sort: required first, then importance, name
            ("transforms.mask.length", "Transforms: mask", 2),
            ("transforms.mask.negate", "Transforms: mask", 3),
            ("transforms.mask.predicate", "Transforms: mask", 4),
            ("predicates.isOrders.type", "Predicates: isOrders", 0),
            ("predicates.isOrders.pattern", "Predicates: isOrders: Matching", 1),
        ]
        entries = by_name(infos)
        assert entries["transforms.mask.type"]["definition"]["display_name"] == "Transformation type for mask"
        assert entries["transforms.mask.type"]["definition"]["required"] is True
        assert entries["transforms.mask.type"]["value"]["recommended_values"] == [f"{__name__}.MaskField"]
        # The implicit negate (BOOLEAN) masks the transformation's own key of that name.
        assert entries["transforms.mask.negate"]["definition"]["type"] == "BOOLEAN"
        assert errors_of(infos) == {
            "predicates.isOrders.pattern": [
                'Missing required configuration "predicates.isOrders.pattern" which has no default value.'
            ]
        }

    def test_transform_settings_are_validated_by_the_transform(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(self.config(**{"transforms.mask.length": "0"}), registry)
        # As in Kafka, an embedded validator names the key without its alias prefix.
        assert errors_of(infos) == {
            "transforms.mask.length": ["Invalid value 0 for configuration length: Value must be at least 1"]
        }

    def test_missing_and_unknown_types(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(
            {**SOURCE, "transforms": "a,b", "transforms.b.type": "Nope", "transforms.b.fields": "x"}, registry
        )
        assert errors_of(infos) == {
            "transforms.a.type": ['Missing required configuration "transforms.a.type" which has no default value.'],
            "transforms.b.type": [
                "Invalid value Nope for configuration transforms.b.type: Class Nope could not be found."
            ],
        }
        names = {info.definition.name for info in infos.configs if info.definition}
        assert "transforms.b.fields" not in names  # nothing to embed for a type that did not resolve

    def test_negate_needs_a_predicate(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(self.config(**{"transforms.mask.negate": "true"}), registry)
        assert errors_of(infos) == {
            "transforms.mask.type": [
                "Config 'transforms.mask.negate' was provided but there is no config 'transforms.mask.predicate' "
                "defining a predicate to be negated."
            ]
        }

    def test_duplicate_aliases(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(self.config(transforms="mask,mask"), registry)
        assert errors_of(infos) == {
            "transforms": ["Invalid value [mask, mask] for configuration transforms: Duplicate alias provided."]
        }


class TestSinkRules:
    def test_valid_sink(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(SINK, registry)
        assert (infos.error_count, infos.groups) == (0, SINK_GROUPS)

    def test_the_connectors_own_key_wins_but_keeps_the_frameworks_place(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(SINK, registry)
        names = [info.definition.name for info in infos.configs if info.definition]
        assert names.index("topics") == names.index("errors.log.include.messages") + 1
        assert by_name(infos)["topics"]["definition"]["documentation"] == "Archived topics."

    def test_topics_or_regex(self, registry: PluginRegistry) -> None:
        neither = validate_connector_config({**SINK, "topics": ""}, registry)
        message = "Must configure one of topics or topics.regex"
        assert errors_of(neither) == {"topics.regex": [message]}  # the connector's own `topics` value wins
        both = validate_connector_config({**SINK, "topics.regex": "orders-.*"}, registry)
        assert errors_of(both) == {
            "topics.regex": ["topics and topics.regex are mutually exclusive options, but both are set."]
        }

    def test_dlq_topic_not_consumed(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(
            {**SINK, "topics": None, "topics.regex": "o.*", "errors.deadletterqueue.topic.name": "orders-dlq"},
            registry,
        )
        errors = errors_of(infos)
        assert errors["topics.regex"] == [
            "The DLQ topic 'orders-dlq' may not be matched by the regex for the topics ('topics.regex=o.*') consumed "
            "by the connector"
        ]

    def test_invalid_regex(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config({**SINK, "topics": "", "topics.regex": "("}, registry)
        [error] = errors_of(infos)["topics.regex"]
        assert error.startswith("Invalid value ( for configuration topics.regex: Invalid regex: ")

    def test_connector_validate_results_without_definition(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config({**SINK, "format": "avro"}, registry)
        assert by_name(infos)["schema.url"]["definition"] is None
        assert errors_of(infos) == {"schema.url": ["schema.url is required for avro"]}
        assert infos.configs[0].value is not None and infos.configs[0].value.name == "schema.url"

    def test_sink_group_clashing_with_the_worker_group(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(SINK, registry, worker_group_id="connect-archive")
        assert errors_of(infos) == {
            "name": [
                "Consumer group for sink connector named archive conflicts with Connect worker group connect-archive"
            ]
        }


class TestConvertersAndOverrides:
    def test_converter_settings_are_validated_under_their_prefix(self, registry: PluginRegistry) -> None:
        RecordingConverter.closed.clear()
        infos = validate_connector_config(
            {**SOURCE, "value.converter": "Recording", "value.converter.cache.size": "-1"}, registry
        )
        entries = by_name(infos)
        assert entries["value.converter.cache.size"]["definition"]["name"] == "value.converter.cache.size"
        assert entries["value.converter.cache.size"]["value"] == {
            "name": "value.converter.cache.size",
            "value": "-1",
            "recommended_values": [],
            "errors": ["Invalid value -1 for configuration cache.size: Value must be at least 0"],
            "visible": True,
        }
        assert entries["value.converter.schemas.enable"]["value"]["value"] == "true"
        assert "Schemas" in infos.groups
        assert infos.error_count == 1
        assert not any(name.startswith("key.converter.") for name in entries)  # inherited from the worker
        assert RecordingConverter.closed == ["RecordingConverter"]

    def test_unknown_converter_class(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config({**SOURCE, "key.converter": "Nope", "key.converter.x": "1"}, registry)
        assert errors_of(infos) == {
            "key.converter": ["Invalid value Nope for configuration key.converter: Class Nope could not be found."]
        }
        assert infos.error_count == 1

    def test_client_overrides_are_accepted_and_secrets_hidden(self, registry: PluginRegistry) -> None:
        infos = validate_connector_config(
            {
                **SINK,
                "consumer.override.max.poll.records": "10",
                "consumer.override.sasl.jaas.config": "secret stuff",
                "producer.override.acks": "all",
            },
            registry,
        )
        entries = by_name(infos)
        assert entries["consumer.override.max.poll.records"] == {
            "definition": None,
            "value": {
                "name": "consumer.override.max.poll.records",
                "value": "10",
                "recommended_values": [],
                "errors": [],
                "visible": True,
            },
        }
        assert entries["consumer.override.sasl.jaas.config"]["value"]["value"] == "[hidden]"
        assert "producer.override.acks" not in entries  # a sink without a DLQ has no producer
        assert infos.error_count == 0

    def test_source_uses_a_producer(self, registry: PluginRegistry) -> None:
        entries = by_name(
            validate_connector_config({**SOURCE, "producer.override.acks": "all", "consumer.override.x": "1"}, registry)
        )
        assert entries["producer.override.acks"]["value"]["value"] == "all"
        assert "consumer.override.x" not in entries


class TestPluginConfig:
    def names(self, keys: Sequence[ConfigKeyInfo]) -> list[str]:
        return [key.name for key in keys]

    def test_connector_keys_first_then_the_frameworks(self, registry: PluginRegistry) -> None:
        keys = connector_plugin_config("TableSource", registry)
        assert self.names(keys) == [
            "db.url",
            "db.password",
            "batch.size",
            "mode",
            *source_connector_config_def().names(),
        ]
        assert keys[1].default_value == "[hidden]"

    def test_the_plugins_own_definition_wins(self, registry: PluginRegistry) -> None:
        keys = connector_plugin_config("ArchiveSink", registry)
        assert self.names(keys).count("topics") == 1
        [topics] = [key for key in keys if key.name == "topics"]
        assert topics.documentation == "Archived topics."

    def test_other_plugins_list_only_their_own_keys(self, registry: PluginRegistry) -> None:
        assert self.names(connector_plugin_config("RecordingConverter", registry)) == ["schemas.enable", "cache.size"]
        assert self.names(connector_plugin_config("MaskField", registry)) == ["fields", "length", "negate"]
        assert self.names(connector_plugin_config("TopicMatches", registry)) == ["pattern"]

    def test_unknown_plugin(self, registry: PluginRegistry) -> None:
        with pytest.raises(NotFoundError) as info:
            connector_plugin_config("Nope", registry)
        assert str(info.value) == "Unknown plugin Nope."


class TestConversions:
    def key(self, type_: ConfigType, default: Any) -> ConfigKey:
        return ConfigKey("k", type_, default, None, Importance.LOW, "doc")

    @pytest.mark.parametrize(
        ("type_", "default", "shown"),
        [
            (ConfigType.LIST, ["a", "b"], "a,b"),
            (ConfigType.LIST, "a, b", "a,b"),
            (ConfigType.PASSWORD, "pw", "[hidden]"),
            (ConfigType.BOOLEAN, False, "false"),
            (ConfigType.DOUBLE, 0.5, "0.5"),
            (ConfigType.CLASS, Password, "connect.api.config.Password"),
            (ConfigType.STRING, None, None),
        ],
    )
    def test_defaults_are_stringified_as_kafka_does(self, type_: ConfigType, default: Any, shown: str | None) -> None:
        info = config_key_info(self.key(type_, default))
        assert (info.required, info.default_value) == (False, shown)

    def test_required_keys_have_a_null_default(self) -> None:
        info = config_key_info(self.key(ConfigType.STRING, NO_DEFAULT))
        assert (info.required, info.default_value, info.display_name, info.order) == (True, None, "k", -1)

    def test_values(self) -> None:
        listed = ConfigValue("k", ["a", "b"], recommended_values=["a", "c"], error_messages=["e"], visible=False)
        info = config_value_info(listed, self.key(ConfigType.LIST, []))
        assert dataclasses.asdict(info) == {
            "name": "k",
            "value": "a,b",
            "recommended_values": ["a", "c"],
            "errors": ["e"],
            "visible": False,
        }
        secret = config_value_info(ConfigValue("k", Password("pw")), self.key(ConfigType.PASSWORD, None))
        assert secret.value == "[hidden]"
        assert config_value_info(ConfigValue("k", 7), None).value == "7"


class StrictSourceConnector(TableSourceConnector):
    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        raise ConfigError("cannot validate right now")


def test_a_connector_that_raises_in_validate_fails_the_request() -> None:
    with pytest.raises(ConfigError, match="cannot validate right now"):
        validate_connector_config(
            {**SOURCE, "connector.class": "StrictSource"}, PluginRegistry.of(StrictSourceConnector)
        )
