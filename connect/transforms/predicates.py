"""Kafka's built-in predicates: TopicNameMatches, HasHeaderKey, RecordIsTombstone."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connect.api.config import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    Importance,
    composite,
    invalid_value,
    non_empty_string,
)
from connect.api.transform import R
from connect.transforms.base import BuiltinPredicate
from connect.transforms.util import compile_java_regex


def _valid_regex(name: str, value: Any) -> None:
    try:
        compile_java_regex(str(value))
    except re.error as exc:
        raise invalid_value(name, value, f"entry must be a valid regular expression: {exc}") from None


def topic_name_matches_config_def() -> ConfigDef:
    return ConfigDef().define(
        "pattern",
        ConfigType.STRING,
        NO_DEFAULT,
        composite(non_empty_string, _valid_regex),
        Importance.MEDIUM,
        "A Java regular expression for matching against the name of a record's topic.",
    )


class TopicNameMatches(BuiltinPredicate[R]):
    """True for records whose topic name matches the `pattern` regex as a whole."""

    def config(self) -> ConfigDef:
        return topic_name_matches_config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.pattern = compile_java_regex(topic_name_matches_config_def().parse(configs)["pattern"])

    def test(self, record: R) -> bool:
        return self.pattern.fullmatch(record.topic) is not None


def has_header_key_config_def() -> ConfigDef:
    return ConfigDef().define(
        "name", ConfigType.STRING, NO_DEFAULT, non_empty_string, Importance.MEDIUM, "The header name."
    )


class HasHeaderKey(BuiltinPredicate[R]):
    """True for records with at least one header named `name`."""

    def config(self) -> ConfigDef:
        return has_header_key_config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.name: str = has_header_key_config_def().parse(configs)["name"]

    def test(self, record: R) -> bool:
        return any(h.key == self.name for h in record.headers)


class RecordIsTombstone(BuiltinPredicate[R]):
    """True for tombstones: records whose value is null."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def test(self, record: R) -> bool:
        return record.value is None
