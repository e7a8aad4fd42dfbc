"""Exactly-once mirroring (KIP-618's path, as Java's MirrorMaker 2 takes it since Kafka 3.5): a worker running
the mirror's tasks is killed with SIGKILL while records keep arriving on the source cluster, and a
`read_committed` reader of the target finds every source record exactly once."""

from __future__ import annotations

import signal
import threading
import uuid
from collections import Counter
from collections.abc import Callable

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from tests.fixtures.kafka import new_topic
from tests.support.distributed_workers import Cluster, topic_keys
from tests.support.mirror_flows import flow_config
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

RECORDS = 8000
PARTITIONS = 4


def produce_steadily(bootstrap: str, topic: str, stop: threading.Event) -> None:
    """`RECORDS` keyed records in batches of 200, about 1,000 a second, so the kill lands mid-stream."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for start in range(0, RECORDS, 200):
        for n in range(start, start + 200):
            producer.produce(topic, f"value-{n}".encode(), f"key-{n}".encode(), n % PARTITIONS)
        assert producer.flush(30) == 0
        if stop.wait(0.2):
            return


def test_a_worker_killed_mid_stream_leaves_every_source_record_exactly_once_on_the_target(
    clusters: Callable[..., Cluster], other_kafka_bootstrap: str
) -> None:
    source = other_kafka_bootstrap
    cluster = clusters(2, exactly_once_source_support="enabled")
    alias = f"eos{uuid.uuid4().hex[:6]}"
    topic = new_topic(AdminClient({"bootstrap.servers": source}), PARTITIONS, prefix=f"eos-{alias}")
    remote = f"{alias}.{topic}"
    name = f"{alias}-mirror"
    config = {
        **flow_config(source, cluster.bootstrap, topic, alias, "B"),
        "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        "tasks.max": "2",
        "exactly.once.support": "required",
        "source.consumer.isolation.level": "read_committed",
    }
    stop = threading.Event()
    producing = threading.Thread(target=produce_steadily, args=(source, topic, stop), daemon=True)
    producing.start()
    try:
        cluster.create(name, config)
        owners = cluster.wait_running_on([name], 2, cluster.workers, 60, "both mirror tasks running")
        wait_until(
            lambda: len(topic_keys(cluster.bootstrap, remote, committed_only=True)) > RECORDS // 4,
            60,
            "a quarter of the records mirrored",
            interval=0.5,
        )
        victim = next(w for w in cluster.workers if w.worker_id == owners[f"{name}-0"])
        victim.signal(signal.SIGKILL)
        producing.join(60)
        assert not producing.is_alive(), "the source producer did not finish"
    finally:
        stop.set()

    expected = {f"key-{n}" for n in range(RECORDS)}
    survivor = next(w for w in cluster.workers if w is not victim)
    cluster.wait_running_on([name], 2, [survivor], 60, "both tasks on the survivor")
    wait_until(
        lambda: set(topic_keys(cluster.bootstrap, remote, committed_only=True)) == expected,
        120,
        "every source record on the target",
        interval=0.5,
    )
    committed = Counter(topic_keys(cluster.bootstrap, remote, committed_only=True))
    duplicates = {key: n for key, n in committed.items() if n > 1}
    assert duplicates == {}, f"{len(duplicates)} records mirrored more than once, e.g. {sorted(duplicates)[:5]}"
