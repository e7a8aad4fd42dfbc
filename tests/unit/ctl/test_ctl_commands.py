"""`kconnect ctl` verbs against a fake Kafka Connect REST API: what each sends, what it prints, its exit code."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from tests.unit.ctl.fake_cluster import FakeCluster
from tests.unit.ctl.support import ctl

STATUSES = {
    "b-sink": {
        "status": {
            "name": "b-sink",
            "connector": {"state": "RUNNING", "worker_id": "w:8083"},
            "tasks": [{"id": 1, "state": "FAILED", "worker_id": "w:8083"}, {"id": 0, "state": "RUNNING"}],
            "type": "sink",
        }
    },
    "a-source": {
        "status": {
            "name": "a-source",
            "connector": {"state": "PAUSED", "worker_id": "w:8083"},
            "tasks": [{"id": 0, "state": "PAUSED", "worker_id": "w:8083"}],
            "type": "source",
        }
    },
}


def test_get_connectors_is_a_borderless_table_sorted_by_type_then_name(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.answer("GET", "/connectors", 200, STATUSES)

    result = ctl(capsys, "get", "connectors", "--url", cluster.url)

    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "NAME      TYPE    STATE    TASKS",
        "b-sink    sink    RUNNING  0: RUNNING, 1: FAILED",
        "a-source  source  PAUSED   0: PAUSED",
    ]
    assert cluster.requests[0].query == {"expand": ["status", "info"]}


def test_json_and_yaml_output_carry_the_rest_answer(cluster: FakeCluster, capsys: pytest.CaptureFixture[str]) -> None:
    cluster.answer("GET", "/connectors", 200, STATUSES)

    as_json = ctl(capsys, "get", "connectors", "--url", cluster.url, "-o", "json")
    as_yaml = ctl(capsys, "get", "connectors", "--url", cluster.url, "-o", "yaml")

    assert json.loads(as_json.out) == STATUSES
    assert yaml.safe_load(as_yaml.out) == STATUSES


def test_cluster_options_are_taken_before_the_verb_as_after_it(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.answer("GET", "/connectors", 200, STATUSES)

    before = ctl(capsys, "--url", cluster.url, "-o", "json", "get", "connectors")
    mixed = ctl(capsys, "-o", "json", "get", "connectors", "--url", cluster.url)
    # Given on both sides, the one after the verb wins, as the last of a repeated option does.
    overridden = ctl(capsys, "--url", "http://127.0.0.1:9", "-o", "yaml", "get", "connectors", "--url", cluster.url)

    assert json.loads(before.out) == json.loads(mixed.out) == STATUSES
    assert yaml.safe_load(overridden.out) == STATUSES, overridden.err
    assert len(cluster.requests) == 3


@pytest.mark.parametrize(
    ("text", "suffix"),
    [
        ('{"name": "files", "config": {"connector.class": "FileStreamSource", "tasks.max": 1}}', ".json"),
        ('{"name": "files", "connector.class": "FileStreamSource", "tasks.max": "1"}', ".json"),
        ("name=files\nconnector.class=FileStreamSource\ntasks.max=1\n", ".properties"),
    ],
)
def test_apply_creates_then_says_unchanged_or_updated(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, suffix: str
) -> None:
    file = tmp_path / f"files{suffix}"
    file.write_text(text)
    config = {"name": "files", "connector.class": "FileStreamSource", "tasks.max": "1"}
    cluster.answer("PUT", "/connectors/files/config", 201, {"name": "files", "config": config, "tasks": []})

    created = ctl(capsys, "apply", "-f", str(file), "--url", cluster.url)
    assert (created.code, created.out.strip()) == (0, "Created connector files")
    assert cluster.sent("PUT")[0].body == config

    cluster.answer("GET", "/connectors/files/config", 200, config)
    unchanged = ctl(capsys, "apply", "-f", str(file), "--url", cluster.url)
    assert (unchanged.code, unchanged.out.strip()) == (0, "Unchanged connector files")
    assert len(cluster.sent("PUT")) == 1

    cluster.answer("GET", "/connectors/files/config", 200, {**config, "tasks.max": "2"})
    updated = ctl(capsys, "apply", "-f", str(file), "--url", cluster.url)
    assert (updated.code, updated.out.strip()) == (0, "Updated connector files")


def test_apply_reads_stdin_and_a_file_without_a_name_is_a_usage_error(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster.answer("PUT", "/connectors/piped/config", 201, {})
    monkeypatch.setattr("sys.stdin", io.StringIO("name=piped\nconnector.class=FileStreamSink\n"))
    assert ctl(capsys, "apply", "-f", "-", "--url", cluster.url).out.strip() == "Created connector piped"

    nameless = tmp_path / "nameless.properties"
    nameless.write_text("connector.class=FileStreamSink\n")
    result = ctl(capsys, "apply", "-f", str(nameless), "--url", cluster.url)
    assert result.code == 2
    assert "names no connector" in result.err
    assert len(cluster.requests) == 2  # the stdin apply's GET and PUT only


def test_patch_sets_and_removes_keys(cluster: FakeCluster, capsys: pytest.CaptureFixture[str]) -> None:
    cluster.answer("GET", "/connectors/c/config", 200, {"name": "c", "a": "1", "b": "2"})
    cluster.answer("PUT", "/connectors/c/config", 200, {})

    result = ctl(
        capsys, "patch", "connector", "c", "--set", "a=10", "--set", "x=y=z", "--remove", "b", "--url", cluster.url
    )

    assert (result.code, result.out.strip()) == (0, "Updated connector c")
    assert cluster.sent("PUT")[0].body == {"name": "c", "a": "10", "x": "y=z"}


def test_validate_lists_field_errors_and_exits_1(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = tmp_path / "bad.json"
    file.write_text('{"name": "bad", "connector.class": "FileStreamSource"}')
    answer = {
        "name": "FileStreamSource",
        "error_count": 1,
        "configs": [
            {
                "definition": {"name": "topic"},
                "value": {
                    "name": "topic",
                    "value": None,
                    "errors": ['Missing required configuration "topic" which has no default value.'],
                },
            },
            {"definition": {"name": "file"}, "value": {"name": "file", "value": None, "errors": []}},
        ],
    }
    cluster.answer("PUT", "/connector-plugins/FileStreamSource/config/validate", 200, answer)

    result = ctl(capsys, "validate", "-f", str(file), "--url", cluster.url)

    assert result.code == 1
    assert result.out.splitlines() == [
        "Config of bad has 1 error:",
        "FIELD  ERROR",
        'topic  Missing required configuration "topic" which has no default value.',
    ]
    assert "Invalid config" in result.err
    assert json.loads(ctl(capsys, "validate", "-f", str(file), "--url", cluster.url, "-o", "json").out) == answer


def test_restart_sends_kip_745_parameters_and_restart_task_its_path(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    status = {"name": "c", "connector": {"state": "RUNNING"}, "tasks": [{"id": 0, "state": "RESTARTING"}]}
    cluster.answer("POST", "/connectors/c/restart", 202, status)
    cluster.answer("POST", "/connectors/c/tasks/3/restart", 204)

    failed = ctl(capsys, "restart", "c", "--tasks", "failed", "--url", cluster.url)
    plain = ctl(capsys, "restart", "connector", "c", "--url", cluster.url)
    task = ctl(capsys, "restart", "task", "c/3", "--url", cluster.url)
    bad_task = ctl(capsys, "restart", "task", "c-3", "--url", cluster.url)

    assert failed.code == plain.code == task.code == 0
    assert "task 0     RESTARTING" in failed.out
    queries = [request.query for request in cluster.sent("POST")]
    assert queries[:2] == [
        {"includeTasks": ["true"], "onlyFailed": ["true"]},
        {"includeTasks": ["false"], "onlyFailed": ["false"]},
    ]
    assert task.out.strip() == "Restarted task c/3"
    assert bad_task.code == 2


def test_offsets_reset_of_a_running_connector_says_to_stop_it_first(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.answer("GET", "/connectors/c/status", 200, {"name": "c", "connector": {"state": "RUNNING"}, "tasks": []})

    result = ctl(capsys, "offsets", "reset", "c", "--url", cluster.url)

    assert result.code == 1
    assert "Connector c is RUNNING: offsets can only be reset while it is STOPPED" in result.err
    assert "kconnect ctl stop c" in result.err
    assert cluster.sent("DELETE") == []


def test_offsets_alter_builds_sink_offsets_from_options(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.answer("GET", "/connectors/s/status", 200, {"name": "s", "connector": {"state": "STOPPED"}, "tasks": []})
    cluster.answer(
        "PATCH",
        "/connectors/s/offsets",
        200,
        {"message": "The offsets for this connector have been altered successfully"},
    )

    result = ctl(
        capsys, "offsets", "alter", "s", "--topic", "t", "--partition", "2", "--offset", "7", "--url", cluster.url
    )

    assert (result.code, result.out.strip()) == (0, "The offsets for this connector have been altered successfully")
    assert cluster.sent("PATCH")[0].body == {
        "offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 2}, "offset": {"kafka_offset": 7}}]
    }


def test_exit_codes_not_found_cluster_error_unreachable_and_usage(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.answer(
        "PUT",
        "/connectors/busy/pause",
        409,
        {
            "error_code": 409,
            "message": "Cannot complete request because of a conflicting operation (e.g. worker rebalance)",
        },
    )

    missing = ctl(capsys, "describe", "connector", "nope", "--url", cluster.url)
    conflict = ctl(capsys, "pause", "busy", "--url", cluster.url)
    unreachable = ctl(capsys, "get", "connectors", "--url", "http://127.0.0.1:9")
    usage = ctl(capsys, "get", "widgets", "--url", cluster.url)

    assert (missing.code, missing.out) == (4, "")
    assert "Unknown resource /connectors/nope" in missing.err
    assert conflict.code == 1 and "conflicting operation" in conflict.err and "HTTP 409" in conflict.err
    assert unreachable.code == 3 and "http://127.0.0.1:9" in unreachable.err
    assert usage.code == 2


def test_logs_level_sets_a_level_with_its_scope(cluster: FakeCluster, capsys: pytest.CaptureFixture[str]) -> None:
    cluster.answer("PUT", "/admin/loggers/connect.runtime", 200, ["connect.runtime", "connect.runtime.worker"])
    cluster.answer("GET", "/admin/loggers", 200, {"root": {"level": "INFO", "last_modified": None}})

    worker = ctl(capsys, "logs", "level", "connect.runtime", "--set", "debug", "--url", cluster.url)
    cluster.answer("PUT", "/admin/loggers/connect.runtime", 204)
    whole = ctl(capsys, "logs", "level", "connect.runtime", "--set", "warn", "--scope", "cluster", "--url", cluster.url)
    listed = ctl(capsys, "logs", "level", "--url", cluster.url)

    assert worker.code == whole.code == listed.code == 0
    assert [(r.query, r.body) for r in cluster.sent("PUT")] == [
        ({}, {"level": "DEBUG"}),
        ({"scope": ["cluster"]}, {"level": "WARN"}),
    ]
    assert "changed: connect.runtime, connect.runtime.worker" in worker.out
    assert listed.out.splitlines() == ["LOGGER  LEVEL  LAST MODIFIED", "root    INFO"]


def test_describe_shows_config_status_tasks_topics_and_offsets(
    cluster: FakeCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.answer(
        "GET", "/connectors/c", 200, {"name": "c", "type": "source", "config": {"name": "c", "topic": "t"}, "tasks": []}
    )
    cluster.answer(
        "GET",
        "/connectors/c/status",
        200,
        {
            "name": "c",
            "connector": {"state": "RUNNING", "worker_id": "w:1"},
            "tasks": [{"id": 0, "state": "FAILED", "worker_id": "w:1", "trace": "Boom\n  at here"}],
            "type": "source",
        },
    )
    cluster.answer("GET", "/connectors/c/topics", 200, {"c": {"topics": ["t"]}})
    cluster.answer(
        "GET", "/connectors/c/offsets", 200, {"offsets": [{"partition": {"filename": "f"}, "offset": {"position": 42}}]}
    )

    result = ctl(capsys, "describe", "connector", "c", "--url", cluster.url)

    assert result.code == 0, result.err
    text = result.out
    for expected in (
        "Name:       c",
        "State:      RUNNING",
        "  topic:  t",
        "    State:      FAILED",
        "      Boom",
        "Topics:\n  t",
        '{"filename":"f"}  {"position":42}',
    ):
        assert expected in text, text
