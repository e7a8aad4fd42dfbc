"""The framework's ConfigDefs for connectors: common, sink and source (Kafka's ConnectorConfig.configDef(),
SinkConnectorConfig.configDef() and SourceConnectorConfig.configDef()).

Names, types, defaults, importance, docs, groups and order follow Kafka 3.9/4.0, since REST clients and UIs
render them from the validate and plug-in config endpoints. Built on demand; pure data, any thread may call.
"""

from __future__ import annotations

import re
from typing import Any

from connect.api.config import (
    ConfigDef,
    ConfigType,
    Importance,
    Range,
    ValidString,
    Width,
    composite,
    invalid_value,
    non_empty_string,
    non_empty_string_without_control_chars,
    non_null,
)
from connect.runtime.config.connector.keys import (
    COMMON_GROUP,
    CONFIG_RELOAD_ACTION_CONFIG,
    CONNECTOR_CLASS_CONFIG,
    DLQ_CONTEXT_HEADERS_ENABLE_CONFIG,
    DLQ_TOPIC_NAME_CONFIG,
    DLQ_TOPIC_REPLICATION_FACTOR_CONFIG,
    ERROR_GROUP,
    ERRORS_LOG_ENABLE_CONFIG,
    ERRORS_LOG_INCLUDE_MESSAGES_CONFIG,
    ERRORS_RETRY_MAX_DELAY_CONFIG,
    ERRORS_RETRY_TIMEOUT_CONFIG,
    ERRORS_TOLERANCE_CONFIG,
    EXACTLY_ONCE_SUPPORT_CONFIG,
    EXACTLY_ONCE_SUPPORT_GROUP,
    HEADER_CONVERTER_CLASS_CONFIG,
    KEY_CONVERTER_CLASS_CONFIG,
    NAME_CONFIG,
    OFFSETS_TOPIC_CONFIG,
    OFFSETS_TOPIC_GROUP,
    PREDICATES_CONFIG,
    PREDICATES_GROUP,
    TASKS_MAX_CONFIG,
    TASKS_MAX_ENFORCE_CONFIG,
    TOPIC_CREATION_GROUP,
    TOPIC_CREATION_GROUPS_CONFIG,
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    TRANSACTION_BOUNDARY_CONFIG,
    TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
    TRANSFORMS_CONFIG,
    TRANSFORMS_GROUP,
    VALUE_CONVERTER_CLASS_CONFIG,
    ConfigReloadAction,
    ErrorTolerance,
    ExactlyOnceSupportLevel,
    TransactionBoundary,
)
from connect.runtime.domain.info import ConnectorType

_CONVERTER_DOC = (
    "Converter class used to convert between Kafka Connect format and the serialized form that is written to Kafka."
    " This controls the format of the {what} in messages written to or read from Kafka, and since this is"
    " independent of connectors it allows any connector to work with any serialization format."
    " Examples of common formats include JSON and Avro."
)
_HEADER_CONVERTER_DOC = (
    "HeaderConverter class used to convert between Kafka Connect format and the serialized form that is written to"
    " Kafka. This controls the format of the header values in messages written to or read from Kafka, and since this"
    " is independent of connectors it allows any connector to work with any serialization format. Examples of common"
    " formats include JSON and Avro. By default, the SimpleHeaderConverter is used to serialize header values to"
    " strings and deserialize them by inferring the schemas."
)
_TASKS_MAX_ENFORCE_DOC = (
    "(Deprecated) Whether to enforce that the tasks.max property is respected by the connector. By default,"
    " connectors that generate too many tasks will fail, and existing sets of tasks that exceed the tasks.max"
    " property will also be failed. If this property is set to false, then connectors will be allowed to generate"
    " more than the maximum number of tasks, and existing sets of tasks that exceed the tasks.max property will be"
    " allowed to run. This property is deprecated and will be removed in an upcoming major release."
)
_CONFIG_RELOAD_ACTION_DOC = (
    "The action that Connect should take on the connector when changes in external configuration providers result"
    " in a change in the connector's configuration properties. A value of 'none' indicates that Connect will do"
    " nothing. A value of 'restart' indicates that Connect should restart/reload the connector with the updated"
    " configuration properties.The restart may actually be scheduled in the future if the external configuration"
    " provider indicates that a configuration value will expire in the future."
)


