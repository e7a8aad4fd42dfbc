"""The heartbeat task emits Java's heartbeat record for its flow every interval, and stops at once."""

from __future__ import annotations

import threading
import time

import pytest

from connect.api import OffsetsToAlter
from connect.api.errors import ConfigError
from connect.mirror.heartbeats import MirrorHeartbeatConnector, MirrorHeartbeatTask
from connect.mirror.records import Heartbeat

PROPS = {
    "name": "hb",
    "source.cluster.alias": "A",
    "target.cluster.alias": "B",
    "emit.heartbeats.interval.seconds": "0",
}


def started_task(**props: str) -> MirrorHeartbeatTask:
    task = MirrorHeartbeatTask()
    task.start({**PROPS, **props})
    return task


def test_a_heartbeat_record_says_which_flow_and_when() -> None:
    before = int(time.time() * 1000)
    (record,) = started_task().poll() or []
    assert record.topic == "heartbeats"
    assert record.kafka_partition == 0
    heartbeat = Heartbeat.read(record.key, record.value)
    assert (heartbeat.source_cluster_alias, heartbeat.target_cluster_alias) == ("A", "B")
    assert heartbeat.timestamp_ms == record.timestamp
    assert before <= heartbeat.timestamp_ms <= int(time.time() * 1000)
    assert record.source_partition == {"sourceClusterAlias": "A", "targetClusterAlias": "B"}
    assert list(record.source_partition) == ["sourceClusterAlias", "targetClusterAlias"]  # Java's key order
    assert record.source_offset == {"offset": 0}


def test_the_heartbeats_topic_follows_the_replication_policy() -> None:
    task = started_task(**{"replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"})
    assert [r.topic for r in task.poll() or []] == ["heartbeats"]


def test_stop_ends_a_waiting_poll_at_once() -> None:
    task = started_task(**{"emit.heartbeats.interval.seconds": "60"})
    polled: list[object] = []
    poller = threading.Thread(target=lambda: polled.append(task.poll()))
    poller.start()
    task.stop()
    poller.join(5)
    assert polled == [None]


def test_no_task_when_heartbeats_are_off_or_the_interval_negative() -> None:
    connector = MirrorHeartbeatConnector()
    connector._props, connector._interval_s = dict(PROPS), 1.0
    assert connector.task_configs(4) == [PROPS]
    connector._interval_s = -1.0
    assert connector.task_configs(4) == []


@pytest.mark.parametrize(
    "offsets",
    [
        [({"sourceClusterAlias": "A", "targetClusterAlias": "B"}, {"offset": 5})],
        [({"sourceClusterAlias": "A"}, {"offset": 0})],
    ],
)
def test_altered_offsets_must_keep_the_partition_keys_and_the_constant_offset(offsets: OffsetsToAlter) -> None:
    with pytest.raises(ConfigError):
        MirrorHeartbeatConnector().alter_offsets(PROPS, offsets)


def test_a_reset_or_the_constant_offset_may_be_written() -> None:
    partition = {"sourceClusterAlias": "A", "targetClusterAlias": "B"}
    assert MirrorHeartbeatConnector().alter_offsets(PROPS, [(partition, {"offset": 0}), (partition, None)])
