"""Remote topic names and where a name says a topic came from, as Java's replication policies decide."""

from __future__ import annotations

import pytest

from connect.mirror.replication_policy import DefaultReplicationPolicy, IdentityReplicationPolicy


def default_policy(**configs: str) -> DefaultReplicationPolicy:
    policy = DefaultReplicationPolicy()
    policy.configure({k.replace("_", "."): v for k, v in configs.items()})
    return policy


def test_the_default_policy_prefixes_the_source_alias_and_reads_it_back() -> None:
    policy = default_policy()
    assert policy.format_remote_topic("A", "orders") == "A.orders"
    assert policy.topic_source("A.orders") == "A"
    assert policy.upstream_topic("A.orders") == "orders"
    assert policy.topic_source("orders") is None
    assert policy.upstream_topic("orders") is None
    assert policy.original_topic("B.A.orders") == "orders"
    assert policy.original_topic("orders") == "orders"


def test_a_custom_separator_is_used_in_remote_and_internal_names() -> None:
    policy = DefaultReplicationPolicy()
    policy.configure({"replication.policy.separator": "__"})
    assert policy.format_remote_topic("A", "orders") == "A__orders"
    assert policy.upstream_topic("B__A__orders") == "A__orders"
    assert policy.offset_syncs_topic("B") == "mm2-offset-syncs__B__internal"
    assert policy.checkpoints_topic("A") == "A__checkpoints__internal"
    assert policy.is_checkpoints_topic("A__checkpoints__internal")
    policy.configure(
        {"replication.policy.separator": "__", "replication.policy.internal.topic.separator.enabled": "false"}
    )
    assert policy.offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"
    assert policy.checkpoints_topic("A") == "A.checkpoints.internal"


def test_the_source_is_read_as_javas_split_does() -> None:
    policy = default_policy()
    assert policy.topic_source("orders.") is None  # trailing empty parts are dropped: one part left
    assert policy.topic_source(".orders") == ""
    assert policy.topic_source(".") is None


@pytest.mark.parametrize(
    ("topic", "heartbeats", "internal"),
    [
        ("heartbeats", True, False),
        ("A.heartbeats", True, False),
        ("B.A.heartbeats", True, False),
        ("my-heartbeats", False, False),
        ("mm2-offset-syncs.B.internal", False, True),
        ("A.checkpoints.internal", False, True),
        ("mm2-configs.A.internal", False, True),
        ("__consumer_offsets", False, True),
        (".hidden", False, True),
        ("orders.internal", False, False),  # a user's own *.internal topic is mirrored since Kafka 4.0
    ],
)
def test_heartbeats_and_internal_topics_are_recognised(topic: str, heartbeats: bool, internal: bool) -> None:
    policy = default_policy()
    assert policy.is_heartbeats_topic(topic) is heartbeats
    assert policy.is_internal_topic(topic) is internal


def test_the_identity_policy_keeps_names_but_not_for_heartbeats() -> None:
    policy = IdentityReplicationPolicy()
    policy.configure({"source.cluster.alias": "A"})
    assert policy.format_remote_topic("A", "orders") == "orders"
    assert policy.topic_source("orders") == "A"
    assert policy.upstream_topic("orders") == "orders"
    assert policy.original_topic("orders") == "orders"
    assert policy.format_remote_topic("A", "heartbeats") == "A.heartbeats"
    assert policy.topic_source("A.heartbeats") == "A"
    assert policy.upstream_topic("A.heartbeats") == "heartbeats"
    assert policy.is_heartbeats_topic("B.A.heartbeats")
