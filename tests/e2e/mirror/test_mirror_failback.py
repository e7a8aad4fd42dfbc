"""The DR runbook of docs/mirror.md, step by step, with `kconnect mirror` in dedicated mode between a primary and
a backup cluster: the primary goes down, a consumer group fails over to the backup with its translated offsets,
producers write to the backup meanwhile, the primary comes back, the backup's new records are mirrored home, and
the group fails back to the primary with the offsets the reverse flow translated and, on the primary's own
topic, with where it got to on the backup translated back (beyond Java's MirrorMaker).

The primary is the restartable broker (really stopped and started), the backup the session's broker. One node
runs both flows, as a DR pair usually does: `primary->backup` mirrors the orders topic, `backup->primary` mirrors
what is written to the backup's own orders topic during the outage. What the group reads in each phase is
checked against what was produced: nothing is missed, and what is read twice is bounded as the runbook says.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from local_kafka import LocalKafka
from tests.fixtures.kafka import new_topic
from tests.fixtures.tcp_ports import free_port
from tests.support.mirror_flows import PARTITIONS, consume_and_commit
from tests.support.mirror_nodes import MirrorNode, mm2_file
from tests.support.mirrored_topics import read_records
from tests.support.waiting import wait_until
from tests.unit.ctl.support import Result, ctl

pytestmark = pytest.mark.e2e

LAG_MAX = 5
Position = tuple[str, int]  # (topic, partition)


def produce_per_partition(bootstrap: str, topic: str, phase: str, count: int) -> dict[int, list[bytes]]:
    """`count` records to each partition, named after the phase; what each partition got."""
    producer = Producer({"bootstrap.servers": bootstrap})
    sent: dict[int, list[bytes]] = {p: [] for p in range(PARTITIONS)}
    now = int(time.time() * 1000)
    for n in range(count):
        for partition in range(PARTITIONS):
            value = f"{phase}-{partition}-{n}".encode()
            producer.produce(topic, value, f"key-{n}".encode(), partition, timestamp=now)
            sent[partition].append(value)
    assert producer.flush(30) == 0
    return sent


def every_partition(ends: dict[str, int]) -> dict[Position, int]:
    """Each topic's end, for every one of its partitions."""
    return {(topic, partition): end for topic, end in ends.items() for partition in range(PARTITIONS)}


