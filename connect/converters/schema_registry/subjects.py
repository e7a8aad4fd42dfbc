"""Subject name strategies, Confluent's `io.confluent.kafka.serializers.subject.*`: under which subject a
schema is registered and looked up. Pure functions, any thread."""

from __future__ import annotations

import enum

from connect.api.errors import ConfigError

_PACKAGE = "io.confluent.kafka.serializers.subject."


class SubjectNameStrategy(enum.Enum):
    TOPIC = "TopicNameStrategy"
    RECORD = "RecordNameStrategy"
    TOPIC_RECORD = "TopicRecordNameStrategy"

    @classmethod
    def named(cls, config_key: str, name: str) -> SubjectNameStrategy:
        """The strategy a config value names: Confluent's class name or its simple name."""
        simple = name.strip().removeprefix(_PACKAGE)
        for strategy in cls:
            if strategy.value == simple:
                return strategy
        known = ", ".join(_PACKAGE + s.value for s in cls)
        raise ConfigError(f"Invalid value {name} for configuration {config_key}: not one of {known}")

    def subject(self, topic: str, is_key: bool, record_name: str) -> str:
        """The subject for a schema whose full name (a record's; else its type) is `record_name`."""
        if self is SubjectNameStrategy.TOPIC:
            return f"{topic}-key" if is_key else f"{topic}-value"
        if self is SubjectNameStrategy.RECORD:
            return record_name
        return f"{topic}-{record_name}"
