"""`kconnect mirror` processes (dedicated MirrorMaker 2 nodes) and the mm2.properties files they run, for the e2e
mirroring tests."""

from __future__ import annotations

from collections.abc import Mapping

from confluent_kafka import Producer

from tests.support.distributed_workers import WorkerProcess
from tests.support.mirrored_topics import read_records

CONNECTORS = ("MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector")


class MirrorNode(WorkerProcess):
    """One `kconnect mirror` process; its file is rewritten by `rewrite` before a restart."""

    subcommand = "mirror"

    def rewrite(self, props: Mapping[str, str]) -> None:
        self.props_file.write_text("".join(f"{k}={v}\n" for k, v in props.items()))


def mm2_file(source: str, target: str, a: str, b: str, topics: str) -> dict[str, str]:
    """A one-way mirror source -> target as a DR team writes it (single-broker clusters, so every topic with
    one replica), with short refresh intervals."""
    return {
        "clusters": f"{source}, {target}",
        f"{source}.bootstrap.servers": a,
        f"{target}.bootstrap.servers": b,
        f"{source}->{target}.enabled": "true",
        f"{source}->{target}.topics": topics,
        "tasks.max": "3",
        "refresh.topics.interval.seconds": "1",
        "emit.heartbeats.interval.seconds": "1",
        "sync.topic.configs.enabled": "false",
        "replication.factor": "1",
        **{
            f"{topic}.replication.factor": "1"
            for topic in (
                "checkpoints.topic",
                "heartbeats.topic",
                "offset-syncs.topic",
                "config.storage",
                "offset.storage",
                "status.storage",
            )
        },
    }


def produce_values(bootstrap: str, topic: str, values: list[str]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for n, value in enumerate(values):
        producer.produce(topic, value.encode(), f"key-{n}".encode())
    assert producer.flush(30) == 0


def mirrored_values(bootstrap: str, topic: str) -> list[str]:
    return sorted((record.value or b"").decode() for record in read_records(bootstrap, topic))
