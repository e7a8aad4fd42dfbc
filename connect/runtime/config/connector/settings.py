"""`ConnectorSettings`: a connector config parsed against the framework definition, typed for the worker.

Also the sink topic rules (exactly one of topics/topics.regex, DLQ topic not consumed), shared by parsing
and by the validate endpoint. Pure functions and frozen values; any thread may call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from connect.api.config import ConfigValue
from connect.api.errors import ConfigError
from connect.runtime.config.connector.definitions import connector_config_def
from connect.runtime.config.connector.keys import (
    CONFIG_RELOAD_ACTION_CONFIG,
    CONNECTOR_CLASS_CONFIG,
    DLQ_CONTEXT_HEADERS_ENABLE_CONFIG,
    DLQ_TOPIC_NAME_CONFIG,
    DLQ_TOPIC_REPLICATION_FACTOR_CONFIG,
    ERRORS_LOG_ENABLE_CONFIG,
    ERRORS_LOG_INCLUDE_MESSAGES_CONFIG,
    ERRORS_RETRY_MAX_DELAY_CONFIG,
    ERRORS_RETRY_TIMEOUT_CONFIG,
    ERRORS_TOLERANCE_CONFIG,
    EXACTLY_ONCE_SUPPORT_CONFIG,
    HEADER_CONVERTER_CLASS_CONFIG,
    KEY_CONVERTER_CLASS_CONFIG,
    NAME_CONFIG,
    OFFSETS_TOPIC_CONFIG,
    PREDICATES_CONFIG,
    TASKS_MAX_CONFIG,
    TASKS_MAX_ENFORCE_CONFIG,
    TOPIC_CREATION_GROUPS_CONFIG,
    TOPICS_CONFIG,
    TOPICS_REGEX_CONFIG,
    TRANSACTION_BOUNDARY_CONFIG,
    TRANSACTION_BOUNDARY_INTERVAL_CONFIG,
    TRANSFORMS_CONFIG,
    VALUE_CONVERTER_CLASS_CONFIG,
    ConfigReloadAction,
    ErrorTolerance,
    ExactlyOnceSupportLevel,
    TransactionBoundary,
)
from connect.runtime.domain.info import ConnectorType


def _is_blank(value: str | None) -> bool:
    return value is None or not value.strip()


def sink_topics(config: Mapping[str, str | None]) -> list[str]:
    """The `topics` list as a sink consumes it: blanks dropped, duplicates removed, order kept."""
    raw = (config.get(TOPICS_CONFIG) or "").strip()
    return list(dict.fromkeys(t for t in re.split(r"\s*,\s*", raw) if t)) if raw else []


def validate_sink_topics(config: Mapping[str, str | None], results: dict[str, ConfigValue]) -> None:
    """Kafka's SinkConnectorConfig.validate: exactly one of topics/topics.regex, and the DLQ topic not consumed.

    Adds error messages to `results` (by key name), creating entries that are missing.
    """
    topics = config.get(TOPICS_CONFIG)
    regex = config.get(TOPICS_REGEX_CONFIG)
    dlq_topic = (config.get(DLQ_TOPIC_NAME_CONFIG) or "").strip()
    has_topics, has_regex = not _is_blank(topics), not _is_blank(regex)

    def add(name: str, value: str | None, message: str) -> None:
        results.setdefault(name, ConfigValue(name, value)).error_messages.append(message)

    if has_topics and has_regex:
        message = f"{TOPICS_CONFIG} and {TOPICS_REGEX_CONFIG} are mutually exclusive options, but both are set."
        add(TOPICS_CONFIG, topics, message)
        add(TOPICS_REGEX_CONFIG, regex, message)
    if not has_topics and not has_regex:
        message = f"Must configure one of {TOPICS_CONFIG} or {TOPICS_REGEX_CONFIG}"
        add(TOPICS_CONFIG, topics, message)
        add(TOPICS_REGEX_CONFIG, regex, message)
    if not dlq_topic:
        return
    if has_topics:
        listed = sink_topics(config)
        if dlq_topic in listed:
            add(
                TOPICS_CONFIG,
                topics,
                f"The DLQ topic '{dlq_topic}' may not be included in the list of topics "
                f"('{TOPICS_CONFIG}=[{', '.join(listed)}]') consumed by the connector",
            )
    if has_regex:
        try:
            matches = re.fullmatch((regex or "").strip(), dlq_topic) is not None
        except re.error:
            matches = False  # already reported by the topics.regex validator
        if matches:
            add(
                TOPICS_REGEX_CONFIG,
                regex,
                f"The DLQ topic '{dlq_topic}' may not be matched by the regex for the topics "
                f"('{TOPICS_REGEX_CONFIG}={regex}') consumed by the connector",
            )


@dataclass(frozen=True)
class ErrorHandlingSettings:
    """`errors.*`: how the task runners treat failed records (DLQ keys apply to sinks only)."""

    tolerance: ErrorTolerance = ErrorTolerance.NONE
    retry_timeout_ms: int = 0
    retry_delay_max_ms: int = 60000
    log_enable: bool = False
    log_include_messages: bool = False
    dlq_topic: str | None = None
    dlq_replication_factor: int = 3
    dlq_context_headers_enable: bool = False


@dataclass(frozen=True)
class ConnectorSettings:
    """A connector config parsed against the framework definition for its type; what the worker runs by.

    Keys that are not framework settings (the connector's own, `transforms.<alias>.*`, converter and client
    override prefixes) stay readable through `originals` and `with_prefix`.
    """

    name: str
    connector_class: str
    connector_type: ConnectorType
    tasks_max: int = 1
    tasks_max_enforce: bool = True
    key_converter: str | None = None
    value_converter: str | None = None
    header_converter: str | None = None
    transforms: tuple[str, ...] = ()
    predicates: tuple[str, ...] = ()
    config_action_reload: ConfigReloadAction = ConfigReloadAction.RESTART
    errors: ErrorHandlingSettings = field(default_factory=ErrorHandlingSettings)
    topics: tuple[str, ...] = ()
    topics_regex: str | None = None
    topic_creation_groups: tuple[str, ...] = ()
    exactly_once_support: ExactlyOnceSupportLevel = ExactlyOnceSupportLevel.REQUESTED
    transaction_boundary: TransactionBoundary = TransactionBoundary.POLL
    transaction_boundary_interval_ms: int | None = None
    offsets_storage_topic: str | None = None
    originals: Mapping[str, str] = field(default_factory=dict, hash=False)

    @staticmethod
    def parse(config: Mapping[str, str], connector_type: ConnectorType) -> ConnectorSettings:
        """Parse `config` with the framework definition for `connector_type`; ConfigError on the first problem.

        Sink configs must also name exactly one of topics/topics.regex and not consume their own DLQ topic.
        """
        values = connector_config_def(connector_type).parse(config)
        if connector_type is ConnectorType.SINK:
            problems: dict[str, ConfigValue] = {}
            validate_sink_topics(config, problems)
            for problem in problems.values():
                raise ConfigError(problem.error_messages[0])
        errors = ErrorHandlingSettings(
            tolerance=ErrorTolerance(values[ERRORS_TOLERANCE_CONFIG]),
            retry_timeout_ms=values[ERRORS_RETRY_TIMEOUT_CONFIG],
            retry_delay_max_ms=values[ERRORS_RETRY_MAX_DELAY_CONFIG],
            log_enable=values[ERRORS_LOG_ENABLE_CONFIG],
            log_include_messages=values[ERRORS_LOG_INCLUDE_MESSAGES_CONFIG],
            dlq_topic=values.get(DLQ_TOPIC_NAME_CONFIG) or None,
            dlq_replication_factor=values.get(DLQ_TOPIC_REPLICATION_FACTOR_CONFIG, 3),
            dlq_context_headers_enable=values.get(DLQ_CONTEXT_HEADERS_ENABLE_CONFIG, False),
        )
        return ConnectorSettings(
            name=values[NAME_CONFIG],
            connector_class=values[CONNECTOR_CLASS_CONFIG],
            connector_type=connector_type,
            tasks_max=values[TASKS_MAX_CONFIG],
            tasks_max_enforce=values[TASKS_MAX_ENFORCE_CONFIG],
            key_converter=values[KEY_CONVERTER_CLASS_CONFIG],
            value_converter=values[VALUE_CONVERTER_CLASS_CONFIG],
            header_converter=values[HEADER_CONVERTER_CLASS_CONFIG],
            transforms=tuple(values[TRANSFORMS_CONFIG]),
            predicates=tuple(values[PREDICATES_CONFIG]),
            config_action_reload=ConfigReloadAction(values[CONFIG_RELOAD_ACTION_CONFIG]),
            errors=errors,
            topics=tuple(sink_topics(config)) if connector_type is ConnectorType.SINK else (),
            topics_regex=values.get(TOPICS_REGEX_CONFIG) or None,
            topic_creation_groups=tuple(values.get(TOPIC_CREATION_GROUPS_CONFIG, ())),
            exactly_once_support=ExactlyOnceSupportLevel(
                values.get(EXACTLY_ONCE_SUPPORT_CONFIG, ExactlyOnceSupportLevel.REQUESTED.value).lower()
            ),
            transaction_boundary=TransactionBoundary(
                values.get(TRANSACTION_BOUNDARY_CONFIG, TransactionBoundary.POLL.value).lower()
            ),
            transaction_boundary_interval_ms=values.get(TRANSACTION_BOUNDARY_INTERVAL_CONFIG),
            offsets_storage_topic=values.get(OFFSETS_TOPIC_CONFIG),
            originals=dict(config),
        )

    def with_prefix(self, prefix: str) -> dict[str, str]:
        """The original entries under `prefix`, prefix removed (e.g. `value.converter.` → converter configs)."""
        return {k[len(prefix) :]: v for k, v in self.originals.items() if k.startswith(prefix)}
