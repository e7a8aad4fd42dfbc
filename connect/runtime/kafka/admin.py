"""`KafkaAdmin`, the admin operations the runtime and the herders need (topics, end offsets, consumer
group offsets). End offsets go through `end_offsets`, which it shares with `kafka_log`.

Every call blocks its caller (a herder, REST or task thread) until it is answered or times out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TypeVar

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaError, KafkaException, TopicCollection
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    ResourceType,
)

from connect.api.errors import ConnectError, RetriableError
from connect.api.records import TopicPartition
from connect.runtime.kafka.errors import connect_error, describe, error_code
from connect.runtime.kafka.offset_lookup import end_offsets

log = logging.getLogger(__name__)

T = TypeVar("T")

_REFUSALS = frozenset(
    {
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.CLUSTER_AUTHORIZATION_FAILED,
        KafkaError.UNSUPPORTED_VERSION,
    }
)


@dataclass(frozen=True)
class TopicConfigEntry:
    """One config entry of a topic as the broker describes it."""

    name: str
    value: str | None
    is_default: bool
    is_read_only: bool
    is_sensitive: bool
    is_static_broker_config: bool


@dataclass(frozen=True)
class TopicSpec:
    """A topic to create; -1 means the broker's default (num.partitions, default.replication.factor)."""

    name: str
    partitions: int = -1
    replication_factor: int = -1
    config: Mapping[str, str] = field(default_factory=dict)


def admin_result(future: Future[T], timeout: float, what: str) -> T:
    """`future.result(timeout)`, its timeout as a RetriableError naming the call (not a bare TimeoutError)."""
    try:
        return future.result(timeout=timeout)
    except TimeoutError as exc:
        raise RetriableError(f"{what}: timed out after {timeout:.1f} s") from exc


