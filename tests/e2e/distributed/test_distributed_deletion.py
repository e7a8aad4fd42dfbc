"""Connectors deleted while the worker that ran them was dead: their statuses end up deleted from the status
topic, and a connector re-created under the same name never shows what the old one left behind."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.support.distributed_workers import Cluster, datagen_config, make_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e


def latest_values(bootstrap: str, topic: str) -> dict[str, bytes | None]:
    """The last value of every key of `topic` (None: a tombstone), read to the end."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"kc-e2e-{uuid.uuid4().hex[:8]}", "enable.auto.commit": False}
    )
    try:
        partitions = sorted(consumer.list_topics(topic, timeout=10).topics[topic].partitions)
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in partitions}
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        positions = dict.fromkeys(partitions, 0)
        values: dict[str, bytes | None] = {}
        while any(positions[p] < ends[p] for p in partitions):
            for message in consumer.consume(500, 1.0):
                partition, offset, key = message.partition(), message.offset(), message.key()
                if message.error() is None and partition is not None and offset is not None and key is not None:
                    values[key.decode()] = message.value()
                    positions[partition] = offset + 1
        return values
    finally:
        consumer.close()


def test_statuses_of_connectors_deleted_while_their_worker_was_dead_are_deleted(
    clusters: Callable[..., Cluster],
) -> None:
    cluster = clusters(3)
    topic = make_topic(cluster.bootstrap, 4)
    cluster.create("gone", datagen_config(cluster, topic, tasks=4, rate=20))
    cluster.create("dropped", datagen_config(cluster, topic, tasks=2, rate=20))
    owners = wait_until(lambda: cluster.running_on(["gone", "dropped"], 6, cluster.workers), 45, "6 tasks RUNNING")
    busiest, _ = Counter(w for task, w in owners.items() if task.startswith("gone-")).most_common(1)[0]
    victim = next(w for w in cluster.workers if w.worker_id == busiest)
    survivors = [w for w in cluster.workers if w is not victim]

    victim.kill()  # its session lasts a few seconds more: the group still gives it its slots
    for name in ("gone", "dropped"):
        assert cluster.request("DELETE", f"/connectors/{name}", via=survivors[0]).status_code == 204
    for worker in survivors:
        assert cluster.request("GET", "/connectors/gone/status", via=worker).status_code == 404
        assert cluster.request("GET", "/connectors/dropped/status", via=worker).status_code == 404
    # Three tasks: the victim ran at least two of the four, so at least one of its keys is in use again.
    cluster.create("gone", datagen_config(cluster, topic, tasks=3, rate=20), via=survivors[1])

    def new_incarnation_running() -> dict[str, Any] | None:
        status = cluster.status("gone", via=survivors[0])
        if status is None:
            return None
        shown = [status["connector"], *status["tasks"]]
        assert all(s["worker_id"] != victim.worker_id for s in shown), f"an old status is shown: {status}"
        assert all(t["id"] < 3 for t in status["tasks"]), status
        return status if len(shown) == 4 and all(s["state"] == "RUNNING" for s in shown) else None

    wait_until(new_incarnation_running, 30, "the re-created connector RUNNING on the survivors", interval=0.02)

    removed = ["status-task-gone-3", "status-connector-dropped"]
    removed += ["status-task-dropped-0", "status-task-dropped-1"]
    wait_until(
        lambda: all(latest_values(cluster.bootstrap, f"{cluster.group}-status").get(k, b"") is None for k in removed),
        15,
        f"tombstones for {removed}",
        interval=0.5,
    )
