"""RegexRouter and TimestampRouter: rewrite a record's topic."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connect.api.config import NO_DEFAULT, ConfigDef, ConfigType, Importance, invalid_value
from connect.api.errors import DataError
from connect.api.transform import R
from connect.converters.logical import millis_to_timestamp
from connect.transforms.base import BuiltinTransformation
from connect.transforms.java_date_format import JavaDateFormat
from connect.transforms.util import compile_java_regex, java_replacement


def _valid_regex(name: str, value: Any) -> None:
    try:
        compile_java_regex(str(value))
    except re.error as exc:
        raise invalid_value(name, value, f"Invalid regex: {exc}") from None


def regex_router_config_def() -> ConfigDef:
    return (
        ConfigDef()
        .define(
            "regex",
            ConfigType.STRING,
            NO_DEFAULT,
            _valid_regex,
            Importance.HIGH,
            "Regular expression to use for matching.",
        )
        .define("replacement", ConfigType.STRING, NO_DEFAULT, None, Importance.HIGH, "Replacement string.")
    )


class RegexRouter(BuiltinTransformation[R]):
    """Update the record topic using the configured regular expression and replacement string.

    The topic must match the regex as a whole; `$1`/`${name}` in the replacement refer to its groups.
    """

    def config(self) -> ConfigDef:
        return regex_router_config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = regex_router_config_def().parse(configs)
        self.regex = compile_java_regex(values["regex"])
        self.replacement = java_replacement(values["replacement"])

    def apply(self, record: R) -> R | None:
        if not self.regex.fullmatch(record.topic):
            return record
        return record.with_(topic=self.regex.sub(self.replacement, record.topic, count=1))


def _valid_date_format(name: str, value: Any) -> None:
    try:
        JavaDateFormat(str(value))
    except Exception as exc:
        raise invalid_value(name, value, str(exc)) from None


def timestamp_router_config_def() -> ConfigDef:
    return (
        ConfigDef()
        .define(
            "topic.format",
            ConfigType.STRING,
            "${topic}-${timestamp}",
            None,
            Importance.HIGH,
            "Format string which can contain <code>${topic}</code> and <code>${timestamp}</code> as placeholders "
            "for the topic and timestamp, respectively.",
        )
        .define(
            "timestamp.format",
            ConfigType.STRING,
            "yyyyMMdd",
            _valid_date_format,
            Importance.HIGH,
            "Format string for the timestamp that is compatible with <code>java.text.SimpleDateFormat</code>.",
        )
    )


class TimestampRouter(BuiltinTransformation[R]):
    """Update the record's topic field as a function of the original topic value and the record timestamp (UTC)."""

    def config(self) -> ConfigDef:
        return timestamp_router_config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = timestamp_router_config_def().parse(configs)
        self.topic_format: str = values["topic.format"]
        self.timestamp_format = JavaDateFormat(values["timestamp.format"])

    def apply(self, record: R) -> R | None:
        if record.timestamp is None:
            raise DataError(f"Timestamp missing on record: {record}")
        formatted = self.timestamp_format.format(millis_to_timestamp(record.timestamp))
        topic = self.topic_format.replace("${topic}", record.topic).replace("${timestamp}", formatted)
        return record.with_(topic=topic)
