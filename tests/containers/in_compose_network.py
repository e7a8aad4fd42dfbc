"""Run inside a worker container of a compose project (`ComposeProject.exec_python`), where the brokers'
advertised names resolve: `count TOPIC [BOOTSTRAP]` prints how many records the topic holds (on the worker's
cluster, or the one at BOOTSTRAP) and how many distinct values; `replicas TOPIC...` prints each topic's
replica count per partition; `spark` prints the Spark master's workers (their state and cores in use) and its
running applications. JSON on stdout.

It uses only the image's own packages (confluent_kafka) and the worker's KCONNECT_BOOTSTRAP_SERVERS.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
import uuid

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

BOOTSTRAP = os.environ["KCONNECT_BOOTSTRAP_SERVERS"]
TIMEOUT_S = 30.0


def count(topic: str, bootstrap: str = BOOTSTRAP) -> dict[str, int]:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"kc-compose-check-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        partitions = consumer.list_topics(topic, timeout=TIMEOUT_S).topics[topic].partitions
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=TIMEOUT_S)[1] for p in partitions}
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        positions = dict.fromkeys(partitions, 0)
        values: list[bytes] = []
        while any(positions[p] < end for p, end in ends.items()):
            message = consumer.poll(TIMEOUT_S)
            if message is None:
                raise SystemExit(f"no record within {TIMEOUT_S} s; read {len(values)} of {sum(ends.values())}")
            if message.error() is not None:
                continue  # partition EOF and the like
            positions[message.partition()] = message.offset() + 1
            values.append(message.value() or b"")
        return {"records": len(values), "distinct": len(set(values))}
    finally:
        consumer.close()


def replicas(topics: list[str]) -> dict[str, list[int]]:
    metadata = AdminClient({"bootstrap.servers": BOOTSTRAP}).list_topics(timeout=TIMEOUT_S).topics
    return {
        topic: [len(partition.replicas) for partition in metadata[topic].partitions.values()]
        for topic in topics
        if topic in metadata
    }


def spark() -> dict[str, list[dict[str, object]]]:
    """The Spark standalone master's own view (its web UI's JSON), from inside the project's network."""
    with urllib.request.urlopen("http://spark-master:8080/json/", timeout=TIMEOUT_S) as answer:
        state = json.load(answer)
    return {
        "workers": [{"state": w["state"], "coresused": w["coresused"]} for w in state["workers"]],
        "apps": [{"name": a["name"], "cores": a["cores"]} for a in state["activeapps"]],
    }


def main(argv: list[str]) -> None:
    command, *names = argv
    result: object = {"count": lambda: count(*names[:2]), "spark": spark}.get(command, lambda: replicas(names))()
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
