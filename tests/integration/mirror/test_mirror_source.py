"""MirrorMaker 2's connectors between two real clusters, configured with Java's class names
and keys as a user of MirrorMaker would: cluster A (the session broker) mirrored to cluster B (a second broker).

Records reach `A.<topic>` on B unchanged (key, value, tombstones, headers in order, timestamps, partitions),
the offset syncs on A say where upstream offsets landed, topic configs and new partitions follow the source
topic, and heartbeats arrive on B. A consumer group's offsets on A are checkpointed on B and written to the
same group there while it has no active member. A record B refuses fails the task with nothing written past
it. The worker is a standalone one with REST, on cluster B.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Producer
from confluent_kafka import TopicPartition as KafkaTopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from connect.mirror.records import Heartbeat, OffsetSync
from connect.runtime.kafka import KafkaClients
from connect.runtime.kafka.client_config import to_librdkafka
from tests.fixtures.kafka import new_topic
from tests.support.mirror_flows import PARTITIONS, checkpoint_flow_config, consume_and_commit, flow_config, produce
from tests.support.mirrored_topics import latest_checkpoints, read_records
from tests.support.standalone_workers import (
    all_running,
    create_connector,
    failed_trace,
    running_worker,
    worker_props,
)
from tests.support.topic_reads import messages_to_end
from tests.support.waiting import wait_until

SYNCS_TOPIC = "mm2-offset-syncs.B.internal"
pytestmark = pytest.mark.integration

SOURCE_CLASS = "org.apache.kafka.connect.mirror.MirrorSourceConnector"


@pytest.fixture
def worker_on_b(other_kafka_bootstrap: str, tmp_path: Path) -> Iterator[httpx.Client]:
    props = worker_props(other_kafka_bootstrap, tmp_path / "offsets", **{"offset.flush.interval.ms": "500"})
    with running_worker(props) as (_, client):
        yield client


def test_a_topic_is_mirrored_unchanged_with_offset_syncs_configs_partitions_and_heartbeats(
    kafka_bootstrap: str, other_kafka_bootstrap: str, worker_on_b: httpx.Client
) -> None:
    prefix, target = f"mirror-{uuid.uuid4().hex[:8]}", other_kafka_bootstrap
    admin_a = AdminClient({"bootstrap.servers": kafka_bootstrap})
    topic = new_topic(admin_a, PARTITIONS, prefix=prefix, config={"retention.ms": "86400000"})
    sent = produce(kafka_bootstrap, topic, 60)

    config = flow_config(kafka_bootstrap, other_kafka_bootstrap, prefix)
    source_class = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    create_connector(worker_on_b, f"{prefix}-source", {**config, "connector.class": source_class, "tasks.max": "2"})
    heartbeat_class = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
    create_connector(worker_on_b, f"{prefix}-heartbeats", {**config, "connector.class": heartbeat_class})
    wait_until(lambda: all_running(worker_on_b, f"{prefix}-source", 2), 60, "the source connector's two tasks")

    remote = f"A.{topic}"
    wait_until(lambda: len(read_records(other_kafka_bootstrap, remote)) == len(sent), 60, "every record mirrored")
    received = read_records(other_kafka_bootstrap, remote)
    for partition in range(PARTITIONS):
        assert [r for r in received if r.partition == partition] == [s for s in sent if s.partition == partition]

    # Offset syncs on A: for each upstream partition, where its records landed on B (same offsets here).
    def my_syncs() -> list[OffsetSync]:
        syncs = [
            OffsetSync.read(r.key or b"", r.value or b"")
            for r in read_records(kafka_bootstrap, "mm2-offset-syncs.B.internal")
        ]
        return [s for s in syncs if s.topic == topic]

    # Syncs are sent after the target acknowledged the records: they may follow the records by a moment.
    mine = wait_until(
        lambda: (found := my_syncs()) and {s.partition for s in found} == set(range(PARTITIONS)) and found,
        30,
        "an offset sync for every partition",
    )
    assert all(s.upstream_offset == s.downstream_offset for s in mine)

    # MirrorMaker's metrics, as Strimzi's exporter names Java's: every acknowledged record of each partition.
    def by_partition(metric: str) -> dict[str, float]:
        lines = worker_on_b.get("/metrics").text.splitlines()
        prefix = f"kafka_connect_mirror_mirrorsourceconnector_{metric}{{"
        return {
            line.split('partition="')[1].split('"')[0]: float(line.rsplit(" ", 1)[1])
            for line in lines
            if line.startswith(prefix) and f'topic="{remote}"' in line and 'source="A",target="B"' in line
        }

    per_partition = {str(p): float(len([s for s in sent if s.partition == p])) for p in range(PARTITIONS)}
    wait_until(lambda: by_partition("record_count") == per_partition, 30, "the record counts in /metrics")
    # Caught up: no partition has records the target lacks (KIP-971's offset lag).
    wait_until(
        lambda: by_partition("replication_offset_lag") == {str(p): 0.0 for p in range(PARTITIONS)},
        30,
        "an offset lag of 0 for every partition in /metrics",
    )

    # Configs follow the source topic, at creation and afterwards; so do new partitions.
    admin_b = KafkaClients(producer_props={}, consumer_props={}, admin_props={"bootstrap.servers": target}).admin()

    def remote_config(name: str) -> str | None:
        entries = admin_b.topic_configs([remote]).get(remote, [])
        return next((e.value for e in entries if e.name == name), None)

    assert remote_config("retention.ms") == "86400000"
    source_admin = KafkaClients(
        producer_props={}, consumer_props={}, admin_props={"bootstrap.servers": kafka_bootstrap}
    )
    source_admin.admin().alter_topic_configs({topic: {"retention.ms": "43200000"}})
    wait_until(lambda: remote_config("retention.ms") == "43200000", 30, "the changed retention on the remote topic")
    admin_a.create_partitions([NewPartitions(topic, PARTITIONS + 1)])[topic].result(30)
    wait_until(lambda: admin_b.partition_count(remote) == PARTITIONS + 1, 30, "the new partition on the remote topic")

    heartbeats = [
        Heartbeat.read(r.key or b"", r.value or b"") for r in read_records(other_kafka_bootstrap, "heartbeats")
    ]
    assert ("A", "B") in {(h.source_cluster_alias, h.target_cluster_alias) for h in heartbeats}


def test_the_source_connector_refuses_offset_sync_keys_when_it_emits_no_syncs(worker_on_b: httpx.Client) -> None:
    config = {
        "connector.class": "MirrorSourceConnector",
        "source.cluster.alias": "A",
        "emit.offset-syncs.enabled": "false",
        "offset-syncs.topic.location": "target",
    }
    response = worker_on_b.put("/connector-plugins/MirrorSourceConnector/config/validate", json=config)
    assert response.status_code == 200, response.text
    errors = {v["value"]["name"]: v["value"]["errors"] for v in response.json()["configs"]}
    assert any("offset-syncs.topic.location" in e for e in errors["emit.offset-syncs.enabled"])


def test_a_groups_offsets_are_checkpointed_and_written_to_its_idle_group_on_the_target(
    kafka_bootstrap: str, other_kafka_bootstrap: str, worker_on_b: httpx.Client
) -> None:
    prefix, target = f"mirror-{uuid.uuid4().hex[:8]}", other_kafka_bootstrap
    topic = new_topic(AdminClient({"bootstrap.servers": kafka_bootstrap}), PARTITIONS, prefix=prefix)
    produce(kafka_bootstrap, topic, 60)  # 20 a partition
    group = f"{prefix}-group"
    consume_and_commit(kafka_bootstrap, topic, group, 12)

    config = flow_config(kafka_bootstrap, target, prefix)
    source_class = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    create_connector(worker_on_b, f"{prefix}-source", {**config, "connector.class": source_class})
    wait_until(lambda: len(read_records(target, f"A.{topic}")) == 60, 60, "every record mirrored")
    checkpoint_config = {
        **checkpoint_flow_config(config, prefix),
        "sync.group.offsets.enabled": "true",
        "sync.group.offsets.interval.seconds": "1",
    }
    create_connector(worker_on_b, f"{prefix}-checkpoints", checkpoint_config)

    wait_until(
        lambda: len(latest_checkpoints(target, "A.checkpoints.internal", group)) == PARTITIONS,
        60,
        "a checkpoint for every partition",
    )
    latency = (
        f'kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms{{source="A",target="B",group="{group}"'
    )
    wait_until(
        lambda: sum(line.startswith(latency) for line in worker_on_b.get("/metrics").text.splitlines()) == PARTITIONS,
        30,
        "a checkpoint latency per partition in /metrics",
    )
    for partition, checkpoint in latest_checkpoints(target, "A.checkpoints.internal", group).items():
        assert (checkpoint.topic, checkpoint.upstream_offset) == (f"A.{topic}", 12), partition
        # Never ahead of the group's position, and behind it by less than offset.lag.max.
        assert 12 - 10 <= checkpoint.downstream_offset <= 12, checkpoint

    admin_b = KafkaClients(producer_props={}, consumer_props={}, admin_props={"bootstrap.servers": target}).admin()
    expected = {
        (f"A.{topic}", p): c.downstream_offset
        for p, c in latest_checkpoints(target, "A.checkpoints.internal", group).items()
    }

    def synced() -> dict[tuple[str, int], int]:
        return {tp: offset for tp, (offset, _) in admin_b.committed_offsets(group).items()}

    wait_until(lambda: synced() == expected, 60, "the group's translated offsets on the target")


def test_a_group_far_behind_the_mirror_is_translated_to_within_offset_lag_max(
    kafka_bootstrap: str, other_kafka_bootstrap: str, worker_on_b: httpx.Client
) -> None:
    # Java 4.3.1 translated such a group (2,000 records behind the head, offset.lag.max=100) to where it re-read
    # up to three quarters of what it had read; the full sync history translates it from the newest sync at or
    # before its offset, which is within offset.lag.max of it unless the source coalesced syncs (it keeps only
    # the latest of those waiting while its producer is busy, as Java's OffsetSyncWriter does).
    prefix, target = f"lagging-{uuid.uuid4().hex[:8]}", other_kafka_bootstrap
    topic = new_topic(AdminClient({"bootstrap.servers": kafka_bootstrap}), PARTITIONS, prefix=prefix)
    produce(kafka_bootstrap, topic, 5000 * PARTITIONS)
    group = f"{prefix}-group"
    consume_and_commit(kafka_bootstrap, topic, group, 3000)

    config = {**flow_config(kafka_bootstrap, target, prefix), "offset.lag.max": "100"}
    source_class = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    create_connector(worker_on_b, f"{prefix}-source", {**config, "connector.class": source_class})
    wait_until(lambda: len(read_records(target, f"A.{topic}")) == 5000 * PARTITIONS, 90, "every record mirrored")
    create_connector(worker_on_b, f"{prefix}-checkpoints", checkpoint_flow_config(config, prefix))

    wait_until(
        lambda: len(latest_checkpoints(target, "A.checkpoints.internal", group)) == PARTITIONS,
        60,
        "a checkpoint for every partition",
    )
    syncs = [OffsetSync.read(r.key or b"", r.value or b"") for r in read_records(kafka_bootstrap, SYNCS_TOPIC)]
    for partition, checkpoint in latest_checkpoints(target, "A.checkpoints.internal", group).items():
        assert checkpoint.upstream_offset == 3000, partition
        nearest = [s for s in syncs if (s.topic, s.partition) == (topic, partition) and s.upstream_offset <= 3000][-1]
        expected = nearest.downstream_offset + (0 if nearest.upstream_offset == 3000 else 1)
        assert checkpoint.downstream_offset == expected, (checkpoint, nearest)
        assert checkpoint.downstream_offset <= 3000, checkpoint


def test_records_deleted_on_the_source_before_they_were_mirrored_are_reported_and_the_rest_mirrored(
    kafka_bootstrap: str, other_kafka_bootstrap: str, worker_on_b: httpx.Client
) -> None:
    prefix, target = f"gap-{uuid.uuid4().hex[:8]}", other_kafka_bootstrap
    admin_a = AdminClient({"bootstrap.servers": kafka_bootstrap})
    topic = new_topic(admin_a, PARTITIONS, prefix=prefix)
    produce(kafka_bootstrap, topic, 10 * PARTITIONS)  # offsets 0-9 of each partition
    name, remote = f"{prefix}-source", f"A.{topic}"
    config = {**flow_config(kafka_bootstrap, target, prefix), "connector.class": SOURCE_CLASS}
    create_connector(worker_on_b, name, config)
    wait_until(lambda: len(read_records(target, remote)) == 10 * PARTITIONS, 60, "the first records mirrored")

    # While the connector is stopped, 30 more records a partition arrive and retention takes partition 0 up to
    # offset 25: records 10 to 24 of it are never mirrored.
    assert worker_on_b.put(f"/connectors/{name}/stop").status_code == 204
    wait_until(
        lambda: worker_on_b.get(f"/connectors/{name}/status").json()["connector"]["state"] == "STOPPED", 30, "stopped"
    )
    produce(kafka_bootstrap, topic, 30 * PARTITIONS)
    admin_a.delete_records([KafkaTopicPartition(topic, 0, 25)])[KafkaTopicPartition(topic, 0, 25)].result(30)
    assert worker_on_b.put(f"/connectors/{name}/resume").status_code == 202

    wait_until(
        lambda: len(read_records(target, remote)) == 40 * PARTITIONS - 15, 60, "every record still on the source"
    )

    def lost(partition: int) -> float | None:
        labels = f'source="A",target="B",topic="{remote}",partition="{partition}"'
        wanted = f"kafka_connect_mirror_mirrorsourceconnector_lost_record_count{{{labels}}}"
        lines = [line for line in worker_on_b.get("/metrics").text.splitlines() if line.startswith(wanted)]
        return float(lines[0].rsplit(" ", 1)[1]) if lines else None

    assert wait_until(lambda: lost(0), 30, "the lost records counted") == 15
    assert lost(1) == 0

    # The connector's status says so too, while its tasks keep running.
    def traces() -> list[str]:
        tasks = worker_on_b.get(f"/connectors/{name}/status").json()["tasks"]
        assert all(task["state"] == "RUNNING" for task in tasks), tasks
        return [task["trace"] for task in tasks if "trace" in task]

    reported = wait_until(traces, 30, "the gap in the status of the task that mirrors partition 0")
    assert len(reported) == 1 and f"Records 10 to 24 of {topic}-0 were deleted" in reported[0], reported


def test_a_flow_reads_a_source_cluster_over_sasl_ssl_with_kafkas_client_keys(
    secured_kafka_keys: dict[str, str], other_kafka_bootstrap: str, worker_on_b: httpx.Client
) -> None:
    keys = secured_kafka_keys
    client = {**to_librdkafka(keys, "producer"), "log_level": 0}
    prefix, target = f"sasl-{uuid.uuid4().hex[:8]}", other_kafka_bootstrap
    topic = new_topic(AdminClient({**to_librdkafka(keys, "admin"), "log_level": 0}), PARTITIONS, prefix=prefix)
    producer = Producer(client)
    for n in range(30):
        producer.produce(topic, f"secured-{n}".encode(), partition=n % PARTITIONS)
    assert producer.flush(30) == 0

    # The source side as Strimzi or connect-mirror-maker users write it: Kafka's keys under `source.cluster.`.
    security = {f"source.cluster.{k}": v for k, v in keys.items() if k != "bootstrap.servers"}
    config = {
        **flow_config(keys["bootstrap.servers"], target, prefix),
        **security,
        "connector.class": SOURCE_CLASS,
    }
    create_connector(worker_on_b, f"{prefix}-source", config)
    wait_until(
        lambda: (
            sorted((r.value or b"").decode() for r in read_records(target, f"A.{topic}"))
            == sorted(f"secured-{n}" for n in range(30))
        ),
        60,
        "every record of the SASL_SSL cluster on the target",
    )
    # Its offset syncs go to the source cluster, over the same listener.
    syncs = wait_until(
        lambda: read_secured(keys, "mm2-offset-syncs.B.internal", topic), 30, "offset syncs on the source"
    )
    assert {sync.partition for sync in syncs} == set(range(PARTITIONS))


def read_secured(keys: dict[str, str], topic: str, upstream: str) -> list[OffsetSync]:
    consumer_keys = {**to_librdkafka(keys, "consumer"), "log_level": 0}
    found = []
    for message in messages_to_end(consumer_keys, topic):
        sync = OffsetSync.read(message.key() or b"", message.value() or b"")
        if sync.topic == upstream:
            found.append(sync)
    return found


# A record the target cluster refuses stops its partition's flow there, with nothing written past it. The mirror
# source's producer is gap-less (idempotent, `enable.gapless.guarantee`), which is what lets the runtime ask for
# the delivery reports of each run's first and last records alone. A record larger than the remote topic's
# `max.message.bytes` amid a partition's records fails the task; the remote partition holds a prefix of the
# source partition (a producer that went on would write the records after it past the gap: Java's MirrorMaker 2
# produces without idempotence), and the offsets stored stop before it, so a restart once the topic is fixed
# resumes there.
GAPLESS_SMALL = 2_000
GAPLESS_LARGE_BYTES = 1_500_000  # over the remote topic's 1,000,000-byte limit, within the source topic's
GAPLESS_REMOTE_LIMIT = "1000000"


def test_a_record_the_target_refuses_fails_the_task_with_nothing_written_after_it(
    kafka_bootstrap: str, other_kafka_bootstrap: str, worker_on_b: httpx.Client
) -> None:
    a, b, prefix = kafka_bootstrap, other_kafka_bootstrap, f"gapless-{uuid.uuid4().hex[:8]}"
    topic = new_topic(AdminClient({"bootstrap.servers": a}), 1, config={"max.message.bytes": "2000000"}, prefix=prefix)
    remote = f"A.{topic}"
    admin_b = AdminClient({"bootstrap.servers": b})  # kept referenced while its future resolves
    created = admin_b.create_topics([NewTopic(remote, 1, 1, config={"max.message.bytes": GAPLESS_REMOTE_LIMIT})])
    created[remote].result(30)

    producer = Producer({"bootstrap.servers": a, "message.max.bytes": 3_000_000, "linger.ms": 20})
    now = int(time.time() * 1000)
    values = [f"record-{n}".encode() for n in range(GAPLESS_SMALL)] + [b"x" * GAPLESS_LARGE_BYTES]
    values += [f"record-{n}".encode() for n in range(GAPLESS_SMALL, 2 * GAPLESS_SMALL)]
    for value in values:
        producer.produce(topic, value, None, 0, timestamp=now)
    assert producer.flush(30) == 0

    name = f"{prefix}-source"
    create_connector(
        worker_on_b,
        name,
        {
            **flow_config(a, b, prefix),
            "connector.class": SOURCE_CLASS,
            "tasks.max": "1",
            "sync.topic.configs.enabled": "false",  # keeps the remote topic's limit below the record
            "producer.override.message.max.bytes": "3000000",  # librdkafka sends it; the broker refuses it
        },
    )
    wait_until(lambda: failed_trace(worker_on_b, name), 60, "the source task FAILED")

    on_target = [record.value for record in read_records(b, remote)]
    assert on_target == values[: len(on_target)], "the remote partition holds a prefix of the source partition"
    assert len(on_target) <= GAPLESS_SMALL, "nothing from the refused record on"

    listed = worker_on_b.get(f"/connectors/{name}/offsets").json()["offsets"]
    stored = int(listed[0]["offset"]["offset"]) if listed else None
    assert stored is None or stored < GAPLESS_SMALL, "the offsets stored stop before the refused record"
    assert stored is None or stored < len(on_target), "every record up to the stored offset is on the target"