def read_as_group(bootstrap: str, group: str, ends: dict[Position, int]) -> dict[Position, tuple[int, list[bytes]]]:
    """A member of `group` reads each (topic, partition) from the group's committed offset up to `ends`, commits
    and leaves; for each, where it started and the values it read."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        committed = consumer.committed([TopicPartition(t, p) for t, p in ends], timeout=10)
        starts = {(tp.topic, tp.partition): max(tp.offset, 0) for tp in committed}
        positions = dict(starts)
        read: dict[Position, list[bytes]] = {position: [] for position in ends}
        consumer.subscribe(sorted({topic for topic, _ in ends}))
        deadline = time.monotonic() + 60
        while any(positions[p] < end for p, end in ends.items()) and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error() is not None:
                continue
            position = (str(message.topic()), int(message.partition() or 0))
            read[position].append(message.value() or b"")
            positions[position] = int(message.offset() or 0) + 1
        assert positions == ends, f"the group did not read to the end: {positions} of {ends}"
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in positions.items()], asynchronous=False)
    finally:
        consumer.close()
    return {position: (starts[position], read[position]) for position in ends}


@pytest.mark.slow
def test_a_group_fails_over_to_the_backup_and_back_to_the_primary_step_by_step(
    restartable_kafka: LocalKafka,
    kafka_bootstrap: str,
    tmp_path: Path,
    mirror_nodes: list[MirrorNode],
    capsys: pytest.CaptureFixture[str],
) -> None:
    primary_kafka, backup_kafka, tag = restartable_kafka.bootstrap_servers, kafka_bootstrap, uuid.uuid4().hex[:6]
    primary, backup = f"primary{tag}", f"backup{tag}"
    topic = new_topic(AdminClient({"bootstrap.servers": primary_kafka}), PARTITIONS, prefix=f"orders-{tag}")
    group = f"billing-{tag}"
    forward, reverse = f"{primary}->{backup}", f"{backup}->{primary}"
    props = {
        **mm2_file(primary, backup, primary_kafka, backup_kafka, topic),
        f"{reverse}.enabled": "true",
        f"{reverse}.topics": topic,
        "groups": group,
        "offset.lag.max": str(LAG_MAX),
        "emit.checkpoints.interval.seconds": "1",
        "refresh.groups.interval.seconds": "1",
        f"{primary}.offset.flush.interval.ms": "1000",
        f"{backup}.offset.flush.interval.ms": "1000",
    }
    node = MirrorNode("mm", {**props, "listeners": f"http://127.0.0.1:{free_port()}"}, tmp_path)
    mirror_nodes.append(node)
    node.start()
    wait_until(node.healthy, 90, "the node healthy", interval=0.2)

    def translate(flow: str, *more: str) -> Result:
        return ctl(capsys, "mirror", "translate", "--group", group, "--flow", flow, "--url", node.url, *more)

    def translated(flow: str, topic_there: str) -> dict[int, int] | None:
        answer = translate(flow, "-o", "json")
        if answer.code != 0:
            return None
        offsets = json.loads(answer.out)["offsets"]
        found = {o["partition"]: o["offset"] for o in offsets if o["topic"] == topic_there}
        return found if len(found) == PARTITIONS else None

    def translated_within_lag_max(flow: str, topic_there: str, committed: int) -> bool:
        """Every partition translated, never ahead of the group and behind it by less than offset.lag.max."""
        found = translated(flow, topic_there)
        return found is not None and all(committed - LAG_MAX < offset <= committed for offset in found.values())

    # 1. Normal operation: the group reads 20 of each partition's 30 records on the primary. Its records are
    #    sent once the primary's heartbeats (which the reverse flow writes) are mirrored: that new topic makes the
    #    forward source connector reassign its partitions, and a task stopped while its records are acknowledged
    #    sends no offset sync for them (as Java's), so a partition with no later record would stay untranslated.
    wait_until(lambda: read_records(backup_kafka, f"{primary}.heartbeats"), 90, "the primary's heartbeats mirrored")
    before = produce_per_partition(primary_kafka, topic, "before", 30)
    consume_and_commit(primary_kafka, topic, group, 20)
    remote_on_backup = f"{primary}.{topic}"
    wait_until(lambda: len(read_records(backup_kafka, remote_on_backup)) == 30 * PARTITIONS, 90, "the topic mirrored")
    wait_until(
        lambda: translated_within_lag_max(forward, remote_on_backup, 20),
        90,
        "the group's offsets checkpointed on the backup within offset.lag.max",
    )

    # 2. The primary is lost.
    restartable_kafka.stop()

    # 3. Failover: the translated offsets are written to the group on the backup, the consumers start there
    #    (on the remote topic and on the backup's own orders topic, where the producers now write).
    assert translate(forward, "--apply").code == 0
    backup_admin = AdminClient({"bootstrap.servers": backup_kafka})
    backup_admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)
    during = produce_per_partition(backup_kafka, topic, "during", 15)
    on_backup = read_as_group(backup_kafka, group, every_partition({remote_on_backup: 30, topic: 15}))
    for partition in range(PARTITIONS):
        start, values = on_backup[(remote_on_backup, partition)]
        assert 20 - LAG_MAX < start <= 20, "failover re-reads less than offset.lag.max and skips nothing"
        assert values == before[partition][start:]
        assert on_backup[(topic, partition)] == (0, during[partition])

    # 4. The primary is back: the backup's new records are mirrored home, and the group's offsets on them are
    #    translated by the reverse flow.
    restartable_kafka.start()
    remote_on_primary = f"{backup}.{topic}"
    # The reverse flow's herder keeps its internal topics and group on the primary: it rejoins once the broker
    # is back, then its connectors start again. Slow on a loaded machine (a broker JVM starting, a session
    # timing out), hence the long deadline; the node's log says where it stood if it is missed.
    try:
        wait_until(
            lambda: len(read_records(primary_kafka, remote_on_primary)) == 15 * PARTITIONS,
            240,
            "the backup's records mirrored to the primary",
        )
    except AssertionError as missed:
        raise AssertionError(f"{missed}\n{node.log_tail(80)}") from None
    wait_until(
        lambda: translated_within_lag_max(reverse, remote_on_primary, 15),
        90,
        "the group's offsets on the backup's records checkpointed on the primary",
    )

    # 5. Fail-back: the consumers on the backup are stopped (read_as_group left), the reverse flow's translated
    #    offsets are written to the group on the primary, the producers and consumers move home.
    assert translate(reverse, "--apply").code == 0
    after = produce_per_partition(primary_kafka, topic, "after", 5)
    home = read_as_group(primary_kafka, group, every_partition({topic: 35, remote_on_primary: 15}))
    for partition in range(PARTITIONS):
        start, values = home[(remote_on_primary, partition)]
        assert 15 - LAG_MAX < start <= 15, "fail-back re-reads less than offset.lag.max of the backup's records"
        assert values == during[partition][start:]
        # The primary's own topic resumes from where the group got to on the backup's remote topic (30),
        # translated back with the forward flow's offset syncs: not from its last commit on the primary (20),
        # where Java's MirrorMaker would leave it.
        start, values = home[(topic, partition)]
        assert 30 - LAG_MAX < start <= 30, "fail-back re-reads less than offset.lag.max of the primary's records"
        assert values == before[partition][start:] + after[partition]
    assert node.alive(), node.log_tail()
