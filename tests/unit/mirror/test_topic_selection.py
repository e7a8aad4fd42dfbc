"""A flow mirrors what its filter takes, never internal topics nor what came from its target, and deals the
partitions round-robin to its tasks (Java's `MirrorSourceConnector`)."""

from __future__ import annotations

from connect.mirror.filters import topic_filter
from connect.mirror.replication_policy import DefaultReplicationPolicy, IdentityReplicationPolicy
from connect.mirror.topic_selection import (
    deal_partitions,
    decode_partitions,
    encode_partitions,
    is_cycle,
    topic_selector,
)


def test_topics_that_came_from_the_target_at_any_depth_are_cycles() -> None:
    policy = DefaultReplicationPolicy()
    assert is_cycle(policy, "B", "B.orders")
    assert is_cycle(policy, "B", "C.B.orders")
    assert not is_cycle(policy, "B", "C.orders")
    assert not is_cycle(policy, "B", "orders")


def test_the_identity_policy_sees_no_cycle() -> None:
    policy = IdentityReplicationPolicy()
    policy.configure({"source.cluster.alias": "A"})
    assert not is_cycle(policy, "B", "orders")


def test_the_flow_takes_filtered_topics_and_heartbeats_but_no_internal_topic_or_cycle() -> None:
    policy = DefaultReplicationPolicy()
    accepted = topic_filter({"topics": "orders.*"}).accepts
    selector = topic_selector(policy, "B", accepted, heartbeats_replicated=True)
    assert selector("orders")
    assert selector("heartbeats")
    assert selector("C.heartbeats")
    assert not selector("payments")
    assert not selector("B.orders")
    assert not selector("B.heartbeats")  # the target's own heartbeats, mirrored back: a cycle
    assert not topic_selector(policy, "B", accepted, heartbeats_replicated=False)("heartbeats")
    assert not topic_selector(policy, "B", lambda t: True, True)("mm2-offset-syncs.B.internal")


def test_partitions_are_dealt_round_robin_and_written_as_java_writes_them() -> None:
    partitions = [("orders", 0), ("orders", 1), ("my-topic", 0), ("my-topic", 1), ("x", 0)]
    dealt = deal_partitions(partitions, 2)
    assert dealt == [[("orders", 0), ("my-topic", 0), ("x", 0)], [("orders", 1), ("my-topic", 1)]]
    assert deal_partitions(partitions, 9) == [[p] for p in partitions]
    assert deal_partitions([], 3) == []
    assert encode_partitions(dealt[0]) == "orders-0,my-topic-0,x-0"
    assert decode_partitions("orders-0,my-topic-0,x-0") == dealt[0]
    assert decode_partitions("") == []