def _unique_aliases(kind: str) -> Any:
    def check(name: str, value: Any) -> None:
        if value is not None and len(value) > len(set(value)):
            raise invalid_value(name, value, "Duplicate alias provided.")

    check.__doc__ = f"unique {kind} aliases"
    return composite(non_null, check)


def _valid_regex(name: str, value: Any) -> None:
    try:
        re.compile("" if value is None else str(value))
    except re.error as exc:
        raise invalid_value(name, value, f"Invalid regex: {exc}") from None


def _null_or_at_least_zero(name: str, value: Any) -> None:
    if value is not None:
        Range.at_least(0)(name, value)


def common_connector_config_def() -> ConfigDef:
    """The settings every connector has (Kafka's `ConnectorConfig.configDef()`)."""
    return (
        ConfigDef()
        .define(
            NAME_CONFIG,
            ConfigType.STRING,
            validator=non_empty_string_without_control_chars,
            importance=Importance.HIGH,
            documentation="Globally unique name to use for this connector.",
            group=COMMON_GROUP,
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Connector name",
        )
        .define(
            CONNECTOR_CLASS_CONFIG,
            ConfigType.STRING,
            importance=Importance.HIGH,
            documentation="Name or alias of the class for this connector. Must be a subclass of connect.api.Connector. "
            "If the connector is connectors.file.sink.FileStreamSinkConnector, you can either specify this full name, "
            ' or use "FileStreamSink" or "FileStreamSinkConnector" to make the configuration a bit shorter',
            group=COMMON_GROUP,
            order_in_group=2,
            width=Width.LONG,
            display_name="Connector class",
        )
        .define(
            TASKS_MAX_CONFIG,
            ConfigType.INT,
            1,
            Range.at_least(1),
            Importance.HIGH,
            "Maximum number of tasks to use for this connector.",
            group=COMMON_GROUP,
            order_in_group=3,
            width=Width.SHORT,
            display_name="Tasks max",
        )
        .define(
            TASKS_MAX_ENFORCE_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation=_TASKS_MAX_ENFORCE_DOC,
            group=COMMON_GROUP,
            order_in_group=4,
            width=Width.SHORT,
            display_name="Enforce tasks max",
        )
        .define(
            KEY_CONVERTER_CLASS_CONFIG,
            ConfigType.CLASS,
            None,
            importance=Importance.LOW,
            documentation=_CONVERTER_DOC.format(what="keys"),
            group=COMMON_GROUP,
            order_in_group=5,
            width=Width.SHORT,
            display_name="Key converter class",
        )
        .define(
            VALUE_CONVERTER_CLASS_CONFIG,
            ConfigType.CLASS,
            None,
            importance=Importance.LOW,
            documentation=_CONVERTER_DOC.format(what="values"),
            group=COMMON_GROUP,
            order_in_group=6,
            width=Width.SHORT,
            display_name="Value converter class",
        )
        .define(
            HEADER_CONVERTER_CLASS_CONFIG,
            ConfigType.CLASS,
            None,
            importance=Importance.LOW,
            documentation=_HEADER_CONVERTER_DOC,
            group=COMMON_GROUP,
            order_in_group=7,
            width=Width.SHORT,
            display_name="Header converter class",
        )
        .define(
            TRANSFORMS_CONFIG,
            ConfigType.LIST,
            [],
            _unique_aliases("transformation"),
            Importance.LOW,
            "Aliases for the transformations to be applied to records.",
            group=TRANSFORMS_GROUP,
            order_in_group=8,
            width=Width.LONG,
            display_name="Transforms",
        )
        .define(
            PREDICATES_CONFIG,
            ConfigType.LIST,
            [],
            _unique_aliases("predicate"),
            Importance.LOW,
            "Aliases for the predicates used by transformations.",
            group=PREDICATES_GROUP,
            order_in_group=9,
            width=Width.LONG,
            display_name="Predicates",
        )
        .define(
            CONFIG_RELOAD_ACTION_CONFIG,
            ConfigType.STRING,
            ConfigReloadAction.RESTART.value,
            ValidString.in_(*(a.value for a in ConfigReloadAction)),
            Importance.LOW,
            _CONFIG_RELOAD_ACTION_DOC,
            group=COMMON_GROUP,
            order_in_group=10,
            width=Width.MEDIUM,
            display_name="Reload Action",
        )
        .define(
            ERRORS_RETRY_TIMEOUT_CONFIG,
            ConfigType.LONG,
            0,
            importance=Importance.MEDIUM,
            documentation="The maximum duration in milliseconds that a failed operation will be reattempted. The "
            "default is 0, which means no retries will be attempted. Use -1 for infinite retries.",
            group=ERROR_GROUP,
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Retry Timeout for Errors",
        )
        .define(
            ERRORS_RETRY_MAX_DELAY_CONFIG,
            ConfigType.LONG,
            60000,
            importance=Importance.MEDIUM,
            documentation="The maximum duration in milliseconds between consecutive retry attempts. Jitter will be "
            "added to the delay once this limit is reached to prevent thundering herd issues.",
            group=ERROR_GROUP,
            order_in_group=2,
            width=Width.MEDIUM,
            display_name="Maximum Delay Between Retries for Errors",
        )
        .define(
            ERRORS_TOLERANCE_CONFIG,
            ConfigType.STRING,
            ErrorTolerance.NONE.value,
            ValidString.in_(*(t.value for t in ErrorTolerance)),
            Importance.MEDIUM,
            "Behavior for tolerating errors during connector operation. 'none' is the default value and signals that "
            "any error will result in an immediate connector task failure; 'all' changes the behavior to skip over "
            "problematic records.",
            group=ERROR_GROUP,
            order_in_group=3,
            width=Width.SHORT,
            display_name="Error Tolerance",
        )
        .define(
            ERRORS_LOG_ENABLE_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="If true, write each error and the details of the failed operation and problematic record "
            "to the Connect application log. This is 'false' by default, so that only errors that are not tolerated "
            "are reported.",
            group=ERROR_GROUP,
            order_in_group=4,
            width=Width.SHORT,
            display_name="Log Errors",
        )
        .define(
            ERRORS_LOG_INCLUDE_MESSAGES_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="Whether to include in the log the Connect record that resulted in a failure. For sink "
            "records, the topic, partition, offset, and timestamp will be logged. For source records, the key and "
            "value (and their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source "
            "partition, and source offset will be logged. This is 'false' by default, which will prevent record keys, "
            "values, and headers from being written to log files.",
            group=ERROR_GROUP,
            order_in_group=5,
            width=Width.SHORT,
            display_name="Log Error Details",
        )
    )


