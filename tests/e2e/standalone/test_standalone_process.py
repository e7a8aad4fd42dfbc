"""`kconnect standalone` as a user runs it, driven only through REST and signals: a worker killed with
SIGKILL loses no data (at-least-once), and its connectors come back from the files on its command line."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.support.standalone_workers import KconnectProcess, all_running, line_count
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e


def _lines(path: Path, start: int, count: int) -> list[str]:
    lines = [f"event {i}" for i in range(start, start + count)]
    with path.open("a") as handle:
        handle.write("".join(line + "\n" for line in lines))
    return lines


def test_sigkilled_worker_restarts_without_losing_data(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={kafka_bootstrap}\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        f"offset.storage.file.filename={tmp_path / 'connect.offsets'}\n"
        "offset.flush.interval.ms=500\n"
        "listeners=http://127.0.0.1:0\n"
        # Worker-level client settings: the sink's consumer group notices the killed member quickly.
        "consumer.session.timeout.ms=6000\n"
        "consumer.heartbeat.interval.ms=1000\n"
        "plugin.path=/opt/connectors\n"
    )
    source = tmp_path / "source.properties"
    source.write_text(f"name=e2e-source\nconnector.class=FileStreamSource\nfile={source_file}\ntopic={topic}\n")
    sink = tmp_path / "sink.properties"
    sink.write_text(f"name=e2e-sink\nconnector.class=FileStreamSink\nfile={sink_file}\ntopics={topic}\n")

    expected = _lines(source_file, 0, 2000)
    first = KconnectProcess(worker, [source, sink], tmp_path / "first.log")
    try:
        with httpx.Client(base_url=first.url(), timeout=30) as client:
            assert client.get("/health").json()["status"] == "healthy"
            assert sorted(client.get("/connectors").json()) == ["e2e-sink", "e2e-source"]
            wait_until(lambda: line_count(sink_file) >= 2000, 60, "the first 2000 lines")
        assert "plugin.path is ignored" in first.log_tail(200)
        os.kill(first.process.pid, signal.SIGKILL)
        assert first.process.wait(30) == -signal.SIGKILL
    finally:
        first.kill()

    expected += _lines(source_file, 2000, 1000)
    second = KconnectProcess(worker, [source, sink], tmp_path / "second.log")
    try:
        with httpx.Client(base_url=second.url(), timeout=30) as client:
            wait_until(lambda: all_running(client, "e2e-source", 1), 60, "the source to run again")
            wait_until(lambda: all_running(client, "e2e-sink", 1), 60, "the sink to run again")

            def delivered() -> bool:
                return set(sink_file.read_text().splitlines()) >= set(expected)

            wait_until(delivered, 90, "every line in the sink file", interval=0.5)
    finally:
        assert second.terminate() == 0, second.log_tail()

    written = sink_file.read_text().splitlines()
    # At-least-once after a crash: every line arrives, in order of first appearance; repeats are allowed.
    assert list(dict.fromkeys(written)) == expected


def test_connector_file_that_fails_validation_stops_the_worker_with_exit_code_3(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={kafka_bootstrap}\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        f"offset.storage.file.filename={tmp_path / 'connect.offsets'}\n"
        "listeners=http://127.0.0.1:0\n"
    )
    connector = tmp_path / "bad.json"
    connector.write_text('{"name": "bad", "config": {"connector.class": "FileStreamSource", "tasks.max": "0"}}')
    process = KconnectProcess(worker, [connector], tmp_path / "worker.log")
    try:
        code = process.process.wait(60)
    finally:
        process.kill()
    log = process.log_tail(200)
    assert code == 3, log
    assert "Stopping after connector error" in log
    assert "Connector configuration is invalid and contains the following 2 error(s)" in log
    assert "Kafka Connect stopped" in log
