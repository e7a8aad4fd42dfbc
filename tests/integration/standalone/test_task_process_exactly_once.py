"""An exactly-once source task (KIP-618) in a task process: it writes its records and its offsets in its own
transactions from there, and a task process killed mid-stream loses nothing and repeats nothing that a
`read_committed` consumer sees, once the task is restarted."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import KafkaClients
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import KafkaOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.task_process import ProcessWorkerTask
from connect.runtime.worker import Worker
from tests.fixtures.kafka import TopicFactory
from tests.support.topic_reads import read_topic
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

LINES = 20_000


class ExactlyOnceWorker:
    def __init__(self, bootstrap: str, offsets_topic: str) -> None:
        config = WorkerConfig.from_props(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"eos-{uuid.uuid4().hex[:6]}",
                "key.converter": "StringConverter",
                "value.converter": "StringConverter",
                "exactly.once.source.support": "enabled",
                "task.isolation": "process",
                "task.shutdown.graceful.timeout.ms": "5000",
            }
        )
        clients = KafkaClients.from_worker_config(config)
        self.store = KafkaOffsetStore(offsets_topic, clients, start_timeout=30)
        self.status = MemoryStatusStore("eos-worker")
        self.worker = Worker(
            worker_id="eos-worker",
            config=config,
            plugins=PluginRegistry.discover(),
            offset_store=self.store,
            status=self.status,
            clients=clients,
        )
        self.worker.start()

    def start_task(self, task_id: ConnectorTaskId, config: dict[str, str]) -> None:
        self.worker.start_task(task_id, config, dict(config), TargetState.STARTED)

    def state(self, task_id: ConnectorTaskId) -> State | None:
        status = self.status.task_status(task_id)
        return None if status is None else status.state


@pytest.fixture
def eos_worker(kafka_bootstrap: str, topic_factory: TopicFactory) -> Iterator[ExactlyOnceWorker]:
    offsets_topic = topic_factory(partitions=5, config={"cleanup.policy": "compact"})
    worker = ExactlyOnceWorker(kafka_bootstrap, offsets_topic)
    yield worker
    worker.worker.stop()


def test_a_killed_task_process_of_an_exactly_once_source_repeats_nothing_after_a_restart(
    eos_worker: ExactlyOnceWorker, kafka_bootstrap: str, topic_factory: TopicFactory, tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    source_file = tmp_path / "in.txt"
    source_file.write_text("".join(f"line {i}\n" for i in range(LINES)))
    name = f"eos-{uuid.uuid4().hex[:6]}"
    config = {
        "name": name,
        "connector.class": "FileStreamSource",
        "file": str(source_file),
        "topic": topic,
        "batch.size": "100",
        "exactly.once.support": "required",
        "transaction.boundary": "poll",
    }
    task_id = ConnectorTaskId(name, 0)
    eos_worker.start_task(task_id, config)
    runner = eos_worker.worker.task(task_id)
    assert isinstance(runner, ProcessWorkerTask)
    pid = runner.pid
    assert pid is not None and pid != os.getpid()

    def some_committed() -> bool:
        return len(read_topic(kafka_bootstrap, topic, 1, "read_committed")) >= 1000

    wait_until(some_committed, 60, what="the first transactions committed from the task process")
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: eos_worker.state(task_id) is State.FAILED, 20, what="the killed task FAILED")

    eos_worker.worker.stop_tasks([task_id])
    eos_worker.start_task(task_id, config)

    def all_committed() -> bool:
        return len(read_topic(kafka_bootstrap, topic, 1, "read_committed")) >= LINES

    wait_until(all_committed, 90, what="every line committed after the restart")
    committed = [value.decode() for value in read_topic(kafka_bootstrap, topic, 1, "read_committed")]
    assert committed == [f"line {i}" for i in range(LINES)], "each line exactly once, in order"
