"""The framework connector settings: Kafka Connect's key names, defaults and groups, and their typed form."""

from __future__ import annotations

import pytest

from connect.api import ConfigError, ConfigType, ConfigValue, Importance
from connect.runtime.config.connector import (
    ConnectorSettings,
    ErrorTolerance,
    ExactlyOnceSupportLevel,
    TransactionBoundary,
    common_connector_config_def,
    connector_config_def,
    sink_connector_config_def,
    source_connector_config_def,
    validate_sink_topics,
)
from connect.runtime.domain.info import ConnectorType

COMMON_KEYS = [
    "name",
    "connector.class",
    "tasks.max",
    "tasks.max.enforce",
    "key.converter",
    "value.converter",
    "header.converter",
    "transforms",
    "predicates",
    "config.action.reload",
    "errors.retry.timeout",
    "errors.retry.delay.max.ms",
    "errors.tolerance",
    "errors.log.enable",
    "errors.log.include.messages",
]
SINK_KEYS = [
    "topics",
    "topics.regex",
    "errors.deadletterqueue.topic.name",
    "errors.deadletterqueue.topic.replication.factor",
    "errors.deadletterqueue.context.headers.enable",
]
SOURCE_KEYS = [
    "topic.creation.groups",
    "exactly.once.support",
    "transaction.boundary",
    "transaction.boundary.interval.ms",
    "offsets.storage.topic",
]


class TestDefinitions:
    def test_key_names_and_order_are_kafkas(self) -> None:
        assert common_connector_config_def().names() == COMMON_KEYS
        assert sink_connector_config_def().names() == COMMON_KEYS + SINK_KEYS
        assert source_connector_config_def().names() == COMMON_KEYS + SOURCE_KEYS

    def test_groups_are_kafkas(self) -> None:
        common = ["Common", "Transforms", "Predicates", "Error Handling"]
        assert common_connector_config_def().groups() == common
        assert sink_connector_config_def().groups() == common
        assert source_connector_config_def().groups() == [
            *common,
            "Topic Creation",
            "Exactly Once Support",
            "offsets.topic",
        ]

    def test_definition_by_connector_type(self) -> None:
        assert connector_config_def(ConnectorType.SINK).names() == COMMON_KEYS + SINK_KEYS
        assert connector_config_def(ConnectorType.SOURCE).names() == COMMON_KEYS + SOURCE_KEYS
        assert connector_config_def(ConnectorType.UNKNOWN).names() == COMMON_KEYS

    @pytest.mark.parametrize(
        ("name", "type_", "default", "importance", "group", "order"),
        [
            ("name", ConfigType.STRING, None, Importance.HIGH, "Common", 1),
            ("tasks.max", ConfigType.INT, 1, Importance.HIGH, "Common", 3),
            ("tasks.max.enforce", ConfigType.BOOLEAN, True, Importance.LOW, "Common", 4),
            ("key.converter", ConfigType.CLASS, None, Importance.LOW, "Common", 5),
            ("header.converter", ConfigType.CLASS, None, Importance.LOW, "Common", 7),
            ("transforms", ConfigType.LIST, [], Importance.LOW, "Transforms", 8),
            ("config.action.reload", ConfigType.STRING, "restart", Importance.LOW, "Common", 10),
            ("errors.retry.timeout", ConfigType.LONG, 0, Importance.MEDIUM, "Error Handling", 1),
            ("errors.retry.delay.max.ms", ConfigType.LONG, 60000, Importance.MEDIUM, "Error Handling", 2),
            ("errors.tolerance", ConfigType.STRING, "none", Importance.MEDIUM, "Error Handling", 3),
            ("topics", ConfigType.LIST, "", Importance.HIGH, "Common", 4),
            ("topics.regex", ConfigType.STRING, "", Importance.HIGH, "Common", 4),
            (
                "errors.deadletterqueue.topic.replication.factor",
                ConfigType.SHORT,
                3,
                Importance.MEDIUM,
                "Error Handling",
                7,
            ),
            ("exactly.once.support", ConfigType.STRING, "requested", Importance.MEDIUM, "Exactly Once Support", 2),
            ("transaction.boundary", ConfigType.STRING, "poll", Importance.MEDIUM, "Exactly Once Support", 3),
            ("transaction.boundary.interval.ms", ConfigType.LONG, None, Importance.LOW, "Exactly Once Support", 4),
            ("offsets.storage.topic", ConfigType.STRING, None, Importance.LOW, "offsets.topic", 1),
        ],
    )
    def test_key_details(
        self, name: str, type_: ConfigType, default: object, importance: Importance, group: str, order: int
    ) -> None:
        keys = {**sink_connector_config_def().keys, **source_connector_config_def().keys}
        key = keys[name]
        assert (key.type, key.importance, key.group, key.order_in_group) == (type_, importance, group, order)
        if name == "name":
            assert key.required
        else:
            assert key.default == default

    def test_framework_validation_errors(self) -> None:
        props = {
            "name": "bad\x07name",
            "connector.class": "X",
            "tasks.max": "0",
            "errors.tolerance": "some",
            "transforms": "a,b,a",
            "config.action.reload": "sometimes",
        }
        errors = {v.name: v.error_messages for v in common_connector_config_def().validate(props) if v.error_messages}
        assert errors == {
            "name": [
                "Invalid value bad\x07name for configuration name: "
                "String may not contain control sequences but had the following ASCII chars: 7"
            ],
            "tasks.max": ["Invalid value 0 for configuration tasks.max: Value must be at least 1"],
            "errors.tolerance": [
                "Invalid value some for configuration errors.tolerance: String must be one of: none, all"
            ],
            "transforms": ["Invalid value [a, b, a] for configuration transforms: Duplicate alias provided."],
            "config.action.reload": [
                "Invalid value sometimes for configuration config.action.reload: String must be one of: none, restart"
            ],
        }

    def test_source_validation_errors(self) -> None:
        props = {
            "name": "n",
            "connector.class": "X",
            "exactly.once.support": "maybe",
            "transaction.boundary.interval.ms": "-1",
            "offsets.storage.topic": " ",
        }
        errors = {v.name: v.error_messages for v in source_connector_config_def().validate(props) if v.error_messages}
        assert errors == {
            "exactly.once.support": [
                "Invalid value maybe for configuration exactly.once.support: "
                "String must be one of (case insensitive): REQUESTED, REQUIRED"
            ],
            "transaction.boundary.interval.ms": [
                "Invalid value -1 for configuration transaction.boundary.interval.ms: Value must be at least 0"
            ],
            "offsets.storage.topic": [
                "Invalid value  for configuration offsets.storage.topic: String must be non-empty"
            ],
        }

    def test_topics_regex_must_compile(self) -> None:
        [regex] = [v for v in sink_connector_config_def().validate({"topics.regex": "a["}) if v.name == "topics.regex"]
        assert len(regex.error_messages) == 1
        assert regex.error_messages[0].startswith("Invalid value a[ for configuration topics.regex: Invalid regex: ")


