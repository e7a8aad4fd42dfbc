"""`TopicCreation`: creates the topics a source task produces to, as Kafka Connect's source tasks do (KIP-158).

Used when the worker allows it (`topic.creation.enable`, default true) and the connector config asks for it (any
`topic.creation.*` key; rules in `connector_config.topic_creation_rules`). The task runner calls `create_if_absent`
on its own thread before the first record it sends to a topic, once per topic: the topic is described (which,
unlike a metadata request, never makes a broker auto-create it) and, if absent, created with the settings of
the first group that matches it. "Already exists" means another task or worker got there first, which is fine.

Errors: Kafka not answering in time is retried with a back-off (`ensure_exists`; Kafka Connect retries the
rest of the batch) until the task is asked to stop (`TopicCreationInterrupted`); anything else is a
`TopicCreationError` (not authorized, an invalid topic config, more replicas than brokers: the task fails,
as in Kafka).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Protocol

from connect.api.errors import ConnectError, RetriableError
from connect.runtime.config.connector import TopicCreationGroup, TopicCreationRules
from connect.runtime.kafka import TopicSpec

log = logging.getLogger(__name__)

# Back-off between attempts while Kafka does not answer in time: doubles from the first to the last.
RETRY_BACKOFF_S = 0.1
RETRY_BACKOFF_MAX_S = 5.0


class TopicAdmin(Protocol):
    """What topic creation needs of `KafkaAdmin`."""

    def partition_count(self, topic: str, timeout: float = ...) -> int | None: ...

    def create_topics(self, topics: Iterable[TopicSpec], timeout: float = ...) -> set[str]: ...

    def close(self) -> None: ...


class TopicCreationError(ConnectError):
    """A topic the task needs could not be created; retrying will not help (the task fails)."""


class TopicCreationInterrupted(Exception):
    """The task was asked to stop while Kafka did not answer: the batch is abandoned, the task stops (not a
    failure)."""


def topic_spec(group: TopicCreationGroup, topic: str) -> TopicSpec:
    """The new topic `topic` with `group`'s settings."""
    return TopicSpec(topic, group.partitions, group.replication_factor, dict(group.topic_configs))


class TopicCreation:
    """One source task's topic creation: the connector's rules and an admin client of its own."""

    def __init__(self, rules: TopicCreationRules, admin: TopicAdmin) -> None:
        self.rules = rules
        self._admin = admin

    def create_if_absent(self, topic: str) -> bool:
        """Make sure `topic` exists; True if this call created it.

        RetriableError: Kafka did not answer in time, call again. TopicCreationError: it cannot be created.
        """
        try:
            if self._admin.partition_count(topic) is not None:
                log.info("Topic '%s' already exists", topic)
                return False
            group = self.rules.group_for(topic)
            spec = topic_spec(group, topic)
            log.info("Creating topic '%s' with the settings of topic creation group '%s': %s", topic, group.name, spec)
            created = topic in self._admin.create_topics([spec])
        except RetriableError:
            raise
        except ConnectError as exc:
            raise TopicCreationError(
                f"Task failed to create new topic {topic}: {exc}. Ensure that the task is authorized to create "
                "topics or that the topic exists and restart the task"
            ) from exc
        if created:
            log.info("Created topic '%s' using creation group '%s'", topic, group.name)
        else:
            log.info("Found existing topic '%s': another task created it first", topic)
        return created

    def ensure_exists(self, topic: str, *, stopping: Callable[[], bool], wait: Callable[[float], None]) -> None:
        """`create_if_absent`, again after `wait(back-off)` while Kafka does not answer in time, until it is done
        or `stopping()` (then TopicCreationInterrupted). TopicCreationError if it cannot be created."""
        delay = RETRY_BACKOFF_S
        while True:
            try:
                self.create_if_absent(topic)
                return
            except RetriableError as exc:
                if stopping():
                    raise TopicCreationInterrupted(f"topic {topic} was not created: {exc}") from exc
                log.warning("Could not find or create topic %s yet, retrying in %.1f s: %s", topic, delay, exc)
                wait(delay)
                delay = min(delay * 2, RETRY_BACKOFF_MAX_S)

    def close(self) -> None:
        self._admin.close()
