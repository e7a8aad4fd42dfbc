"""Config providers in a standalone worker with real Kafka and the file connectors: a secret that changes
behind a provider with a TTL restarts the connector and its task with the new value, and resolved values
are hidden in the log lines of tasks, on threads and in task processes alike."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.standalone_workers import all_running, line_count, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def test_a_changed_secret_restarts_the_task_with_the_new_value(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    secrets = tmp_path / "secrets.properties"
    first_out, second_out, source_file = tmp_path / "first.txt", tmp_path / "second.txt", tmp_path / "in.txt"
    secrets.write_text(f"sink.file={first_out}\n")
    props = worker_props(
        kafka_bootstrap,
        tmp_path / "connect.offsets",
        **{
            "config.providers": "vault",
            "config.providers.vault.class": "tests.support.ttl_provider.TtlFileConfigProvider",
            "config.providers.vault.param.ttl.ms": "300",
        },
    )
    sink = {"connector.class": "FileStreamSink", "topics": topic, "file": f"${{vault:{secrets}:sink.file}}"}
    source = {"connector.class": "FileStreamSource", "topic": topic, "file": str(source_file)}
    source_file.write_text("".join(f"before-{i}\n" for i in range(100)))
    with running_worker(props) as (_, client):
        assert client.post("/connectors", json={"name": "src", "config": source}).status_code == 201
        assert client.post("/connectors", json={"name": "sink", "config": sink}).status_code == 201
        wait_until(lambda: line_count(first_out) >= 100, 60, "the first lines in the first file", interval=0.2)
        # Unchanged values: TTLs pass, nothing restarts, everything still lands in the first file.
        assert client.get("/connectors/sink/config").json()["file"] == sink["file"]

        secrets.write_text(f"sink.file={second_out}\n")
        wait_until(lambda: second_out.exists(), 30, "the sink restarted on the new file", interval=0.1)
        with source_file.open("a") as handle:
            handle.write("".join(f"after-{i}\n" for i in range(100)))
        wait_until(lambda: line_count(second_out) >= 100, 60, "the new lines in the second file", interval=0.2)
        assert all_running(client, "sink", 1)
        assert client.get("/connectors/sink/config").json()["file"] == sink["file"]
        assert str(second_out) not in client.get("/connectors/sink/tasks").text

    assert set(first_out.read_text().splitlines()) == {f"before-{i}" for i in range(100)}
    assert "after-99" in second_out.read_text().splitlines()


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_a_resolved_value_is_hidden_in_log_lines_of_tasks_on_threads_and_in_task_processes(
    kafka_bootstrap: str,
    topic_factory: Callable[..., str],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    isolation: str,
) -> None:
    secret_path = tmp_path / f"secret-name-{isolation}-4be1.txt"  # never created: the task logs that it waits
    secrets = tmp_path / "secrets.properties"
    secrets.write_text(f"path={secret_path}\n")
    props = worker_props(
        kafka_bootstrap,
        tmp_path / "connect.offsets",
        **{
            "task.isolation": isolation,
            "config.providers": "file",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
        },
    )
    source = {"connector.class": "FileStreamSource", "topic": topic_factory(), "file": f"${{file:{secrets}:path}}"}
    with caplog.at_level(logging.INFO), running_worker(props) as (_, client):
        assert client.post("/connectors", json={"name": "src", "config": source}).status_code == 201
        wait_until(
            lambda: "Couldn't find file [hidden] for FileStreamSourceTask" in caplog.text,
            30,
            "the task's warning about its missing file",
        )
    assert "Starting file source connector reading from [hidden]" in caplog.text
    assert str(secret_path) not in caplog.text
