"""The names of the framework's connector settings, their groups, and the enumerated values they take.

Kafka Connect's names exactly (ConnectorConfig, SinkConnectorConfig, SourceConnectorConfig): users write them.
"""

from __future__ import annotations

import enum

COMMON_GROUP = "Common"
TRANSFORMS_GROUP = "Transforms"
PREDICATES_GROUP = "Predicates"
ERROR_GROUP = "Error Handling"
TOPIC_CREATION_GROUP = "Topic Creation"
EXACTLY_ONCE_SUPPORT_GROUP = "Exactly Once Support"
OFFSETS_TOPIC_GROUP = "offsets.topic"

NAME_CONFIG = "name"
CONNECTOR_CLASS_CONFIG = "connector.class"
TASKS_MAX_CONFIG = "tasks.max"
TASKS_MAX_ENFORCE_CONFIG = "tasks.max.enforce"
KEY_CONVERTER_CLASS_CONFIG = "key.converter"
VALUE_CONVERTER_CLASS_CONFIG = "value.converter"
HEADER_CONVERTER_CLASS_CONFIG = "header.converter"
TRANSFORMS_CONFIG = "transforms"
PREDICATES_CONFIG = "predicates"
CONFIG_RELOAD_ACTION_CONFIG = "config.action.reload"
ERRORS_RETRY_TIMEOUT_CONFIG = "errors.retry.timeout"
ERRORS_RETRY_MAX_DELAY_CONFIG = "errors.retry.delay.max.ms"
ERRORS_TOLERANCE_CONFIG = "errors.tolerance"
ERRORS_LOG_ENABLE_CONFIG = "errors.log.enable"
ERRORS_LOG_INCLUDE_MESSAGES_CONFIG = "errors.log.include.messages"

TOPICS_CONFIG = "topics"
TOPICS_REGEX_CONFIG = "topics.regex"
DLQ_TOPIC_NAME_CONFIG = "errors.deadletterqueue.topic.name"
DLQ_TOPIC_REPLICATION_FACTOR_CONFIG = "errors.deadletterqueue.topic.replication.factor"
DLQ_CONTEXT_HEADERS_ENABLE_CONFIG = "errors.deadletterqueue.context.headers.enable"

TOPIC_CREATION_PREFIX = "topic.creation."
TOPIC_CREATION_GROUPS_CONFIG = "topic.creation.groups"
EXACTLY_ONCE_SUPPORT_CONFIG = "exactly.once.support"
TRANSACTION_BOUNDARY_CONFIG = "transaction.boundary"
TRANSACTION_BOUNDARY_INTERVAL_CONFIG = "transaction.boundary.interval.ms"
OFFSETS_TOPIC_CONFIG = "offsets.storage.topic"

PRODUCER_OVERRIDES_PREFIX = "producer.override."
CONSUMER_OVERRIDES_PREFIX = "consumer.override."
ADMIN_OVERRIDES_PREFIX = "admin.override."


class ErrorTolerance(enum.Enum):
    NONE = "none"
    ALL = "all"


class ExactlyOnceSupportLevel(enum.Enum):
    REQUESTED = "requested"
    REQUIRED = "required"


class TransactionBoundary(enum.Enum):
    POLL = "poll"
    INTERVAL = "interval"
    CONNECTOR = "connector"


class ConfigReloadAction(enum.Enum):
    NONE = "none"
    RESTART = "restart"
