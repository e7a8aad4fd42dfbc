"""The config topic's connector records, with the `kconnect.user` header kconnect adds, read by Java Kafka
Connect itself (`ConnectDistributed` from Maven Central): Java takes over kconnect's group and topics, runs
and reconfigures the connector, and kconnect's history then shows both writers' versions."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.support.distributed_workers import WorkerProcess, worker_props
from tests.support.java_connect_worker import java_distributed_worker
from tests.support.secured_workers import EXTENSION, write_jaas
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

NAME = "shared-source"


def _connector_headers(bootstrap: str, topic: str) -> list[list[tuple[str, bytes]]]:
    """The headers of every `connector-<NAME>` record of the config topic, in order."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "kc-history-reader", "enable.partition.eof": True})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        found: list[list[tuple[str, bytes]]] = []
        while True:
            message = consumer.poll(10)
            assert message is not None, f"could not read {topic} to its end"
            if message.error() is not None:
                return found
            if message.key() == f"connector-{NAME}".encode():
                found.append([(k, v or b"") for k, v in message.headers() or []])
    finally:
        consumer.close()


def test_java_connect_reads_configs_kconnect_wrote_with_their_user_and_kconnect_shows_javas_versions(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    jaas = write_jaas(tmp_path, {"alice": "pw-alice"})
    environ = {"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}
    group = f"kc-java-history-{tmp_path.name[-8:]}"
    props = {**worker_props(kafka_bootstrap, group), "rest.extension.classes": EXTENSION}
    source = tmp_path / "in.txt"
    source.write_text("one\ntwo\n")
    first = {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{group}-t", "tasks.max": "1"}
    http = httpx.Client(timeout=30, auth=("alice", "pw-alice"))

    kconnect = WorkerProcess(f"{group}-kconnect", props, tmp_path)
    kconnect.start(env=environ)
    try:
        wait_until(lambda: _answers(http, kconnect.url), 60, "kconnect's REST API", interval=0.2)
        assert http.put(f"{kconnect.url}/connectors/{NAME}/config", json=first).status_code == 201
        # A graceful stop leaves the group at once: Java's workers may not join while a kconnect member is in it.
        kconnect.signal(signal.SIGTERM)
        kconnect.wait_exit(60)
    finally:
        kconnect.kill()
    assert _connector_headers(kafka_bootstrap, props["config.storage.topic"]) == [[("kconnect.user", b"alice")]]

    java_props = {key: value for key, value in props.items() if key != "rest.extension.classes"}
    java_props.pop("listeners")
    second = {**first, "tasks.max": "2"}
    java_dir = tmp_path / "java"
    java_dir.mkdir()
    with java_distributed_worker(kafka_bootstrap, java_dir, java_props) as java:
        seen = wait_until(lambda: _config(java), 120, "Java to read the connector kconnect wrote", interval=0.5)
        assert {key: value for key, value in seen.items() if key != "name"} == first
        assert httpx.put(f"{java}/connectors/{NAME}/config", json=second, timeout=60).status_code == 200

    kconnect.start(env=environ)
    try:
        wait_until(lambda: _answers(http, kconnect.url), 60, "kconnect's REST API again", interval=0.2)
        history = http.get(f"{kconnect.url}/connectors/{NAME}/history").json()
        assert [(v["version"], v["user"], v["config"]["tasks.max"]) for v in history] == [
            (1, "alice", "1"),
            (2, None, "2"),
        ]
        assert http.get(f"{kconnect.url}/connectors/{NAME}/config").json()["tasks.max"] == "2"
    finally:
        kconnect.kill()
        http.close()


def _answers(http: httpx.Client, url: str) -> bool:
    try:
        return http.get(f"{url}/connectors", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _config(url: str) -> dict[str, Any] | None:
    try:
        answer = httpx.get(f"{url}/connectors/{NAME}/config", timeout=5)
    except httpx.HTTPError:
        return None
    return json.loads(answer.text) if answer.status_code == 200 else None
