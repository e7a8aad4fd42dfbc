"""`kconnect ctl` run as a process against a real `kconnect standalone` worker over the real broker: what a
user types and reads, and the exit codes a script relies on. One worker serves the module's tests; each
test has connectors of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from tests.fixtures.kafka import new_topic
from tests.support.ctl_process import ctl_json, run_ctl
from tests.support.standalone_workers import KconnectProcess, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Env:
    url: str
    topic: str
    data: Path

    def source_file(self, name: str, lines: int = 5) -> Path:
        source = self.data / f"{name}.in"
        source.write_text("".join(f"{name} line {i}\n" for i in range(lines)))
        return source

    def properties(self, name: str) -> Path:
        path = self.data / f"{name}.properties"
        path.write_text(
            f"name={name}\nconnector.class=FileStreamSource\ntasks.max=1\n"
            f"file={self.source_file(name)}\ntopic={self.topic}\n"
        )
        return path

    def description(self, name: str) -> dict[str, Any]:
        described: dict[str, Any] = ctl_json(self.url, "describe", "connector", name)
        return described

    def wait_state(self, name: str, state: str) -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            described = self.description(name)
            tasks_there = all(task["state"] == state for task in described["tasks"])
            return described if described["state"] == state and tasks_there else None

        return wait_until(reached, 60, f"{name} to be {state}", interval=0.3)


@pytest.fixture(scope="module")
def env(kafka_bootstrap: str, kafka_admin: AdminClient, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    data = tmp_path_factory.mktemp("ctl-standalone")
    worker_file = data / "worker.properties"
    props = worker_props(kafka_bootstrap, data / "connect.offsets")
    worker_file.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    worker = KconnectProcess(worker_file, [], data / "worker.log")
    try:
        yield Env(worker.url(), new_topic(kafka_admin), data)
    finally:
        worker.terminate()


def test_apply_a_properties_file_then_get_describe_and_apply_again(env: Env) -> None:
    file = env.properties("ctl-files")

    created = run_ctl(env.url, "apply", "-f", str(file))
    assert (created.returncode, created.stdout.strip()) == (0, "Created connector ctl-files"), created.stderr

    env.wait_state("ctl-files", "RUNNING")
    table = run_ctl(env.url, "get", "connectors").stdout.splitlines()
    assert table[0].split() == ["NAME", "TYPE", "STATE", "TASKS"]
    assert ["ctl-files", "source", "RUNNING", "0:", "RUNNING"] in [line.split() for line in table]

    # Offsets are committed every second (offset.flush.interval.ms=1000): the five lines are read by then.
    described = wait_until(
        lambda: (d := env.description("ctl-files"))["offsets"] and d["topics"] and d, 60, "offsets and topics"
    )
    assert described["config"]["file"] == str(env.data / "ctl-files.in")
    assert described["topics"] == [env.topic]
    assert described["offsets"][0]["offset"]["position"] > 0
    text = run_ctl(env.url, "describe", "connector", "ctl-files").stdout
    for expected in ("Name:       ctl-files", "State:      RUNNING", f"  topic:            {env.topic}", "Topics:"):
        assert expected in text, text

    again = run_ctl(env.url, "apply", "-f", str(file))
    assert (again.returncode, again.stdout.strip()) == (0, "Unchanged connector ctl-files")


def test_pause_restart_stop_reset_offsets_and_delete(env: Env) -> None:
    name = "ctl-lifecycle"
    body = {
        "name": name,
        "config": {"connector.class": "FileStreamSource", "file": str(env.source_file(name)), "topic": env.topic},
    }
    assert run_ctl(env.url, "apply", "-f", "-", stdin=json.dumps(body)).stdout.strip() == f"Created connector {name}"
    env.wait_state(name, "RUNNING")

    assert run_ctl(env.url, "pause", name).stdout.strip() == f"Paused connector {name}"
    env.wait_state(name, "PAUSED")
    assert run_ctl(env.url, "resume", name).returncode == 0
    env.wait_state(name, "RUNNING")
    restarted = run_ctl(env.url, "restart", name, "--tasks", "failed")
    assert restarted.returncode == 0 and f"Restarted connector {name} and its failed tasks" in restarted.stdout

    offsets = wait_until(lambda: ctl_json(env.url, "offsets", "get", name)["offsets"], 60, "committed offsets")
    assert offsets[0]["partition"] == {"filename": str(env.data / f"{name}.in")}
    assert "PARTITION" in run_ctl(env.url, "offsets", "get", name).stdout

    refused = run_ctl(env.url, "offsets", "reset", name)
    assert refused.returncode == 1
    assert "offsets can only be reset while it is STOPPED" in refused.stderr

    assert run_ctl(env.url, "stop", name).stdout.strip() == f"Stopped connector {name}"
    env.wait_state(name, "STOPPED")
    reset = run_ctl(env.url, "offsets", "reset", name)
    assert reset.returncode == 0, reset.stderr
    assert "reset" in reset.stdout
    assert ctl_json(env.url, "offsets", "get", name) == {"offsets": []}

    assert run_ctl(env.url, "delete", "connector", name).stdout.strip() == f"Deleted connector {name}"
    gone = run_ctl(env.url, "describe", "connector", name)
    assert gone.returncode == 4 and name in gone.stderr


def test_exit_codes_for_an_unreachable_cluster_a_missing_connector_and_an_invalid_config(env: Env) -> None:
    unreachable = run_ctl("http://127.0.0.1:9", "get", "connectors")
    assert unreachable.returncode == 3
    assert "http://127.0.0.1:9" in unreachable.stderr and unreachable.stdout == ""

    missing = run_ctl(env.url, "pause", "no-such-connector")
    assert missing.returncode == 4 and "no-such-connector" in missing.stderr

    invalid = env.data / "invalid.json"
    invalid.write_text(json.dumps({"name": "invalid", "connector.class": "FileStreamSource", "file": "x"}))
    validated = run_ctl(env.url, "validate", "-f", str(invalid))
    assert validated.returncode == 1
    assert [line.split()[0] for line in validated.stdout.splitlines()[1:]] == ["FIELD", "topic"]
    dry_run = run_ctl(env.url, "apply", "-f", str(invalid), "--dry-run")
    assert dry_run.returncode == 1
    assert run_ctl(env.url, "describe", "connector", "invalid").returncode == 4  # nothing was created


def test_logs_level_and_plugins(env: Env) -> None:
    set_level = run_ctl(env.url, "logs", "level", "connectors.file.source", "--set", "debug")
    assert set_level.returncode == 0, set_level.stderr
    assert ctl_json(env.url, "logs", "level", "connectors.file.source")["level"] == "DEBUG"
    assert ctl_json(env.url, "get", "loggers")["connectors.file.source"]["level"] == "DEBUG"

    plugins = [line.split() for line in run_ctl(env.url, "get", "plugins").stdout.splitlines()]
    assert plugins[0] == ["TYPE", "CLASS", "VERSION"]
    assert plugins[1][0] == "source"
    assert any(row[0] == "source" and row[1].endswith("FileStreamSourceConnector") for row in plugins)
    assert any(row[0] == "transformation" for row in plugins)
