"""Remote topics made and kept like their source topics: what Java's `MirrorSourceConnector` does on its
schedule (discovery, `createNonCompactedTopics`, `syncTopicConfigs`), with the admin calls kept apart from
the decisions.

- Each refresh lists the source topics the flow mirrors and their partitions. A remote topic missing on the
  target is created with the source's partition count, `replication.factor`, and the source's configs that
  may follow it; a remote topic with fewer partitions grows. Nothing is ever deleted.
- Tasks are given only the partitions whose remote partition exists: a record sent to a missing remote topic
  would make a broker with `auto.create.topics.enable` create it with its own defaults (too few partitions:
  the task dies on "Unknown partition"). A topic Kafka refuses to create (say, a replication factor above
  its broker count) is logged and tried again at the next refresh, and the other topics are mirrored.
- The configs that follow a topic: those the source topic sets itself (with `use.defaults.from=source`, its
  defaults too), never read-only, sensitive, static broker configs, nor those `config.properties.exclude`
  names. Synced on an existing remote topic, a property the source leaves at its default is deleted on the
  target, so the target's default applies, unless defaults come from the source.

Thread rules: called from the connector's scheduler thread only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from connect.api.errors import ConnectError
from connect.mirror.filters import ConfigPropertyFilter
from connect.mirror.replication_policy import ReplicationPolicy
from connect.runtime.kafka import KafkaAdmin, TopicConfigEntry, TopicSpec

log = logging.getLogger(__name__)

TopicPartitionKey = tuple[str, int]


def _syncable(entry: TopicConfigEntry, properties: ConfigPropertyFilter) -> bool:
    return not (entry.is_read_only or entry.is_sensitive or entry.is_static_broker_config) and (
        properties.should_replicate(entry.name)
    )


def configs_for_new_topic(entries: list[TopicConfigEntry], properties: ConfigPropertyFilter) -> dict[str, str]:
    """The source topic's configs a new remote topic is created with."""
    return {
        e.name: e.value
        for e in entries
        if e.value is not None
        and _syncable(e, properties)
        and (not e.is_default or properties.should_replicate_source_default(e.name))
    }


def config_changes(entries: list[TopicConfigEntry], properties: ConfigPropertyFilter) -> dict[str, str | None]:
    """What to set (a value) or delete (None) on an existing remote topic to follow its source topic."""
    changes: dict[str, str | None] = {}
    for entry in entries:
        if not _syncable(entry, properties):
            continue
        if entry.is_default and not properties.should_replicate_source_default(entry.name):
            changes[entry.name] = None
        elif entry.value is not None:
            changes[entry.name] = entry.value
    return changes


@dataclass
class RemoteTopics:
    """One flow's view of its source topics and their remote copies."""

    source: KafkaAdmin
    target: KafkaAdmin
    policy: ReplicationPolicy
    source_alias: str
    should_replicate: Callable[[str], bool]
    properties: ConfigPropertyFilter
    replication_factor: int
    timeout_s: float

    def source_partitions(self) -> list[TopicPartitionKey]:
        """The partitions the flow mirrors, by topic then partition."""
        counts = self.source.partition_counts(self.timeout_s)
        return [(t, p) for t in sorted(counts) if self.should_replicate(t) for p in range(counts[t])]

    def _remote_counts(self) -> dict[str, int]:
        checkpoints = self.policy.checkpoints_topic(self.source_alias)
        return {
            topic: count
            for topic, count in self.target.partition_counts(self.timeout_s).items()
            if self.policy.topic_source(topic) == self.source_alias and topic != checkpoints
        }

    def create_missing(self, partitions: list[TopicPartitionKey]) -> list[TopicPartitionKey]:
        """Create missing remote topics and grow remote topics with too few partitions; returns those of
        `partitions` whose remote partition exists now, in their order."""
        try:
            self._create_or_grow(partitions)
        except ConnectError as exc:
            log.error("Could not create or grow every remote topic (the others are mirrored; tried again): %s", exc)
        counts = self._remote_counts()
        return [
            (t, p) for t, p in partitions if counts.get(self.policy.format_remote_topic(self.source_alias, t), 0) > p
        ]

    def _create_or_grow(self, partitions: list[TopicPartitionKey]) -> None:
        wanted: dict[str, int] = {}
        for topic, partition in partitions:
            wanted[topic] = max(wanted.get(topic, 0), partition + 1)
        remote_counts = self._remote_counts()
        missing = [t for t in wanted if self.policy.format_remote_topic(self.source_alias, t) not in remote_counts]
        configs = self.source.topic_configs(missing, self.timeout_s) if missing else {}
        specs = [
            TopicSpec(
                self.policy.format_remote_topic(self.source_alias, topic),
                wanted[topic],
                self.replication_factor,
                configs_for_new_topic(configs.get(topic, []), self.properties),
            )
            for topic in missing
        ]
        for created in sorted(self.target.create_topics(specs, self.timeout_s)):
            log.info("Created remote topic %s", created)
        grow = {
            remote: wanted[topic]
            for topic in wanted
            if (remote := self.policy.format_remote_topic(self.source_alias, topic)) in remote_counts
            and remote_counts[remote] < wanted[topic]
        }
        if grow:
            self.target.create_partitions(grow, self.timeout_s)
            log.info("Added partitions to remote topics: %s", grow)

    def sync_configs(self, topics: list[str]) -> None:
        """Make the existing remote topics' configs follow their source topics'."""
        remote_counts = self._remote_counts()
        present = [t for t in topics if self.policy.format_remote_topic(self.source_alias, t) in remote_counts]
        described = self.source.topic_configs(present, self.timeout_s)
        changes: Mapping[str, Mapping[str, str | None]] = {
            self.policy.format_remote_topic(self.source_alias, topic): config_changes(entries, self.properties)
            for topic, entries in described.items()
        }
        self.target.alter_topic_configs(changes, self.timeout_s)