class KafkaAdmin:
    """The admin operations the runtime and the herders need, as blocking calls with timeouts."""

    def __init__(self, admin: AdminClient) -> None:
        self._admin = admin

    def cluster_id(self, timeout: float = 10.0) -> str | None:
        what = "Could not describe the Kafka cluster"
        try:
            cluster = admin_result(self._admin.describe_cluster(request_timeout=timeout), timeout, what)
        except KafkaException as exc:
            raise connect_error(exc, what) from exc
        return str(cluster.cluster_id) if cluster.cluster_id else None

    def broker_count(self, timeout: float = 10.0) -> int:
        try:
            return len(self._admin.list_topics(timeout=timeout).brokers)
        except KafkaException as exc:
            raise connect_error(exc, "Could not list brokers") from exc

    def partition_count(self, topic: str, timeout: float = 10.0) -> int | None:
        """The number of partitions of `topic`, or None if it does not exist.

        Described rather than listed by name: a metadata request naming a topic makes a broker with
        `auto.create.topics.enable=true` (Kafka's default) create it."""
        what = f"Could not describe topic {topic}"
        try:
            future = self._admin.describe_topics(TopicCollection([topic]), request_timeout=timeout)[topic]
            description = admin_result(future, timeout, what)
        except KafkaException as exc:
            if error_code(exc) in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC):
                return None
            raise connect_error(exc, what) from exc
        return len(description.partitions)

    def create_topics(
        self, topics: Iterable[TopicSpec], timeout: float = 30.0, *, refusals_tolerated: bool = False
    ) -> set[str]:
        """Create the topics that do not exist; returns the names created by this call.

        `refusals_tolerated`: a topic Kafka refuses for want of rights or of support is skipped with a warning
        (MirrorMaker's internal topics, which an operator may have created for it, as Java's MirrorUtils does)."""
        specs = [NewTopic(t.name, t.partitions, t.replication_factor, config=dict(t.config)) for t in topics]
        if not specs:
            return set()
        futures = self._admin.create_topics(specs, operation_timeout=timeout, request_timeout=timeout)
        created: set[str] = set()
        for name, future in futures.items():
            try:
                admin_result(future, timeout, f"Could not create topic {name}")
                created.add(name)
            except KafkaException as exc:
                code = error_code(exc)
                if code == KafkaError.TOPIC_ALREADY_EXISTS:
                    continue
                if refusals_tolerated and code in _REFUSALS:
                    log.warning("Could not create topic %s, continuing as if it exists: %s", name, describe(exc))
                    continue
                raise connect_error(exc, f"Could not create topic {name}") from exc
        return created

    def partition_counts(self, timeout: float = 10.0) -> dict[str, int]:
        """Every topic the cluster lets this client see, with its number of partitions."""
        try:
            metadata = self._admin.list_topics(timeout=timeout)
        except KafkaException as exc:
            raise connect_error(exc, "Could not list topics") from exc
        return {name: len(topic.partitions) for name, topic in metadata.topics.items() if topic.error is None}

    def create_partitions(self, counts: Mapping[str, int], timeout: float = 30.0) -> None:
        """Grow each topic to its new partition count; a topic already that large is left alone."""
        if not counts:
            return
        requests = [NewPartitions(topic, count) for topic, count in counts.items()]
        futures = self._admin.create_partitions(requests, operation_timeout=timeout, request_timeout=timeout)
        for topic, future in futures.items():
            try:
                admin_result(future, timeout, f"Could not add partitions to {topic}")
            except KafkaException as exc:
                if error_code(exc) != KafkaError.INVALID_PARTITIONS:
                    raise connect_error(exc, f"Could not add partitions to {topic}") from exc

    def topic_configs(self, topics: Iterable[str], timeout: float = 30.0) -> dict[str, list[TopicConfigEntry]]:
        """Each topic's config entries as the broker describes them (value, where it comes from, flags)."""
        resources = [ConfigResource(ResourceType.TOPIC, topic) for topic in topics]
        if not resources:
            return {}
        described: dict[str, list[TopicConfigEntry]] = {}
        for resource, future in self._admin.describe_configs(resources, request_timeout=timeout).items():
            what = f"Could not describe the configs of topic {resource.name}"
            try:
                entries = admin_result(future, timeout, what)
            except KafkaException as exc:
                if error_code(exc) in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC):
                    continue
                raise connect_error(exc, what) from exc
            described[resource.name] = [
                TopicConfigEntry(
                    entry.name,
                    entry.value,
                    entry.source == ConfigSource.DEFAULT_CONFIG,
                    entry.is_read_only,
                    entry.is_sensitive,
                    entry.source == ConfigSource.STATIC_BROKER_CONFIG,
                )
                for entry in entries.values()
            ]
        return described

    def alter_topic_configs(self, changes: Mapping[str, Mapping[str, str | None]], timeout: float = 30.0) -> None:
        """Incremental config changes per topic: a value is set, None deletes the topic's own value (its
        default applies again)."""
        resources = []
        for topic, entries in changes.items():
            operations = [
                ConfigEntry(
                    name,
                    value,
                    incremental_operation=AlterConfigOpType.DELETE if value is None else AlterConfigOpType.SET,
                )
                for name, value in entries.items()
            ]
            if operations:
                resources.append(ConfigResource(ResourceType.TOPIC, topic, incremental_configs=operations))
        if not resources:
            return
        futures = self._admin.incremental_alter_configs(resources, request_timeout=timeout)
        for resource, future in futures.items():
            what = f"Could not alter the configs of topic {resource.name}"
            try:
                admin_result(future, timeout, what)
            except KafkaException as exc:
                raise connect_error(exc, what) from exc

    def end_offsets(self, partitions: Iterable[TopicPartition], timeout: float = 10.0) -> dict[TopicPartition, int]:
        """The log end offsets; retried within `timeout` while leaders move (`offset_lookup.end_offsets`)."""
        keys = [(tp.topic, tp.partition) for tp in partitions]
        if not keys:
            return {}
        found = end_offsets(self._admin, keys, "Could not list end offsets", time.monotonic() + timeout)
        return {TopicPartition(topic, partition): offset for (topic, partition), offset in found.items()}

    def consumer_group_offsets(self, group: str, timeout: float = 10.0) -> dict[TopicPartition, int]:
        """The committed offsets of `group` (partitions without a committed offset left out)."""
        committed = self.committed_offsets(group, timeout)
        return {TopicPartition(topic, partition): offset for (topic, partition), (offset, _) in committed.items()}

    def consumer_group_ids(self, timeout: float = 30.0) -> list[str]:
        """Every consumer group of the cluster (with members or only committed offsets)."""
        what = "Could not list the consumer groups"
        try:
            listed = admin_result(self._admin.list_consumer_groups(request_timeout=timeout), timeout, what)
        except KafkaException as exc:
            raise connect_error(exc, what) from exc
        return sorted(str(group.group_id) for group in listed.valid)

    def consumer_group_states(self, groups: Iterable[str], timeout: float = 30.0) -> dict[str, str]:
        """Each group's state as Kafka names it (`EMPTY`, `STABLE`, `DEAD` for a group that does not exist...)."""
        wanted = list(groups)
        if not wanted:
            return {}
        states: dict[str, str] = {}
        for group, future in self._admin.describe_consumer_groups(wanted, request_timeout=timeout).items():
            what = f"Could not describe consumer group {group}"
            try:
                states[group] = str(admin_result(future, timeout, what).state.name)
            except KafkaException as exc:
                raise connect_error(exc, what) from exc
        return states

    def committed_offsets(self, group: str, timeout: float = 10.0) -> dict[tuple[str, int], tuple[int, str]]:
        """`group`'s committed offsets with their metadata, by (topic, partition)."""
        what = f"Could not list the offsets of consumer group {group}"
        try:
            future = self._admin.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group)], request_timeout=timeout
            )[group]
            listed = admin_result(future, timeout, what)
        except KafkaException as exc:
            if error_code(exc) == KafkaError.GROUP_ID_NOT_FOUND:
                return {}
            raise connect_error(exc, what) from exc
        return {
            (str(tp.topic), int(tp.partition)): (int(tp.offset), str(tp.metadata or ""))
            for tp in listed.topic_partitions or ()
            if tp.offset >= 0
        }

    def alter_consumer_group_offsets(
        self,
        group: str,
        offsets: Mapping[TopicPartition, int],
        timeout: float = 10.0,
        *,
        metadata: Mapping[TopicPartition, str] | None = None,
    ) -> None:
        """Set committed offsets (with their commit metadata, if given); Kafka accepts this only while the group
        has no active members."""
        if not offsets:
            return
        notes = metadata or {}
        request = [
            KafkaTopicPartition(tp.topic, tp.partition, offset, metadata=notes[tp])
            if tp in notes
            else KafkaTopicPartition(tp.topic, tp.partition, offset)
            for tp, offset in offsets.items()
        ]
        what = f"Could not alter the offsets of consumer group {group}"
        try:
            future = self._admin.alter_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group, request)], request_timeout=timeout
            )[group]
            result = admin_result(future, timeout, what)
        except KafkaException as exc:
            raise connect_error(exc, what) from exc
        failed = [f"{tp.topic}-{tp.partition}: {tp.error.str()}" for tp in result.topic_partitions or () if tp.error]
        if failed:
            raise ConnectError(f"Could not alter the offsets of consumer group {group}: " + ", ".join(failed))

    def delete_consumer_group(self, group: str, timeout: float = 10.0) -> bool:
        """Delete the group (and so all its committed offsets); False if there was none."""
        what = f"Could not delete consumer group {group}"
        try:
            admin_result(self._admin.delete_consumer_groups([group], request_timeout=timeout)[group], timeout, what)
        except KafkaException as exc:
            if error_code(exc) == KafkaError.GROUP_ID_NOT_FOUND:
                return False
            raise connect_error(exc, what) from exc
        return True

    def close(self) -> None:
        # AdminClient has no close in confluent_kafka; its resources go with the object.
        self._admin = None  # type: ignore[assignment]
