"""Remote topics are created before tasks write to them: a task is given a partition only once its remote
partition exists, and a topic Kafka refuses does not keep the others from being mirrored."""

from __future__ import annotations

from typing import Any

from connect.api.errors import ConnectError
from connect.mirror.filters import config_property_filter
from connect.mirror.remote_topics import RemoteTopics
from connect.mirror.replication_policy import DefaultReplicationPolicy
from connect.runtime.kafka import TopicSpec


class FakeAdmin:
    """A cluster's topics and partition counts; `refuse` names topics whose creation Kafka refuses."""

    def __init__(self, counts: dict[str, int], refuse: frozenset[str] = frozenset()) -> None:
        self.counts = dict(counts)
        self.refuse = refuse

    def partition_counts(self, timeout: float = 10.0) -> dict[str, int]:
        return dict(self.counts)

    def topic_configs(self, topics: list[str], timeout: float = 10.0) -> dict[str, list[Any]]:
        return {topic: [] for topic in topics}

    def create_topics(self, specs: list[TopicSpec], timeout: float = 30.0) -> set[str]:
        # As Kafka: every topic of the request is created or refused on its own; the first refusal raises.
        created = {s.name for s in specs if s.name not in self.refuse}
        self.counts.update({s.name: s.partitions for s in specs if s.name in created})
        if any(s.name in self.refuse for s in specs):
            raise ConnectError("Could not create topic: the target replication factor of 2 cannot be reached")
        return created

    def create_partitions(self, counts: dict[str, int], timeout: float = 30.0) -> None:
        self.counts.update(counts)


def remote_topics(source: FakeAdmin, target: FakeAdmin) -> RemoteTopics:
    return RemoteTopics(
        source, target, DefaultReplicationPolicy(), "A", lambda _: True, config_property_filter({}), 1, 5.0
    )  # type: ignore[arg-type]


def test_missing_remote_topics_are_created_and_short_ones_grown_before_their_partitions_are_dealt() -> None:
    source = FakeAdmin({"orders": 3, "payments": 2})
    target = FakeAdmin({"A.payments": 1})
    topics = remote_topics(source, target)
    ready = topics.create_missing(topics.source_partitions())
    assert ready == [("orders", 0), ("orders", 1), ("orders", 2), ("payments", 0), ("payments", 1)]
    assert target.counts == {"A.orders": 3, "A.payments": 2}


def test_a_refused_topic_is_left_out_of_the_tasks_and_the_others_are_mirrored() -> None:
    source = FakeAdmin({"heartbeats": 1, "orders": 2})
    target = FakeAdmin({}, refuse=frozenset({"A.heartbeats"}))
    topics = remote_topics(source, target)
    assert topics.create_missing(topics.source_partitions()) == [("orders", 0), ("orders", 1)]
    target.refuse = frozenset()
    assert topics.create_missing(topics.source_partitions()) == [("heartbeats", 0), ("orders", 0), ("orders", 1)]
