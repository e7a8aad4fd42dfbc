"""Which topics, groups and topic properties a flow mirrors, as MirrorMaker 2's default filters decide."""

from __future__ import annotations

import pytest

from connect.api.errors import ConfigError
from connect.mirror.filters import config_property_filter, group_filter, topic_filter


def test_topics_are_full_matches_of_any_include_item_and_exclude_wins() -> None:
    accepts = topic_filter({"topics": "orders.*, payments", "topics.exclude": ".*-test"}).accepts
    assert accepts("orders-eu")
    assert accepts("payments")
    assert not accepts("eu-orders")  # a full match, not a search
    assert not accepts("payments-2")
    assert not accepts("orders-test")


def test_the_default_topic_filter_mirrors_user_topics_but_not_mirrormakers_or_kafkas_own() -> None:
    accepts = topic_filter({}).accepts
    assert accepts("orders")
    assert accepts("orders.internal")
    assert not accepts("mm2-offset-syncs.B.internal")
    assert not accepts("orders.replica")
    assert not accepts("__consumer_offsets")


def test_an_empty_list_matches_nothing() -> None:
    assert not topic_filter({"topics": ""}).accepts("orders")
    assert topic_filter({"topics.exclude": " "}).accepts("__consumer_offsets")


def test_the_default_group_filter_skips_console_consumers_and_connect_groups() -> None:
    accepts = group_filter({}).accepts
    assert accepts("billing")
    assert not accepts("console-consumer-4711")
    assert not accepts("connect-my-sink")
    assert group_filter({"groups": "team-a-.*"}).accepts("team-a-x")
    assert not group_filter({"groups": "team-a-.*"}).accepts("team-b-x")


def test_a_pattern_that_does_not_compile_names_its_key() -> None:
    with pytest.raises(ConfigError, match=r"topics\.exclude"):
        topic_filter({"topics.exclude": "orders[("})


def test_topic_properties_follow_unless_excluded_and_defaults_only_from_the_source_when_asked() -> None:
    default = config_property_filter({})
    assert default.should_replicate("retention.ms")
    assert not default.should_replicate("min.insync.replicas")
    assert not default.should_replicate("message.timestamp.type")
    assert not default.should_replicate_source_default("retention.ms")
    from_source = config_property_filter(
        {"use.defaults.from": "source", "config.properties.exclude": r"delete\.retention\..*"}
    )
    assert from_source.should_replicate_source_default("retention.ms")
    assert not from_source.should_replicate("delete.retention.ms")
    assert from_source.should_replicate("min.insync.replicas")
    with pytest.raises(ConfigError, match=r"use\.defaults\.from"):
        config_property_filter({"use.defaults.from": "both"})
