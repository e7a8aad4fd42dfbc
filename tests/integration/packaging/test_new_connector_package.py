"""`kconnect new connector`, tried as a plug-in author would, in a fresh virtual environment with kconnect's
wheel: the package it writes builds into a wheel, installs there, passes its own tests and `mypy --strict` as
written, and the environment's worker lists the connector and runs it on a real broker."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Consumer

from tests.support.plugin_projects import install_project, run_in
from tests.support.standalone_workers import KconnectProcess, all_running
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def first_values(bootstrap: str, topic: str, count: int, timeout: float = 60) -> list[bytes]:
    """The first `count` values of `topic` (a source that never stops writing: no reading to its end)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex, "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values: list[bytes] = []
    try:
        wait_until(lambda: _take(consumer, values) >= count, timeout, f"{count} records in {topic}", interval=0)
    finally:
        consumer.close()
    return values[:count]


def _take(consumer: Consumer, values: list[bytes]) -> int:
    message = consumer.poll(0.5)
    if message is not None and message.error() is None:
        values.append(message.value() or b"")
    return len(values)


@pytest.mark.parametrize("kind", ["source", "sink"])
def test_a_new_package_installed_beside_kconnect_passes_its_own_tests_and_mypy_strict(
    kind: str, plugin_environment: Path, tmp_path: Path
) -> None:
    written = run_in(plugin_environment, "kconnect", "new", "connector", f"my-{kind}", "--type", kind, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    project = tmp_path / f"my-{kind}"
    install_project(plugin_environment, project, tmp_path / "wheels")

    # The author's pytest and mypy, as the project's pyproject.toml sets them up, in the environment.
    tests = run_in(plugin_environment, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=project)
    typed = run_in(plugin_environment, "python", "-m", "mypy", "--no-incremental", cwd=project)

    # Two unit tests on the fakes, one in connect.testing's harness (a worker over Kafka in memory).
    assert tests.returncode == 0 and "3 passed" in tests.stdout, tests.stdout + tests.stderr
    assert typed.returncode == 0 and "Success" in typed.stdout, typed.stdout + typed.stderr


def test_a_worker_of_the_environment_lists_and_runs_a_new_source_package_once_its_wheel_is_installed(
    plugin_environment: Path, kafka_bootstrap: str, tmp_path: Path
) -> None:
    written = run_in(plugin_environment, "kconnect", "new", "connector", "counter-feed", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    install_project(plugin_environment, tmp_path / "counter-feed", tmp_path / "wheels")
    topic = f"counter-{uuid.uuid4().hex[:8]}"
    worker_file, connector_file = tmp_path / "worker.properties", tmp_path / "counter.properties"
    worker_file.write_text(
        f"bootstrap.servers={kafka_bootstrap}\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        f"offset.storage.file.filename={tmp_path / 'connect.offsets'}\n"
        "listeners=http://127.0.0.1:0\n"
    )
    connector_file.write_text(
        f"name=counter\nconnector.class=CounterFeedSourceConnector\ntopic={topic}\nbatch.size=5\npoll.interval.ms=100\n"
    )

    # The environment's own `kconnect` script, as the author would start it.
    command = [str(plugin_environment / "kconnect"), "standalone"]
    worker = KconnectProcess(worker_file, [connector_file], tmp_path / "worker.log", command=command)
    try:
        with httpx.Client(base_url=worker.url(), timeout=30) as client:
            plugins = {plugin["class"] for plugin in client.get("/connector-plugins").json()}
            assert "counter_feed.connector.CounterFeedSourceConnector" in plugins, plugins
            wait_until(lambda: all_running(client, "counter", 1), 60, "the new connector RUNNING")
            values = first_values(kafka_bootstrap, topic, 10)
    finally:
        worker.terminate()
    assert values == [str(n).encode() for n in range(10)]
