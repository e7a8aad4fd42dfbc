"""`kconnect ctl`'s read-only commands against Apache Kafka Connect itself (Java `ConnectStandalone`, from
the Maven Central jars the benchmarks use, resolved once into a cache outside the repo): the client reads
a Java cluster's answers as it reads kconnect's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka.admin import AdminClient

from local_kafka.jars import default_version
from tests.fixtures.kafka import new_topic
from tests.support.ctl_process import ctl_json, run_ctl
from tests.support.java_connect_worker import java_standalone_worker
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

NAME = "java-files"


@dataclass(frozen=True)
class JavaWorker:
    url: str
    topic: str
    source: Path
    version: str


@pytest.fixture(scope="module")
def java_worker(
    kafka_bootstrap: str, kafka_admin: AdminClient, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[JavaWorker]:
    workdir = tmp_path_factory.mktemp("java-connect")
    with java_standalone_worker(kafka_bootstrap, workdir, {}) as url:
        source = workdir / "in.txt"
        source.write_text("one\ntwo\nthree\n")
        topic = new_topic(kafka_admin)
        config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic, "tasks.max": "1"}
        created = httpx.put(f"{url}/connectors/{NAME}/config", json=config, timeout=60)
        assert created.status_code == 201, created.text
        yield JavaWorker(url, topic, source, default_version())


def test_get_connectors_and_describe_a_java_connector(java_worker: JavaWorker) -> None:
    url = java_worker.url

    def running_table() -> list[list[str]] | None:
        rows = [line.split() for line in run_ctl(url, "get", "connectors").stdout.splitlines()]
        return rows if [NAME, "source", "RUNNING", "0:", "RUNNING"] in rows else None

    assert wait_until(running_table, 60, "the Java connector to run", interval=0.5)[0] == [
        "NAME",
        "TYPE",
        "STATE",
        "TASKS",
    ]

    def with_offsets() -> dict[str, Any] | None:
        described: dict[str, Any] = ctl_json(url, "describe", "connector", NAME)
        return described if described["offsets"] and described["topics"] else None

    described = wait_until(with_offsets, 60, "offsets and topics of the Java connector", interval=0.5)
    assert described["config"]["file"] == str(java_worker.source)
    assert described["topics"] == [java_worker.topic]
    assert described["offsets"][0]["partition"] == {"filename": str(java_worker.source)}
    assert described["tasks"][0]["state"] == "RUNNING"
    text = run_ctl(url, "describe", "connector", NAME).stdout
    assert "State:      RUNNING" in text and f"Topics:\n  {java_worker.topic}" in text
    assert run_ctl(url, "describe", "connector", "missing").returncode == 4


def test_plugins_loggers_and_offsets_of_java_connect(java_worker: JavaWorker) -> None:
    url = java_worker.url
    plugins = [line.split() for line in run_ctl(url, "get", "plugins").stdout.splitlines()]
    assert ["source", "org.apache.kafka.connect.file.FileStreamSourceConnector", java_worker.version] in plugins
    assert any(row[0] == "transformation" for row in plugins)

    loggers = run_ctl(url, "get", "loggers")
    assert loggers.returncode == 0 and any(line.split()[:2] == ["root", "INFO"] for line in loggers.stdout.splitlines())
    assert ctl_json(url, "logs", "level", "root")["level"] == "INFO"

    offsets = wait_until(
        lambda: ctl_json(url, "offsets", "get", NAME)["offsets"], 60, "committed offsets", interval=0.5
    )
    assert offsets[0]["offset"] == {"position": len("one\ntwo\nthree\n")}
