"""Debezium's names for topics and schemas, so consumers and their configs find everything where Debezium
puts it (`io.debezium.schema.SchemaTopicNamingStrategy`, Debezium's default).

A table's changes go to `<topic.prefix>.<schema>.<table>` (`AbstractTopicNamingStrategy.sanitizedTopicName`:
characters Kafka does not allow become `_`, and the name is cut at 249 characters); its key and row schemas
are named after that topic (`<topic>.Key`, `<topic>.Value`), the envelope `<topic>.Envelope`. The heartbeat
and transaction topics are joined from their parts as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_NAME_LENGTH = 249
_NOT_IN_TOPIC_NAMES = re.compile(r"[^A-Za-z0-9._-]")
HEARTBEAT_TOPIC_PREFIX = "__debezium-heartbeat"
TOPIC_DELIMITER = "."


def sanitized_topic(name: str) -> str:
    """`name` as Kafka accepts it: every other character `_`, at most 249 characters, never `.` or `..`."""
    sanitized = _NOT_IN_TOPIC_NAMES.sub("_", name)[:MAX_NAME_LENGTH]
    return "_" * len(sanitized) if sanitized in (".", "..") else sanitized


@dataclass(frozen=True)
class TopicNaming:
    """Topic names of one connector (its `topic.prefix`), with Debezium's defaults for the others."""

    prefix: str
    delimiter: str = TOPIC_DELIMITER
    heartbeat_prefix: str = HEARTBEAT_TOPIC_PREFIX
    heartbeat_name: str = ""  # `topic.heartbeat.name`: the heartbeat topic's whole name, when set
    transaction_suffix: str = "transaction"

    def data_topic(self, schema: str, table: str) -> str:
        parts = [part for part in (self.prefix, schema, table) if part.strip()]
        return sanitized_topic(self.delimiter.join(parts))

    @property
    def heartbeat_topic(self) -> str:
        return self.heartbeat_name or self.delimiter.join((self.heartbeat_prefix, self.prefix))

    @property
    def message_topic(self) -> str:
        """Logical decoding messages: `<topic.prefix>.message` (`LogicalDecodingMessageMonitor`)."""
        return self.prefix + ".message"

    @property
    def transaction_topic(self) -> str:
        return self.delimiter.join((self.prefix, self.transaction_suffix))


def key_schema_name(topic: str) -> str:
    return f"{topic}.Key"


def value_schema_name(topic: str) -> str:
    return f"{topic}.Value"


def envelope_schema_name(topic: str) -> str:
    return f"{topic}.Envelope"