def sink_connector_config_def() -> ConfigDef:
    """The common settings plus the sink-only ones (Kafka's `SinkConnectorConfig.configDef()`)."""
    # Kafka numbers these literally (topics and topics.regex share 4, the DLQ keys are 6-8).
    return (
        common_connector_config_def()
        .define(
            TOPICS_CONFIG,
            ConfigType.LIST,
            "",
            importance=Importance.HIGH,
            documentation="List of topics to consume, separated by commas",
            group=COMMON_GROUP,
            order_in_group=4,
            width=Width.LONG,
            display_name="Topics",
        )
        .define(
            TOPICS_REGEX_CONFIG,
            ConfigType.STRING,
            "",
            _valid_regex,
            Importance.HIGH,
            "Regular expression giving topics to consume. Under the hood, the regex is compiled to a Python "
            "<code>re</code> pattern. Only one of topics or topics.regex should be specified.",
            group=COMMON_GROUP,
            order_in_group=4,
            width=Width.LONG,
            display_name="Topics regex",
        )
        .define(
            DLQ_TOPIC_NAME_CONFIG,
            ConfigType.STRING,
            "",
            importance=Importance.MEDIUM,
            documentation="The name of the topic to be used as the dead letter queue (DLQ) for messages that result "
            "in an error when processed by this sink connector, or its transformations or converters. The topic name "
            "is blank by default, which means that no messages are to be recorded in the DLQ.",
            group=ERROR_GROUP,
            order_in_group=6,
            width=Width.MEDIUM,
            display_name="Dead Letter Queue Topic Name",
        )
        .define(
            DLQ_TOPIC_REPLICATION_FACTOR_CONFIG,
            ConfigType.SHORT,
            3,
            importance=Importance.MEDIUM,
            documentation="Replication factor used to create the dead letter queue topic when it doesn't already "
            "exist.",
            group=ERROR_GROUP,
            order_in_group=7,
            width=Width.MEDIUM,
            display_name="Dead Letter Queue Topic Replication Factor",
        )
        .define(
            DLQ_CONTEXT_HEADERS_ENABLE_CONFIG,
            ConfigType.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            documentation="If true, add headers containing error context to the messages written to the dead letter "
            "queue. To avoid clashing with headers from the original record, all error context header keys, all "
            "error context header keys will start with <code>__connect.errors.</code>",
            group=ERROR_GROUP,
            order_in_group=8,
            width=Width.MEDIUM,
            display_name="Enable Error Context Headers",
        )
    )


