"""How soon a sink sees a record: the sink consumer returns what is there, and FileStreamSink writes it at once."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from confluent_kafka import Producer

from connect.api.records import TopicPartition
from connect.converters import SimpleHeaderConverter, StringConverter
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.kafka import KafkaClients, KafkaMessage
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from connectors.file.sink import FileStreamSinkConnector
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.timed]

# Well below the consume timeouts used here (10 s), well above a broker round trip on a busy machine.
PROMPT_S = 2.0


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    for value in values:
        producer.produce(topic, value)
    assert producer.flush(10) == 0


class AssignmentListener:
    def __init__(self) -> None:
        self.assigned: list[TopicPartition] = []

    def on_partitions_assigned(self, partitions: list[TopicPartition]) -> Mapping[TopicPartition, int]:
        self.assigned.extend(partitions)
        return {}

    def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
        pass

    def on_partitions_lost(self, partitions: list[TopicPartition]) -> None:
        pass


def test_consume_returns_the_records_there_are_without_waiting_for_a_full_batch(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    clients = KafkaClients(
        producer_props={"bootstrap.servers": kafka_bootstrap},
        consumer_props={"bootstrap.servers": kafka_bootstrap, "group.id": f"g-{uuid.uuid4().hex[:8]}"},
        admin_props={"bootstrap.servers": kafka_bootstrap},
    )
    consumer = clients.sink_consumer(ConnectorTaskId("c", 0), {})
    listener = AssignmentListener()
    try:
        consumer.subscribe([unique_topic], None, listener)
        produce(kafka_bootstrap, unique_topic, [b"a", b"b", b"c"])
        received: list[KafkaMessage] = []
        deadline = time.monotonic() + 60
        while len(received) < 3 and time.monotonic() < deadline:
            received += consumer.consume(500, 10.0)
        assert [m.value() for m in received] == [b"a", b"b", b"c"]
        assert listener.assigned == [TopicPartition(unique_topic, 0)]

        # Now that the group is joined, one new record comes back as soon as it is fetched, not after
        # the timeout that a batch of 500 would need.
        started = time.monotonic()
        produce(kafka_bootstrap, unique_topic, [b"d"])
        later = consumer.consume(500, 10.0)
        assert [m.value() for m in later] == [b"d"]
        assert time.monotonic() - started < PROMPT_S
        # Nothing there: the timeout is still honoured.
        started = time.monotonic()
        assert consumer.consume(500, 0.2) == []
        assert time.monotonic() - started >= 0.15
    finally:
        consumer.close()


@pytest.fixture
def worker(kafka_bootstrap: str) -> Iterator[Worker]:
    props = {
        "bootstrap.servers": kafka_bootstrap,
        "key.converter": "StringConverter",
        "value.converter": "StringConverter",
        # Far beyond the test: a line must not wait for the commit to be written.
        "offset.flush.interval.ms": "600000",
    }
    worker = Worker(
        worker_id="latency-worker",
        config=WorkerConfig.from_props(props),
        plugins=PluginRegistry.of(FileStreamSinkConnector, StringConverter, SimpleHeaderConverter),
        offset_store=MemoryOffsetStore(),
        status=MemoryStatusStore("latency-worker"),
    )
    worker.start()
    yield worker
    worker.stop()


def test_file_sink_lines_are_readable_promptly_not_at_the_next_commit(
    worker: Worker, kafka_bootstrap: str, unique_topic: str, tmp_path: Path
) -> None:
    output = tmp_path / "out.txt"
    name = f"file-sink-{uuid.uuid4().hex[:8]}"
    config = {"name": name, "connector.class": "FileStreamSinkConnector", "tasks.max": "1"}
    config |= {"topics": unique_topic, "file": str(output)}
    worker.start_connector(name, config, TargetState.STARTED, lambda _: None)
    task_config = worker.connector_task_configs(name, 1)[0]
    worker.start_task(ConnectorTaskId(name, 0), config, task_config, TargetState.STARTED)

    def text() -> str:
        return output.read_text() if output.exists() else ""

    produce(kafka_bootstrap, unique_topic, [b"first"])
    wait_until(lambda: text() == "first\n", 60, "the first line (group join included)")
    for line in ("second", "third"):
        sent = time.monotonic()
        produce(kafka_bootstrap, unique_topic, [line.encode()])
        wait_until(lambda line=line: text().endswith(f"{line}\n"), 30, f"line {line!r}", interval=0.005)  # type: ignore[misc]
        seen = time.monotonic()
        assert seen - sent < PROMPT_S
    assert text() == "first\nsecond\nthird\n"
