"""The sinks of a failover cluster, and when records produced right after a fault reach their files.

A task's status is not its data: a sink task shown RUNNING on a survivor writes nothing until its consumer
has the partitions the dead worker's consumer held, which Kafka's group hands over only once that member is
gone. So each fault is also timed until one record produced to every partition of every sink topic, just
after the signal, is in the sinks' output files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from confluent_kafka import Producer

from bench.broker import KafkaAdmin
from bench.clients import new_producer
from bench.harness import RunContext, wait_until
from bench.settings import FILE_SINK
from bench.systems.cluster import WorkerCluster

SINK_CONNECTORS = 2
SINK_TASKS = 3
SINK_PARTITIONS = 6
FLOWING_WAIT_S = 120.0
MARKER_ACK_TIMEOUT_S = 30.0


class OutputFile:
    """One sink's output file, read on from where the last look ended; a line still being written waits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._partial = b""

    def new_lines(self) -> list[str]:
        try:
            with self.path.open("rb") as file:
                file.seek(self._offset)
                chunk = file.read()
        except FileNotFoundError:
            return []
        self._offset += len(chunk)
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        return [line.decode(errors="replace") for line in complete]


@dataclass
class MarkerWatch:
    """The markers of the latest `expect` not yet seen in any of `outputs` (older ones are let go: a trial that
    gave up on its markers must not hold up the next)."""

    outputs: Sequence[OutputFile]
    missing: set[str] = field(default_factory=set)

    def expect(self, markers: Iterable[str]) -> None:
        self.missing = set(markers)

    def arrived(self) -> bool:
        for output in self.outputs:
            self.missing.difference_update(output.new_lines())
        return not self.missing


def task_consumers_settled(connector: str, members: Sequence[tuple[str, int]]) -> bool:
    """One member per task, named as both systems name a sink task's consumer, each holding partitions."""
    wanted = sorted(f"connector-consumer-{connector}-{task}" for task in range(SINK_TASKS))
    return sorted(client_id for client_id, _ in members) == wanted and all(held > 0 for _, held in members)


@dataclass
class FailoverSinks:
    """FileStreamSink connectors of `SINK_TASKS` tasks, each over its own topic of `SINK_PARTITIONS` partitions."""

    names: list[str]
    topics: list[str]
    producer: Producer
    watch: MarkerWatch
    _sent: int = 0

    @classmethod
    def create(cls, ctx: RunContext, cluster: WorkerCluster) -> FailoverSinks:
        outputs_dir = cluster.workdir / "outputs"
        outputs_dir.mkdir(parents=True, exist_ok=True)
        names, topics, outputs = [], [], []
        for index in range(SINK_CONNECTORS):
            name, topic = f"failover-sink-{index}", ctx.unique("failover-sink")
            ctx.admin.create_topic(topic, SINK_PARTITIONS)
            path = outputs_dir / f"{name}.txt"
            config = {"connector.class": FILE_SINK, "tasks.max": str(SINK_TASKS), "file": str(path), "topics": topic}
            cluster.rest.create(name, config)
            names.append(name)
            topics.append(topic)
            outputs.append(OutputFile(path))
        producer = new_producer(ctx.bootstrap_servers, {"acks": "all", "linger.ms": "0"})
        return cls(names, topics, producer, MarkerWatch(outputs))

    @property
    def tasks(self) -> int:
        return SINK_CONNECTORS * SINK_TASKS

    def send_markers(self, tag: str) -> None:
        """One record to every partition of every sink topic, acknowledged, and expected in the outputs."""
        self._sent += 1
        markers = []
        for topic in self.topics:
            for partition in range(SINK_PARTITIONS):
                marker = f"{tag}-{self._sent}-{topic}-{partition}"
                self.producer.produce(topic, marker.encode(), partition=partition)
                markers.append(marker)
        self.watch.expect(markers)
        if self.producer.flush(MARKER_ACK_TIMEOUT_S):
            raise RuntimeError(f"markers not acknowledged within {MARKER_ACK_TIMEOUT_S:.0f} s")

    def wait_flowing(self, admin: KafkaAdmin) -> None:
        """Every sink task's consumer, and nothing else, in its stable group with partitions, and records
        produced to every sink partition in the outputs: the steady state a trial starts from. (The records
        alone could reach the outputs through other tasks while one task's consumer is still joining, and a
        dead instance's consumer stays a member until its session expires.)"""

        def groups_settled() -> bool:
            for name in self.names:
                members = admin.group_member_partitions(f"connect-{name}")
                if members is None or not task_consumers_settled(name, members):
                    return False
            return True

        try:
            wait_until(groups_settled, FLOWING_WAIT_S, interval=0.1, what="every sink task's consumer with partitions")
        except TimeoutError as exc:
            seen = {name: admin.group_summary(f"connect-{name}") for name in self.names}
            raise TimeoutError(f"{exc}; the sinks' groups: {seen}") from exc
        self.send_markers("steady")
        wait_until(self.watch.arrived, FLOWING_WAIT_S, interval=0.1, what="records in every sink partition's output")

    def close(self, ctx: RunContext) -> None:
        self.producer.flush(MARKER_ACK_TIMEOUT_S)
        ctx.admin.delete_topics(self.topics)
