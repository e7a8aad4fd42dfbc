"""The audit trail on a real REST server: every change request recorded once, before its answer, with who,
from where, through which worker and with what outcome; config changes with their diff, secrets hidden;
refused attempts recorded too, reads not at all."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from rest.audit.trail import AuditTrail, JsonLinesFile, log_sink
from tests.support.rest_permissions import FILE_SOURCE, Worker


def test_every_change_is_recorded_once_with_who_where_and_its_outcome(worker: Worker) -> None:
    base = "/connectors/team-a-audit"
    worker.audit.clear()
    changes = [
        ("alice", "PUT", f"{base}/config", {**FILE_SOURCE, "file": "a.txt"}, "connector.create"),
        ("gail", "PATCH", f"{base}/config", {"file": "b.txt"}, "connector.patch"),
        ("alice", "PUT", f"{base}/config", {**FILE_SOURCE, "file": "c.txt"}, "connector.update"),
        ("oscar", "PUT", f"{base}/pause", None, "connector.pause"),
        ("oscar", "PUT", f"{base}/resume", None, "connector.resume"),
        ("oscar", "POST", f"{base}/restart?includeTasks=true", None, "connector.restart"),
        ("oscar", "POST", f"{base}/tasks/0/restart", None, "task.restart"),
        ("oscar", "PUT", f"{base}/stop", None, "connector.stop"),
        ("oscar", "PATCH", f"{base}/offsets", {"offsets": []}, "offsets.alter"),
        ("oscar", "DELETE", f"{base}/offsets", None, "offsets.reset"),
        ("oscar", "PUT", f"{base}/topics/reset", None, "topics.reset"),
        ("root", "PUT", "/admin/loggers/connect.runtime", {"level": "DEBUG"}, "logger.level"),
        ("alice", "DELETE", base, None, "connector.delete"),
        ("alice", "POST", "/connectors", {"name": "team-a-made", "config": FILE_SOURCE}, "connector.create"),
    ]
    for done, (user, method, path, body, _) in enumerate(changes, start=1):
        answer = worker.call(user, method, path, body)
        # The record is there as soon as the answer is: it was taken before the answer went out.
        assert len(worker.audit) == done, (path, answer.text)
    worker.call("vera", "GET", "/connectors/team-a-made/config")
    assert [(r["action"], r["user"]) for r in worker.audit] == [(action, user) for user, _, _, _, action in changes]
    for record in worker.audit:
        assert record["worker"] == "worker-1:8083"
        assert record["client"].startswith("127.0.0.1:")
        assert record["time"].endswith("Z") and len(record["id"]) == 32
    statuses = {r["request"]: (r["status"], r["outcome"]) for r in worker.audit}
    assert statuses[f"PUT {base}/pause"] == (202, "success")
    assert statuses[f"PATCH {base}/offsets"] == (400, "failed")  # no offsets given: the herder refuses
    assert statuses[f"DELETE {base}/offsets"] == (200, "success")
    created, patched = worker.audit[0], worker.audit[1]
    assert created["connector"] == "team-a-audit" and created["diff"]["added"]["file"] == "a.txt"
    assert patched["diff"] == {"added": {}, "removed": {}, "changed": {"file": {"from": "a.txt", "to": "b.txt"}}}
    deleted = worker.audit[12]
    assert deleted["diff"]["removed"]["file"] == "c.txt" and deleted["diff"]["added"] == {}
    assert worker.audit[11]["details"] == {"logger": "connect.runtime", "level": "DEBUG"}
    assert worker.audit[5]["details"] == {"query": "includeTasks=true"}
    assert worker.audit[13]["connector"] == "team-a-made"


def test_a_refused_or_failed_change_is_recorded_with_its_reason(worker: Worker) -> None:
    worker.audit.clear()
    assert worker.call("vera", "DELETE", "/connectors/team-a-orders").status_code == 403
    assert worker.call("alice", "PUT", "/connectors/team-a-bad/config", {"connector.class": "Nope"}).status_code == 400
    refused, failed = worker.audit
    assert (refused["outcome"], refused["user"], refused["status"]) == ("refused", "vera", 403)
    assert "needs the 'edit' permission" in refused["message"] and "diff" not in refused
    assert (failed["outcome"], failed["action"], failed["status"]) == ("failed", "connector.create", 400)
    assert "Nope" in failed["message"]


def test_secret_values_are_absent_from_every_record(worker: Worker) -> None:
    worker.audit.clear()
    config = {
        "connector.class": "tests.support.TokenSourceConnector",
        "topic": "t",
        "token": "tok-first-123",
        "db.password": "pw-first-456",
    }
    assert worker.call("alice", "PUT", "/connectors/team-a-secret/config", config).status_code == 201
    assert (
        worker.call("alice", "PATCH", "/connectors/team-a-secret/config", {"token": "tok-second-789"}).status_code
        == 200
    )
    bad = {"connector.class": "tests.support.TokenSourceConnector", "token": "tok-third-000"}
    assert worker.call("alice", "PUT", "/connectors/team-a-secret/config", bad).status_code == 400
    assert worker.call("alice", "DELETE", "/connectors/team-a-secret").status_code == 204
    text = json.dumps(worker.audit)
    for secret in ("tok-first-123", "pw-first-456", "tok-second-789", "tok-third-000"):
        assert secret not in text
    assert worker.audit[1]["diff"]["changed"] == {"token": {"from": "[hidden]", "to": "[hidden]"}}
    assert worker.audit[0]["diff"]["added"]["db.password"] == "[hidden]"


def test_the_log_stream_and_the_file_hold_one_json_line_per_record(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lines = JsonLinesFile(tmp_path / "audit" / "audit.jsonl")
    trail = AuditTrail("w", [log_sink, lines], [lines.close])
    with caplog.at_level(logging.INFO, logger="kconnect.audit"):
        trail.record({"action": "connector.pause", "user": "oscar"})
        trail.record({"action": "connector.resume", "user": "oscar"})
    trail.close()
    written = [json.loads(line) for line in (tmp_path / "audit" / "audit.jsonl").read_text().splitlines()]
    assert [entry["action"] for entry in written] == ["connector.pause", "connector.resume"]
    assert [json.loads(r.getMessage())["action"] for r in caplog.records] == ["connector.pause", "connector.resume"]


def test_a_failing_sink_keeps_neither_the_change_nor_the_other_sinks_from_going_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    kept: list[object] = []

    def broken(_: object) -> None:
        raise OSError("disk full")

    trail = AuditTrail("w", [broken, kept.append])
    trail.record({"action": "connector.stop"})
    assert kept == [{"action": "connector.stop"}]
    assert "An audit sink failed to take the record of connector.stop" in caplog.text
