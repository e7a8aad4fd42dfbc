"""Mirroring to a 3-broker target, as a disaster-recovery cluster usually is: MirrorMaker's default replication
factors (2 for remote topics, 3 for its internal topics) are taken as they are, and the flow rides out the
crash of the broker that leads a remote partition without losing a record.

Cluster A is the session's 1-node broker, cluster B the session's 3-node cluster (whose fixture starts again
any node a test killed). The offset syncs live on the target (`offset-syncs.topic.location=target`), so every
internal topic the flow creates is on B with Java's default replication factor. Without exactly-once
mirroring a record may be written twice when a produce is retried across the crash (MirrorMaker 2 is
at-least-once there too): what must hold is that none is missing and each partition keeps its order.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from local_kafka import LocalKafka
from tests.fixtures.kafka import new_topic
from tests.support.mirror_flows import checkpoint_flow_config
from tests.support.mirrored_topics import read_records
from tests.support.standalone_workers import all_running, create_connector, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

PARTITIONS = 3
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"


def flow_with_default_replication(source: str, target: str, topic_prefix: str) -> dict[str, str]:
    """A flow A->B as a user of a 3-broker target writes it: no replication factor given."""
    return {
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "source.cluster.bootstrap.servers": source,
        "target.cluster.bootstrap.servers": target,
        "topics": f"{topic_prefix}.*",
        "offset-syncs.topic.location": "target",
        "refresh.topics.interval.seconds": "1",
        "offset.lag.max": "10",
        "key.converter": BYTES,
        "value.converter": BYTES,
        "header.converter": BYTES,
    }


def produce_numbered(bootstrap: str, topic: str, first: int, count: int) -> dict[int, list[bytes]]:
    """Records `first`..`first+count-1` round-robin over the partitions; the values sent to each partition."""
    producer = Producer({"bootstrap.servers": bootstrap})
    sent: dict[int, list[bytes]] = {p: [] for p in range(PARTITIONS)}
    now = int(time.time() * 1000)
    for n in range(first, first + count):
        value = f"record-{n}".encode()
        producer.produce(topic, value, f"key-{n}".encode(), n % PARTITIONS, timestamp=now)
        sent[n % PARTITIONS].append(value)
    assert producer.flush(30) == 0
    return sent


def values_by_partition(bootstrap: str, topic: str) -> dict[int, list[bytes]]:
    """Each partition's values in offset order, a value written again by a retried produce counted once."""
    found: dict[int, list[bytes]] = {p: [] for p in range(PARTITIONS)}
    for record in read_records(bootstrap, topic):
        values = found[record.partition]
        if record.value is not None and record.value not in values:
            values.append(record.value)
    return found


def replication_factors(bootstrap: str, topics: list[str]) -> dict[str, int]:
    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics
    return {t: len(metadata[t].partitions[0].replicas) for t in topics if t in metadata and metadata[t].partitions}


def leader_of(bootstrap: str, topic: str, partition: int) -> int:
    return leaders(bootstrap, topic)[partition]


def leaders(bootstrap: str, topic: str) -> dict[int, int]:
    """Each partition's leader (-1 while it has none)."""
    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10)
    return {p: int(info.leader) for p, info in metadata.topics[topic].partitions.items()}


@pytest.mark.slow
def test_a_three_broker_target_takes_mm2s_default_replication_and_rides_out_a_broker_crash(
    kafka_bootstrap: str, local_kafka3: LocalKafka, tmp_path: Path
) -> None:
    a, b, prefix = kafka_bootstrap, local_kafka3.bootstrap_servers, f"dr3-{uuid.uuid4().hex[:8]}"
    topic = new_topic(AdminClient({"bootstrap.servers": a}), PARTITIONS, prefix=prefix)
    remote = f"A.{topic}"
    sent = produce_numbered(a, topic, 0, 300)

    flow = flow_with_default_replication(a, b, prefix)
    source_class = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    heartbeat_class = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
    with running_worker(worker_props(b, tmp_path / "offsets")) as (_, on_b):
        create_connector(on_b, f"{prefix}-source", {**flow, "connector.class": source_class, "tasks.max": "2"})
        # The checkpoint flow of the 1-broker tests sets its topic's replication factor to 1: not here.
        checkpoints = checkpoint_flow_config(flow, prefix)
        del checkpoints["checkpoints.topic.replication.factor"]
        create_connector(on_b, f"{prefix}-checkpoints", checkpoints)
        create_connector(on_b, f"{prefix}-heartbeats", {**flow, "connector.class": heartbeat_class})
        wait_until(lambda: all_running(on_b, f"{prefix}-source", 2), 60, "the source connector's two tasks")
        wait_until(lambda: values_by_partition(b, remote) == sent, 60, "the first records mirrored")

        internal = ["mm2-offset-syncs.A.internal", "A.checkpoints.internal", "heartbeats"]
        wait_until(lambda: len(replication_factors(b, internal)) == 3, 60, "the flow's internal topics on B")
        assert replication_factors(b, [remote, *internal]) == {remote: 2, **dict.fromkeys(internal, 3)}

        # The broker leading partition 0 of the remote topic dies while the source keeps producing.
        dead = leader_of(b, remote, 0)
        local_kafka3.kill_node(dead)
        more = produce_numbered(a, topic, 300, 300)
        expected = {p: sent[p] + more[p] for p in range(PARTITIONS)}
        # The controller moves leadership once the dead broker's session lapses (about 9 s in KRaft); until
        # then a reader of the remote topic, like any consumer, waits on the partitions it led.
        wait_until(lambda: not {dead, -1} & set(leaders(b, remote).values()), 60, "new leaders on B")
        wait_until(lambda: values_by_partition(b, remote) == expected, 120, "every record mirrored after the crash")
        assert all_running(on_b, f"{prefix}-source", 2)