class TestSinkTopicRules:
    def errors(self, props: dict[str, str | None]) -> dict[str, list[str]]:
        results: dict[str, ConfigValue] = {}
        validate_sink_topics(props, results)
        return {name: value.error_messages for name, value in results.items()}

    def test_one_of_topics_or_regex_is_required(self) -> None:
        message = "Must configure one of topics or topics.regex"
        assert self.errors({}) == {"topics": [message], "topics.regex": [message]}
        assert self.errors({"topics": " ", "topics.regex": ""}) == {"topics": [message], "topics.regex": [message]}

    def test_topics_and_regex_are_exclusive(self) -> None:
        message = "topics and topics.regex are mutually exclusive options, but both are set."
        assert self.errors({"topics": "a", "topics.regex": "a.*"}) == {"topics": [message], "topics.regex": [message]}

    def test_dlq_topic_may_not_be_consumed(self) -> None:
        assert self.errors({"topics": "a, dlq,a", "errors.deadletterqueue.topic.name": " dlq "}) == {
            "topics": [
                "The DLQ topic 'dlq' may not be included in the list of topics ('topics=[a, dlq]') consumed by the "
                "connector"
            ]
        }
        assert self.errors({"topics.regex": "d.*", "errors.deadletterqueue.topic.name": "dlq"}) == {
            "topics.regex": [
                "The DLQ topic 'dlq' may not be matched by the regex for the topics ('topics.regex=d.*') consumed by "
                "the connector"
            ]
        }

    def test_valid_sink_topics_have_no_errors(self) -> None:
        assert self.errors({"topics": "a,b", "errors.deadletterqueue.topic.name": "dlq"}) == {}
        assert self.errors({"topics.regex": "a.*", "errors.deadletterqueue.topic.name": "dlq"}) == {}
        assert self.errors({"topics.regex": "a[", "errors.deadletterqueue.topic.name": "dlq"}) == {}

    def test_existing_results_get_the_messages(self) -> None:
        results = {"topics": ConfigValue("topics", [], error_messages=["earlier"])}
        validate_sink_topics({}, results)
        assert results["topics"].error_messages == ["earlier", "Must configure one of topics or topics.regex"]


