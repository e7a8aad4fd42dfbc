"""`kconnect kafka` against real brokers: the CLI's lifecycle, and acks=all on a 3-node quorum."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, Message, Producer
from confluent_kafka.admin import AdminClient

from local_kafka import processes
from tests.fixtures.kafka import free_port_block, new_topic

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]


def kconnect(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workers.cli", *args],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )


def brokers(bootstrap: str) -> set[int]:
    return set(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).brokers)


def test_cli_start_status_stop(tmp_path: Path, kafka_bootstrap: str) -> None:
    port = free_port_block(1)
    state = tmp_path / "state"

    started = kconnect("kafka", "start", "--port", str(port), "--dir", str(state), cwd=tmp_path)
    try:
        assert started.returncode == 0, started.stderr
        bootstrap = started.stdout.strip().splitlines()[-1]
        assert bootstrap == f"127.0.0.1:{port}"
        assert brokers(bootstrap) == {1}

        status = kconnect("kafka", "status", "--dir", str(state), cwd=tmp_path)
        assert status.returncode == 0, status.stdout
        assert f"bootstrap servers: {bootstrap}" in status.stdout
        pid = processes.read_pid(state / "node-1")
        assert pid is not None and f"running (pid {pid})" in status.stdout

        again = kconnect("kafka", "start", "--port", str(port), "--dir", str(state), cwd=tmp_path)
        assert again.returncode == 0 and again.stdout.strip().splitlines()[-1] == bootstrap
        assert processes.read_pid(state / "node-1") == pid
    finally:
        stopped = kconnect("kafka", "stop", "--dir", str(state), cwd=tmp_path)

    assert stopped.returncode == 0, stopped.stderr
    assert f"stopped pid(s) {pid}" in stopped.stdout
    assert not processes.is_ours(pid, state / "node-1")
    assert kconnect("kafka", "status", "--dir", str(state), cwd=tmp_path).returncode == 1
    # The session's broker (another directory, maybe another owner) must be untouched by that stop.
    assert brokers(kafka_bootstrap)
    assert (state / "node-1" / "logs" / "server.log").stat().st_size > 0


def test_acks_all_with_replication_factor_3_and_min_isr_2(kafka_cluster3: str) -> None:
    admin = AdminClient({"bootstrap.servers": kafka_cluster3})
    assert len(brokers(kafka_cluster3)) >= 3
    topic = new_topic(admin, partitions=1, replication_factor=3, config={"min.insync.replicas": "2"})
    partition = admin.list_topics(topic=topic, timeout=10).topics[topic].partitions[0]
    assert len(partition.replicas) == 3

    delivered: list[Message] = []
    failures: list[KafkaError] = []

    def on_delivery(error: KafkaError | None, message: Message) -> None:
        if error is not None:
            failures.append(error)
        else:
            delivered.append(message)

    producer = Producer({"bootstrap.servers": kafka_cluster3, "acks": "all", "enable.idempotence": True})
    value = uuid.uuid4().hex.encode()
    producer.produce(topic, key=b"k", value=value, on_delivery=on_delivery)
    assert producer.flush(30) == 0
    assert failures == [] and len(delivered) == 1

    consumer = Consumer(
        {
            "bootstrap.servers": kafka_cluster3,
            "group.id": f"kc-test-{uuid.uuid4().hex[:8]}",
            "auto.offset.reset": "earliest",
        }
    )
    try:
        consumer.subscribe([topic])
        received: list[bytes] = []
        deadline = time.monotonic() + 60
        while not received and time.monotonic() < deadline:
            message = consumer.poll(1.0)
            if message is not None and message.error() is None and (payload := message.value()) is not None:
                received.append(payload)
        assert received == [value]
    finally:
        consumer.close()
