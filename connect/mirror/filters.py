"""Which topics, consumer groups and topic config properties a flow mirrors (Java's `DefaultTopicFilter`,
`DefaultGroupFilter`, `DefaultConfigPropertyFilter`).

Each LIST key is split on commas (items trimmed), its items joined into one regex and matched against the
whole name (Java's `Pattern.matches`): `topics=orders.*` takes `orders-eu`, not `eu-orders`. An exclude
match wins over an include match. An empty list matches nothing, so `topics=` mirrors no topic and
`topics.exclude=` excludes none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from connect.api.errors import ConfigError

TOPICS_CONFIG = "topics"
TOPICS_EXCLUDE_CONFIG = "topics.exclude"
GROUPS_CONFIG = "groups"
GROUPS_EXCLUDE_CONFIG = "groups.exclude"
CONFIG_PROPERTIES_EXCLUDE_CONFIG = "config.properties.exclude"
USE_DEFAULTS_FROM_CONFIG = "use.defaults.from"

TOPICS_DEFAULT = ".*"
# Kafka 4.0's default (KIP-1074): a user's own `*.internal` topics are mirrored, MirrorMaker's are not.
TOPICS_EXCLUDE_DEFAULT = r"mm2.*\.internal, .*\.replica, __.*"
GROUPS_DEFAULT = ".*"
GROUPS_EXCLUDE_DEFAULT = "console-consumer-.*, connect-.*, __.*"
# Kafka 4.3's list: broker-side and replication-specific properties that must not follow a topic across.
CONFIG_PROPERTIES_EXCLUDE_DEFAULT = (
    "follower.replication.throttled.replicas, leader.replication.throttled.replicas, "
    "message.timestamp.difference.max.ms, log.message.timestamp.before.max.ms, "
    "log.message.timestamp.after.max.ms, message.timestamp.type, unclean.leader.election.enable, "
    "min.insync.replicas"
)


def list_items(value: str) -> list[str]:
    """A Kafka LIST value's items: split on commas, trimmed; an empty value is an empty list."""
    return [item.strip() for item in value.split(",")] if value.strip() else []


def compile_pattern_list(value: str, key: str) -> re.Pattern[str] | None:
    """One regex over every item of the LIST `value` (None for an empty list, which matches nothing).

    Java regexes and Python's agree on what MirrorMaker's users write (classes, `.*`, alternation,
    escapes); a pattern Python cannot compile is a ConfigError naming `key`."""
    items = list_items(value)
    if not items:
        return None
    try:
        return re.compile("|".join(items))
    except re.error as exc:
        raise ConfigError(f"{key}: {value!r} is not a valid regular expression: {exc}") from exc


def _matches(pattern: re.Pattern[str] | None, name: str) -> bool:
    return pattern is not None and pattern.fullmatch(name) is not None


@dataclass(frozen=True)
class IncludeExcludeFilter:
    include: re.Pattern[str] | None
    exclude: re.Pattern[str] | None

    def accepts(self, name: str) -> bool:
        return _matches(self.include, name) and not _matches(self.exclude, name)


def topic_filter(configs: Mapping[str, str]) -> IncludeExcludeFilter:
    """`topics` minus `topics.exclude` (Java's `DefaultTopicFilter`)."""
    return IncludeExcludeFilter(
        compile_pattern_list(configs.get(TOPICS_CONFIG, TOPICS_DEFAULT), TOPICS_CONFIG),
        compile_pattern_list(configs.get(TOPICS_EXCLUDE_CONFIG, TOPICS_EXCLUDE_DEFAULT), TOPICS_EXCLUDE_CONFIG),
    )


def group_filter(configs: Mapping[str, str]) -> IncludeExcludeFilter:
    """`groups` minus `groups.exclude` (Java's `DefaultGroupFilter`)."""
    return IncludeExcludeFilter(
        compile_pattern_list(configs.get(GROUPS_CONFIG, GROUPS_DEFAULT), GROUPS_CONFIG),
        compile_pattern_list(configs.get(GROUPS_EXCLUDE_CONFIG, GROUPS_EXCLUDE_DEFAULT), GROUPS_EXCLUDE_CONFIG),
    )


@dataclass(frozen=True)
class ConfigPropertyFilter:
    """Which topic config properties are synced to the remote topic (Java's `DefaultConfigPropertyFilter`).

    A property the source topic leaves at its default is synced only with `use.defaults.from=source`;
    otherwise (the default, `target`) the remote topic keeps the target cluster's default."""

    exclude: re.Pattern[str] | None
    use_defaults_from_source: bool

    def should_replicate(self, name: str) -> bool:
        return not _matches(self.exclude, name)

    def should_replicate_source_default(self, name: str) -> bool:
        return self.use_defaults_from_source and self.should_replicate(name)


def config_property_filter(configs: Mapping[str, str]) -> ConfigPropertyFilter:
    use_defaults_from = configs.get(USE_DEFAULTS_FROM_CONFIG, "target").strip().lower()
    if use_defaults_from not in ("source", "target"):
        raise ConfigError(f"{USE_DEFAULTS_FROM_CONFIG}: {use_defaults_from!r} is neither source nor target")
    exclude = configs.get(CONFIG_PROPERTIES_EXCLUDE_CONFIG, CONFIG_PROPERTIES_EXCLUDE_DEFAULT)
    return ConfigPropertyFilter(
        compile_pattern_list(exclude, CONFIG_PROPERTIES_EXCLUDE_CONFIG), use_defaults_from == "source"
    )
