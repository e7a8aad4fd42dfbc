"""`kconnect new connector`, tried as a plug-in author would: the package it writes passes its own tests and
`mypy --strict` against kconnect's installed wheel as written, builds into a wheel, and a worker whose Python
finds that wheel's installation lists the connector and runs it on a real broker."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Consumer

from tests.support.plugin_projects import PIP
from tests.support.standalone_workers import KconnectProcess, all_running
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def kconnect(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "workers.cli", *args], cwd=cwd, capture_output=True, text=True)


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
def test_a_new_package_passes_its_own_tests_and_mypy_strict_as_written(
    kind: str, plugin_environment: Path, tmp_path: Path
) -> None:
    assert kconnect("new", "connector", f"my-{kind}", "--type", kind, cwd=tmp_path).returncode == 0
    project = tmp_path / f"my-{kind}"
    # The author's own pytest, not this run's xdist worker or options.
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}

    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    # mypy as its pyproject.toml sets it up (strict, src and tests), against kconnect as a plug-in installs it.
    typed = subprocess.run(
        [sys.executable, "-m", "mypy", "--python-executable", str(plugin_environment), "--no-incremental"],
        cwd=project,
        capture_output=True,
        text=True,
    )

    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout + tests.stderr
    assert typed.returncode == 0 and "Success" in typed.stdout, typed.stdout + typed.stderr


def test_a_worker_lists_and_runs_a_new_source_package_once_its_wheel_is_installed(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    assert kconnect("new", "connector", "counter-feed", cwd=tmp_path).returncode == 0
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "-w", str(tmp_path / "wheels"), str(tmp_path / "counter-feed")], check=True
    )
    wheel = next((tmp_path / "wheels").glob("counter_feed-*.whl"))
    # Installed where the worker's Python looks (a folder on its path), as `pip install` beside kconnect would.
    subprocess.run([*PIP, "install", "--no-deps", "--target", str(tmp_path / "site"), str(wheel)], check=True)
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

    worker = KconnectProcess(
        worker_file, [connector_file], tmp_path / "worker.log", env={"PYTHONPATH": str(tmp_path / "site")}
    )
    try:
        with httpx.Client(base_url=worker.url(), timeout=30) as client:
            plugins = {plugin["class"] for plugin in client.get("/connector-plugins").json()}
            assert "counter_feed.connector.CounterFeedSourceConnector" in plugins, plugins
            wait_until(lambda: all_running(client, "counter", 1), 60, "the new connector RUNNING")
            values = first_values(kafka_bootstrap, topic, 10)
    finally:
        worker.terminate()
    assert values == [str(n).encode() for n in range(10)]
