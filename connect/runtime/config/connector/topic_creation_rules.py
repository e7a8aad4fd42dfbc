"""Source connectors' topic creation settings (KIP-158): Kafka's `TopicCreationConfig` and the topic creation part
of `SourceConnectorConfig`, parsed into `TopicCreationRules`.

    topic.creation.groups=compacted
    topic.creation.default.replication.factor=3       # required once any topic.creation.* key is set
    topic.creation.default.partitions=6               # required too; -1 means the broker's default
    topic.creation.compacted.include=.*-state, status-.*
    topic.creation.compacted.exclude=status-old
    topic.creation.compacted.partitions=1             # unset: the default group's
    topic.creation.compacted.cleanup.policy=compact   # any other key is a topic config

A topic takes the settings of the first listed group that includes it and does not exclude it (regular
expressions matching the whole name), else those of `default`, which includes everything; its own include and
exclude keys are ignored, as Kafka ignores them. kconnect's one addition: a listed group needs an include pattern
(Kafka accepts a group without one, which then matches no topic).

`topic_creation_config_def(config)` defines the keys `config` uses, for the validate endpoint; Kafka's validate
shows none of them, but reports nothing wrong either and fails the connector once it runs, so kconnect reports
them up front (groups `Topic Creation: <group>`; error texts name the full key). `topic_creation_rules(config)`
parses them for the worker. Pure functions and frozen values; any thread may call.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connect.api.config import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    Importance,
    Validator,
    Width,
    invalid_value,
    non_null,
    parse_value,
)
from connect.api.errors import ConfigError
from connect.runtime.config.connector.keys import (
    TOPIC_CREATION_GROUP,
    TOPIC_CREATION_GROUPS_CONFIG,
    TOPIC_CREATION_PREFIX,
)

log = logging.getLogger(__name__)

DEFAULT_TOPIC_CREATION_GROUP = "default"
DEFAULT_TOPIC_CREATION_PREFIX = f"{TOPIC_CREATION_PREFIX}{DEFAULT_TOPIC_CREATION_GROUP}."
INCLUDE_REGEX_CONFIG = "include"
EXCLUDE_REGEX_CONFIG = "exclude"
REPLICATION_FACTOR_CONFIG = "replication.factor"
PARTITIONS_CONFIG = "partitions"
USE_BROKER_DEFAULT = -1
_GROUP_KEYS = frozenset({INCLUDE_REGEX_CONFIG, EXCLUDE_REGEX_CONFIG, REPLICATION_FACTOR_CONFIG, PARTITIONS_CONFIG})

_INCLUDE_DOC = (
    "A list of regular expression literals used to match the topic names used by the source connector. This list "
    "is used to include topics that should be created using the topic settings defined by this group."
)
_EXCLUDE_DOC = (
    "A list of regular expression literals used to match the topic names used by the source connector. This list "
    "is used to exclude topics from being created with the topic settings defined by this group. Note that "
    "exclusion rules have precedent and override any inclusion rules for the topics."
)
_REPLICATION_FACTOR_DOC = (
    "The replication factor for new topics created for this connector using this group. This value may be -1 to "
    "use the broker's default replication factor, or may be a positive number not larger than the number of "
    "brokers in the Kafka cluster. A value larger than the number of brokers in the Kafka cluster will result in an "
    "error when the new topic is created. For the default group this configuration is required. For any other "
    "group defined in topic.creation.groups this config is optional and if it's missing it gets the value of the "
    "default group"
)
_PARTITIONS_DOC = (
    "The number of partitions new topics created for this connector. This value may be -1 to use the broker's "
    "default number of partitions, or a positive number representing the desired number of partitions. For the "
    "default group this configuration is required. For any other group defined in topic.creation.groups this "
    "config is optional and if it's missing it gets the value of the default group"
)


def uses_topic_creation(config: Mapping[str, Any]) -> bool:
    """Whether a source connector config asks for topic creation: any `topic.creation.` key (Kafka's rule)."""
    return any(key.startswith(TOPIC_CREATION_PREFIX) for key in config)


def topic_creation_group_names(config: Mapping[str, Any]) -> list[str]:
    """The groups `topic.creation.groups` lists, in order, once each, without `default` (always there); [] if the
    value does not parse (the framework definition reports that)."""
    try:
        listed = parse_value(TOPIC_CREATION_GROUPS_CONFIG, ConfigType.LIST, config.get(TOPIC_CREATION_GROUPS_CONFIG))
    except ConfigError:
        return []
    names = list(dict.fromkeys(name for name in listed or () if name))
    if DEFAULT_TOPIC_CREATION_GROUP in names:
        log.warning(
            "'%s' topic creation group always exists and does not need to be listed explicitly",
            DEFAULT_TOPIC_CREATION_GROUP,
        )
        names.remove(DEFAULT_TOPIC_CREATION_GROUP)
    return names


def _minus_one_or_positive(reason: str) -> Validator:
    def check(name: str, value: Any) -> None:
        # None: a group's unset value while the default group's is itself missing or invalid (reported there).
        if value is not None and value != USE_BROKER_DEFAULT and value < 1:
            raise invalid_value(name, value, reason)

    return check


def _regex_list(group: str) -> Validator:
    def check(name: str, value: Any) -> None:
        non_null(name, value)
        if not value:
            raise invalid_value(
                name, value, f"Topic creation group '{group}' needs at least one regular expression to include topics"
            )
        _compile_all(name, value)

    return check


def _optional_regex_list(name: str, value: Any) -> None:
    non_null(name, value)
    _compile_all(name, value)


def _compile_all(name: str, patterns: list[str]) -> None:
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise invalid_value(name, patterns, f"Syntax error in regular expression: {exc}") from None


def _define_sizes(d: ConfigDef, group: str, replication_factor: Any, partitions: Any) -> ConfigDef:
    prefix = f"{TOPIC_CREATION_PREFIX}{group}."
    config_group = f"{TOPIC_CREATION_GROUP}: {group}"
    return d.define(
        prefix + REPLICATION_FACTOR_CONFIG,
        ConfigType.SHORT,
        replication_factor,
        _minus_one_or_positive(
            "Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, "
            "or -1 to use the broker's default"
        ),
        Importance.LOW,
        _REPLICATION_FACTOR_DOC,
        group=config_group,
        order_in_group=3,
        width=Width.LONG,
        display_name=f"Replication Factor for Topics in {group}",
    ).define(
        prefix + PARTITIONS_CONFIG,
        ConfigType.INT,
        partitions,
        _minus_one_or_positive("Number of partitions must be positive, or -1 to use the broker's default"),
        Importance.LOW,
        _PARTITIONS_DOC,
        group=config_group,
        order_in_group=4,
        width=Width.LONG,
        display_name=f"Partition Count for Topics in {group}",
    )


def default_group_config_def() -> ConfigDef:
    """The default group's settings: replication factor and partitions, both required."""
    return _define_sizes(ConfigDef(), DEFAULT_TOPIC_CREATION_GROUP, NO_DEFAULT, NO_DEFAULT)


def _group_config_def(d: ConfigDef, group: str, replication_factor: int | None, partitions: int | None) -> ConfigDef:
    prefix = f"{TOPIC_CREATION_PREFIX}{group}."
    config_group = f"{TOPIC_CREATION_GROUP}: {group}"
    d.define(
        prefix + INCLUDE_REGEX_CONFIG,
        ConfigType.LIST,
        NO_DEFAULT,  # kconnect's rule; Kafka's default is [], which matches no topic
        _regex_list(group),
        Importance.LOW,
        _INCLUDE_DOC,
        group=config_group,
        order_in_group=1,
        width=Width.LONG,
        display_name=f"Inclusion Topic Pattern for {group}",
    ).define(
        prefix + EXCLUDE_REGEX_CONFIG,
        ConfigType.LIST,
        [],
        _optional_regex_list,
        Importance.LOW,
        _EXCLUDE_DOC,
        group=config_group,
        order_in_group=2,
        width=Width.LONG,
        display_name=f"Exclusion Topic Pattern for {group}",
    )
    return _define_sizes(d, group, replication_factor, partitions)


def _default_sizes(config: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """The default group's replication factor and partitions, None where missing or invalid."""
    sizes: list[int | None] = []
    for name, key in default_group_config_def().keys.items():
        try:
            value = parse_value(name, key.type, config.get(name))
            if key.validator is not None:
                key.validator(name, value)
            sizes.append(value)
        except ConfigError:
            sizes.append(None)
    return sizes[0], sizes[1]


def topic_creation_config_def(config: Mapping[str, Any]) -> ConfigDef:
    """The topic creation keys a source connector config defines: the default group's, then each listed group's
    (whose sizes default to the default group's). Empty if the config does not use topic creation."""
    if not uses_topic_creation(config):
        return ConfigDef()
    return _config_def(config, topic_creation_group_names(config))


def _config_def(config: Mapping[str, Any], groups: list[str]) -> ConfigDef:
    d = default_group_config_def()
    replication_factor, partitions = _default_sizes(config)
    for group in groups:
        _group_config_def(d, group, replication_factor, partitions)
    return d


@dataclass(frozen=True)
class TopicCreationGroup:
    """A group's settings for the topics it matches: include unless excluded (whole-name regex matches)."""

    name: str
    replication_factor: int
    partitions: int
    include: tuple[str, ...] = (".*",)
    exclude: tuple[str, ...] = ()
    topic_configs: Mapping[str, str] = field(default_factory=dict, hash=False)
    _included: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _excluded: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # One alternation per list; fullmatch, as Java's Matcher.matches.
        object.__setattr__(self, "_included", _alternation(self.include))
        object.__setattr__(self, "_excluded", _alternation(self.exclude) if self.exclude else None)

    def matches(self, topic: str) -> bool:
        excluded = self._excluded is not None and self._excluded.fullmatch(topic) is not None
        return not excluded and self._included.fullmatch(topic) is not None


def _alternation(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else re.compile("(?!)")


@dataclass(frozen=True)
class TopicCreationRules:
    """The listed groups in order, then `default`: which settings a new topic gets."""

    default: TopicCreationGroup
    groups: tuple[TopicCreationGroup, ...] = ()

    def group_for(self, topic: str) -> TopicCreationGroup:
        for group in self.groups:
            if group.matches(topic):
                return group
        return self.default


def _topic_configs(config: Mapping[str, str], group: str) -> dict[str, str]:
    prefix = f"{TOPIC_CREATION_PREFIX}{group}."
    return {
        key[len(prefix) :]: value
        for key, value in config.items()
        if key.startswith(prefix) and key[len(prefix) :] not in _GROUP_KEYS
    }


def topic_creation_rules(config: Mapping[str, str]) -> TopicCreationRules:
    """The groups of a config that uses topic creation; ConfigError on the first invalid or missing setting."""
    ignored = [DEFAULT_TOPIC_CREATION_PREFIX + key for key in (INCLUDE_REGEX_CONFIG, EXCLUDE_REGEX_CONFIG)]
    if any(key in config for key in ignored):
        log.warning("Ignoring %s: the default topic creation group matches every topic", " and ".join(ignored))
    names = topic_creation_group_names(config)
    values = _config_def(config, names).parse(config)

    def sizes(group: str) -> tuple[int, int]:
        prefix = f"{TOPIC_CREATION_PREFIX}{group}."
        return int(values[prefix + REPLICATION_FACTOR_CONFIG]), int(values[prefix + PARTITIONS_CONFIG])

    replication_factor, partitions = sizes(DEFAULT_TOPIC_CREATION_GROUP)
    default = TopicCreationGroup(
        DEFAULT_TOPIC_CREATION_GROUP,
        replication_factor,
        partitions,
        topic_configs=_topic_configs(config, DEFAULT_TOPIC_CREATION_GROUP),
    )
    groups = []
    for name in names:
        prefix = f"{TOPIC_CREATION_PREFIX}{name}."
        replication_factor, partitions = sizes(name)
        groups.append(
            TopicCreationGroup(
                name,
                replication_factor,
                partitions,
                include=tuple(values[prefix + INCLUDE_REGEX_CONFIG]),
                exclude=tuple(values[prefix + EXCLUDE_REGEX_CONFIG]),
                topic_configs=_topic_configs(config, name),
            )
        )
    return TopicCreationRules(default, tuple(groups))