def source_connector_config_def() -> ConfigDef:
    """The common settings plus the source-only ones (Kafka's `SourceConnectorConfig.configDef()`)."""
    return (
        common_connector_config_def()
        .define(
            TOPIC_CREATION_GROUPS_CONFIG,
            ConfigType.LIST,
            [],
            _unique_aliases("topic creation group"),
            Importance.LOW,
            "Groups of configurations for topics created by source connectors",
            group=TOPIC_CREATION_GROUP,
            order_in_group=1,
            width=Width.LONG,
            display_name="Topic Creation Groups",
        )
        .define(
            EXACTLY_ONCE_SUPPORT_CONFIG,
            ConfigType.STRING,
            ExactlyOnceSupportLevel.REQUESTED.value,
            ValidString.in_(*(s.value for s in ExactlyOnceSupportLevel), ignore_case=True),
            Importance.MEDIUM,
            'Permitted values are requested, required. If set to "required", forces a preflight check for the '
            "connector to ensure that it can provide exactly-once semantics with the given configuration. Some "
            "connectors may be capable of providing exactly-once semantics but not signal to Connect that they "
            "support this; in that case, documentation for the connector should be consulted carefully before "
            'creating it, and the value for this property should be set to "requested". Additionally, if the value '
            'is set to "required" but the worker that performs preflight validation does not have exactly-once '
            "support enabled for source connectors, requests to create or validate the connector will fail.",
            group=EXACTLY_ONCE_SUPPORT_GROUP,
            order_in_group=2,
            width=Width.SHORT,
            display_name="Exactly once support",
        )
        .define(
            TRANSACTION_BOUNDARY_CONFIG,
            ConfigType.STRING,
            TransactionBoundary.POLL.value,
            ValidString.in_(*(b.value for b in TransactionBoundary), ignore_case=True),
            Importance.MEDIUM,
            "Permitted values are: poll, interval, connector. If set to 'poll', a new producer transaction will be "
            "started and committed for every batch of records that each task from this connector provides to "
            "Connect. If set to 'connector', relies on connector-defined transaction boundaries; note that not all "
            "connectors are capable of defining their own transaction boundaries, and in that case, attempts to "
            "instantiate a connector with this value will fail. Finally, if set to 'interval', commits transactions "
            "only after a user-defined time interval has passed.",
            group=EXACTLY_ONCE_SUPPORT_GROUP,
            order_in_group=3,
            width=Width.SHORT,
            display_name="Transaction Boundary",
        )
        .define(
            TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
            ConfigType.LONG,
            None,
            _null_or_at_least_zero,
            Importance.LOW,
            "If 'transaction.boundary' is set to 'interval', determines the interval for producer transaction "
            "commits by connector tasks. If unset, defaults to the value of the worker-level "
            "'offset.flush.interval.ms' property. It has no effect if a different transaction.boundary is specified.",
            group=EXACTLY_ONCE_SUPPORT_GROUP,
            order_in_group=4,
            width=Width.SHORT,
            display_name="Transaction boundary interval",
        )
        .define(
            OFFSETS_TOPIC_CONFIG,
            ConfigType.STRING,
            None,
            non_empty_string,
            Importance.LOW,
            "The name of a separate offsets topic to use for this connector. If empty or not specified, the worker's "
            "global offsets topic name will be used. If specified, the offsets topic will be created if it does not "
            "already exist on the Kafka cluster targeted by this connector (which may be different from the one used "
            "for the worker's global offsets topic if the bootstrap.servers property of the connector's producer has "
            "been overridden from the worker's). Only applicable in distributed mode; in standalone mode, setting "
            "this property will have no effect.",
            group=OFFSETS_TOPIC_GROUP,
            order_in_group=1,
            width=Width.LONG,
            display_name="Offsets topic",
        )
    )


def connector_config_def(connector_type: ConnectorType) -> ConfigDef:
    """The framework definition for a connector of this type (UNKNOWN: the common settings only)."""
    if connector_type is ConnectorType.SOURCE:
        return source_connector_config_def()
    if connector_type is ConnectorType.SINK:
        return sink_connector_config_def()
    return common_connector_config_def()
