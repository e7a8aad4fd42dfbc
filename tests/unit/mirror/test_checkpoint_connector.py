"""The checkpoint connector splits its groups as Kafka's ConnectorUtils does and refuses to run without offset
syncs or checkpoints, as Java's connector does."""

from __future__ import annotations

import pytest

from connect.api.errors import ConfigError
from connect.mirror.checkpoint_connector import MirrorCheckpointConnector, contiguous_chunks, validation_errors
from connect.mirror.checkpoint_task import checkpoint_partition
from connect.mirror.records import Checkpoint


def test_groups_are_split_in_contiguous_chunks_the_first_ones_longer() -> None:
    assert contiguous_chunks(["a", "b", "c", "d", "e"], 3) == [["a", "b"], ["c", "d"], ["e"]]
    assert contiguous_chunks(["a", "b"], 2) == [["a"], ["b"]]


def test_checkpoints_off_or_offset_syncs_off_are_validation_errors_unless_the_connector_is_disabled() -> None:
    assert set(validation_errors({"emit.checkpoints.enabled": "false", "emit.offset-syncs.enabled": "false"})) == {
        "emit.checkpoints.enabled",
        "emit.offset-syncs.enabled",
    }
    assert validation_errors({"enabled": "false", "emit.checkpoints.enabled": "false"}) == {}
    assert validation_errors({}) == {}


def test_validate_reports_them_on_their_keys() -> None:
    values = MirrorCheckpointConnector().validate({"source.cluster.alias": "A", "emit.offset-syncs.enabled": "false"})
    errors = {v.name: v.error_messages for v in values}
    assert errors["emit.offset-syncs.enabled"] == ["MirrorCheckpointConnector can't run without offset syncs"]


def test_a_checkpoints_connect_partition_has_javas_keys_in_javas_order() -> None:
    partition = checkpoint_partition(Checkpoint("g1", "A.orders", 3, 1000, 998))
    assert list(partition.items()) == [("partition", 3), ("topic", "A.orders"), ("group", "g1")]


def test_altered_offsets_keep_the_checkpoint_partition_keys_and_the_constant_offset() -> None:
    connector = MirrorCheckpointConnector()
    partition = {"partition": 3, "topic": "A.orders", "group": "g1"}
    assert connector.alter_offsets({}, [(partition, {"offset": 0}), (partition, None)])
    with pytest.raises(ConfigError):
        connector.alter_offsets({}, [({"partition": "3", "topic": "A.orders", "group": "g1"}, {"offset": 0})])
    with pytest.raises(ConfigError):
        connector.alter_offsets({}, [(partition, {"offset": 1})])
