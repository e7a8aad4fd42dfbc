"""MirrorMaker 2's connector keys carry Kafka 4.3's defaults, so a config written for Java's connectors
means the same here."""

from __future__ import annotations

from typing import Any

import pytest

from connect.api.errors import ConfigError
from connect.mirror.config import CHECKPOINT_CONFIG_DEF, COMMON_CONFIG_DEF, HEARTBEAT_CONFIG_DEF, SOURCE_CONFIG_DEF

MINIMAL = {"source.cluster.alias": "A"}


def parsed(config_def: Any, **props: str) -> dict[str, Any]:
    values: dict[str, Any] = config_def.parse({**MINIMAL, **props})
    return values


def test_the_source_connectors_defaults_are_kafkas() -> None:
    values = parsed(SOURCE_CONFIG_DEF)
    assert values["target.cluster.alias"] == "target"
    assert values["topics"] == [".*"]
    assert values["topics.exclude"] == [r"mm2.*\.internal", r".*\.replica", "__.*"]
    assert values["replication.factor"] == 2
    assert values["offset-syncs.topic.replication.factor"] == 3
    assert values["offset.lag.max"] == 100
    assert values["offset-syncs.topic.location"] == "source"
    assert values["refresh.topics.interval.seconds"] == 600
    assert values["emit.offset-syncs.enabled"] is True
    assert values["replication.policy.separator"] == "."


def test_the_checkpoint_and_heartbeat_connectors_defaults_are_kafkas() -> None:
    checkpoint = parsed(CHECKPOINT_CONFIG_DEF)
    assert checkpoint["groups.exclude"] == ["console-consumer-.*", "connect-.*", "__.*"]
    assert checkpoint["emit.checkpoints.interval.seconds"] == 60
    assert checkpoint["sync.group.offsets.enabled"] is False
    assert checkpoint["checkpoints.topic.replication.factor"] == 3
    heartbeat = parsed(HEARTBEAT_CONFIG_DEF)
    assert heartbeat["emit.heartbeats.interval.seconds"] == 1
    assert heartbeat["heartbeats.topic.replication.factor"] == 3


def test_the_source_alias_is_required_and_the_offset_syncs_location_is_source_or_target() -> None:
    with pytest.raises(ConfigError, match=r"source\.cluster\.alias"):
        COMMON_CONFIG_DEF.parse({})
    with pytest.raises(ConfigError, match=r"offset-syncs\.topic\.location"):
        parsed(SOURCE_CONFIG_DEF, **{"offset-syncs.topic.location": "elsewhere"})