class TestConnectorSettings:
    def test_defaults(self) -> None:
        settings = ConnectorSettings.parse({"name": "src", "connector.class": "Datagen"}, ConnectorType.SOURCE)
        assert settings.name == "src"
        assert settings.connector_class == "Datagen"
        assert settings.connector_type is ConnectorType.SOURCE
        assert settings.tasks_max == 1
        assert (settings.key_converter, settings.value_converter, settings.header_converter) == (None, None, None)
        assert settings.transforms == () and settings.predicates == ()
        assert settings.errors.tolerance is ErrorTolerance.NONE
        assert settings.errors.retry_timeout_ms == 0
        assert settings.errors.retry_delay_max_ms == 60000
        assert settings.errors.dlq_topic is None
        assert settings.exactly_once_support is ExactlyOnceSupportLevel.REQUESTED
        assert settings.transaction_boundary is TransactionBoundary.POLL
        assert settings.transaction_boundary_interval_ms is None
        assert settings.offsets_storage_topic is None

    def test_typed_values(self) -> None:
        config = {
            "name": "src",
            "connector.class": "Datagen",
            "tasks.max": "4",
            "value.converter": "JsonConverter",
            "value.converter.schemas.enable": "false",
            "transforms": "route, mask",
            "errors.tolerance": "all",
            "errors.retry.timeout": "-1",
            "errors.log.enable": "TRUE",
            "exactly.once.support": "REQUIRED",
            "transaction.boundary": "Interval",
            "transaction.boundary.interval.ms": "500",
            "offsets.storage.topic": "my-offsets",
        }
        settings = ConnectorSettings.parse(config, ConnectorType.SOURCE)
        assert settings.tasks_max == 4
        assert settings.value_converter == "JsonConverter"
        assert settings.transforms == ("route", "mask")
        assert settings.errors.tolerance is ErrorTolerance.ALL
        assert settings.errors.retry_timeout_ms == -1
        assert settings.errors.log_enable is True
        assert settings.exactly_once_support is ExactlyOnceSupportLevel.REQUIRED
        assert settings.transaction_boundary is TransactionBoundary.INTERVAL
        assert settings.transaction_boundary_interval_ms == 500
        assert settings.offsets_storage_topic == "my-offsets"
        assert settings.with_prefix("value.converter.") == {"schemas.enable": "false"}
        assert settings.originals == config

    def test_sink_settings(self) -> None:
        config = {
            "name": "sink",
            "connector.class": "FileStreamSink",
            "topics": "a, b,a,",
            "errors.deadletterqueue.topic.name": "dlq",
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        }
        settings = ConnectorSettings.parse(config, ConnectorType.SINK)
        assert settings.topics == ("a", "b")
        assert settings.topics_regex is None
        assert settings.errors.dlq_topic == "dlq"
        assert settings.errors.dlq_replication_factor == 1
        assert settings.errors.dlq_context_headers_enable is True
        regex = ConnectorSettings.parse(
            {"name": "s", "connector.class": "X", "topics.regex": "t-.*"}, ConnectorType.SINK
        )
        assert regex.topics == () and regex.topics_regex == "t-.*"

    @pytest.mark.parametrize(
        ("config", "connector_type", "message"),
        [
            ({"connector.class": "X"}, ConnectorType.SOURCE, 'Missing required configuration "name"'),
            ({"name": "n", "connector.class": "X", "tasks.max": "0"}, ConnectorType.SOURCE, "Value must be at least 1"),
            ({"name": "n", "connector.class": "X"}, ConnectorType.SINK, "Must configure one of topics or topics.regex"),
            (
                {"name": "n", "connector.class": "X", "topics": "a", "errors.deadletterqueue.topic.name": "a"},
                ConnectorType.SINK,
                "The DLQ topic 'a' may not be included",
            ),
        ],
    )
    def test_invalid_configs_raise(self, config: dict[str, str], connector_type: ConnectorType, message: str) -> None:
        with pytest.raises(ConfigError) as info:
            ConnectorSettings.parse(config, connector_type)
        assert message in str(info.value)
