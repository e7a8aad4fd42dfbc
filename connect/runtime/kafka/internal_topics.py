"""The internal topics of a distributed worker (config, offsets, status, and kconnect's own): created
compacted if missing, else verified, before any `KafkaLog` reads them (Kafka's `TopicAdmin`, as
`KafkaBasedLog` users call it). On the caller's thread, at start.

An existing topic that is not compact-only, or has another partition count than asked, is a
ConfigError that names the topic, what is wrong and how to fix it. The admin client is an internal
one: it connects with the worker's top-level connection settings (`KafkaClients.internal_config`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

from connect.api.errors import ConfigError, ConnectError
from connect.runtime.kafka.admin import TopicSpec, admin_result
from connect.runtime.kafka.client_logging import with_logging
from connect.runtime.kafka.errors import connect_error
from connect.runtime.kafka.factory import KafkaClients

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class InternalTopicSpec:
    """An internal topic: compacted, `partitions` exactly (-1: broker default, not verified).

    `setting` is the worker key that names it (e.g. `config.storage.topic`), quoted in errors.
    """

    name: str
    partitions: int
    replication_factor: int = -1
    setting: str = ""
    config: Mapping[str, str] = field(default_factory=dict)


def ensure_internal_topics(
    clients: KafkaClients, specs: Sequence[InternalTopicSpec | TopicSpec], timeout: float = 30.0
) -> set[str]:
    """Create the missing topics (compacted) and verify every one; returns the names created.

    Raises ConfigError naming the topic, what is wrong and how to fix it when an existing topic is not
    compact-only or has another partition count than asked.
    """
    topics = [s if isinstance(s, InternalTopicSpec) else InternalTopicSpec(**_fields(s)) for s in specs]
    reported: list[KafkaError] = []
    settings = with_logging(log, clients.internal_config("admin", "kconnect-internal-topics"), reported.append)
    admin = AdminClient(settings)
    try:
        created = _create_missing(admin, topics, timeout)
    except ConnectError as exc:
        # Client errors are only delivered by poll(): they say why the cluster could not be reached (a wrong
        # SASL password, an untrusted broker certificate), which "Broker transport failure" does not.
        admin.poll(0)
        if not reported:
            raise
        raise type(exc)(f"{exc}. The Kafka client reported: {reported[-1].str()}") from exc
    for topic in topics:
        _verify(admin, topic, timeout)
    return created


def _fields(spec: TopicSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "partitions": spec.partitions,
        "replication_factor": spec.replication_factor,
        "config": spec.config,
    }


def _describe(topic: InternalTopicSpec) -> str:
    return f"Topic '{topic.name}'" + (f" ({topic.setting})" if topic.setting else "")


def _create_missing(admin: AdminClient, topics: Sequence[InternalTopicSpec], timeout: float) -> set[str]:
    try:
        existing = set(admin.list_topics(timeout=timeout).topics)
    except KafkaException as exc:
        raise connect_error(exc, "Could not list the Kafka cluster's topics") from exc
    missing = [t for t in topics if t.name not in existing]
    if not missing:
        return set()
    requests = [
        NewTopic(t.name, t.partitions, t.replication_factor, config={**t.config, "cleanup.policy": "compact"})
        for t in missing
    ]
    futures = admin.create_topics(requests, operation_timeout=timeout, request_timeout=timeout)
    created: set[str] = set()
    for topic in missing:
        try:
            admin_result(futures[topic.name], timeout, f"Could not create {_describe(topic)}")
            created.add(topic.name)
            log.info("Created internal topic %s (%d partitions, compacted)", topic.name, topic.partitions)
        except KafkaException as exc:
            error = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
            if error is not None and error.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                continue  # another worker created it first: verified below like any existing topic
            if error is not None and error.code() == KafkaError.INVALID_REPLICATION_FACTOR:
                setting = topic.setting.removesuffix(".topic") + ".replication.factor" if topic.setting else "its"
                raise ConfigError(
                    f"{_describe(topic)} could not be created with replication factor {topic.replication_factor}: "
                    f"{error.str()} ({_registered_brokers(admin, timeout)}). If brokers are still starting, this "
                    f"passes once they have registered; otherwise set {setting} to at most the number of brokers, "
                    "or -1 for the broker's default."
                ) from exc
            raise connect_error(exc, f"Could not create {_describe(topic)}") from exc
    return created


def _registered_brokers(admin: AdminClient, timeout: float) -> str:
    """How many brokers the cluster has registered now, for an error message (best effort)."""
    try:
        return f"{len(admin.list_topics(timeout=timeout).brokers)} broker(s) registered now"
    except KafkaException:
        return "the number of brokers registered now is unknown"


def _verify(admin: AdminClient, topic: InternalTopicSpec, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:  # a topic created a moment ago may not be described by every broker yet
        try:
            metadata = admin.list_topics(timeout=timeout).topics.get(topic.name)
            resource = ConfigResource(ResourceType.TOPIC, topic.name)
            future = admin.describe_configs([resource], request_timeout=timeout)[resource]
            configs = admin_result(future, timeout, f"Could not describe {_describe(topic)}")
            # Right after creation the metadata may still carry an error (e.g. leader not available) and no
            # partitions: that is not yet an answer about the partition count, so ask again until the deadline.
            if (
                metadata is not None and metadata.error is None and metadata.partitions
            ) or time.monotonic() >= deadline:
                break
        except KafkaException as exc:
            if time.monotonic() >= deadline:
                raise connect_error(exc, f"Could not describe {_describe(topic)}") from exc
        time.sleep(0.2)
    partitions = len(metadata.partitions) if metadata is not None and metadata.error is None else 0
    if topic.partitions > 0 and partitions != topic.partitions:
        hint = (
            f"set {topic.setting.removesuffix('.topic')}.partitions={partitions} to use it as it is, or "
            if topic.setting and topic.setting != "config.storage.topic"
            else ""
        )
        raise ConfigError(
            f"{_describe(topic)} has {partitions} partitions, but kconnect needs exactly {topic.partitions}. "
            f"Fix: {hint}point {topic.setting or 'the setting'} at a new topic name (kconnect creates it), "
            "or delete the topic and let kconnect recreate it."
        )
    entry = configs.get("cleanup.policy")
    policy = str(entry.value) if entry is not None and entry.value is not None else "delete"
    if [p.strip() for p in policy.split(",")] != ["compact"]:
        raise ConfigError(
            f"{_describe(topic)} has cleanup.policy={policy}, but kconnect needs cleanup.policy=compact: it keeps "
            "the latest record of every key forever, which deletion by age or size would lose. Fix: "
            f"kafka-configs.sh --bootstrap-server <brokers> --alter --entity-type topics --entity-name {topic.name} "
            f"--add-config cleanup.policy=compact, or point {topic.setting or 'the setting'} at a new topic name."
        )
