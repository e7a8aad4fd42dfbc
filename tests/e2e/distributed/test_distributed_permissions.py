"""Permissions, the audit trail and config history on a distributed cluster of three real workers behind the
basic-auth extension and the RoleAuthorizer, all reading one rules file: a rule change reaches every worker,
the audit topic holds every change made through any worker exactly once and no secret, and a connector's
history (read from the config topic) survives a worker restart and rolls back."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.distributed_workers import Cluster, WorkerProcess, topic_records, worker_props
from tests.support.secured_workers import EXTENSION, write_jaas
from tests.support.waiting import wait_until
from workers.cli import main

pytestmark = pytest.mark.e2e

USERS = ("root", "alice", "vera")
RULES: dict[str, Any] = {
    "grants": [
        {"to": ["user:root"], "role": "admin"},
        {"to": ["user:alice"], "role": "editor", "connectors": ["team-a-*"]},
        {"to": ["user:vera"], "role": "viewer", "connectors": ["team-a-*"]},
    ]
}
SECRET = "pw-never-shown-4711"


class Permitted:
    def __init__(self, cluster: Cluster, rules: Path, environ: dict[str, str]) -> None:
        self.cluster = cluster
        self.rules = rules
        self.environ = environ

    def call(self, user: str, method: str, path: str, via: WorkerProcess, body: Any = None) -> httpx.Response:
        return self.cluster.http.request(method, via.url + path, json=body, auth=(user, f"pw-{user}"))

    def restart(self, worker: WorkerProcess) -> None:
        worker.kill()
        worker.start(env=self.environ)
        wait_until(lambda: _healthy(worker, self.cluster.http), 60, f"worker {worker.name} healthy again", interval=0.2)


@pytest.fixture
def permitted(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Permitted]:
    jaas = write_jaas(tmp_path, {user: f"pw-{user}" for user in USERS})
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES))
    environ = {"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}
    group = f"kc-perm-{uuid.uuid4().hex[:8]}"
    runs = tmp_path / "runs"
    runs.mkdir()
    cluster = Cluster(kafka_bootstrap, group, tmp_path, runs)
    security = {
        "rest.extension.classes": EXTENSION,
        "rest.authorizer.class": "RoleAuthorizer",
        "rest.authorizer.rules.file": str(rules),
        "rest.authorizer.rules.reload.ms": "200",
        "audit.topic.replication.factor": "-1",
    }
    for index in range(3):
        props = {**worker_props(kafka_bootstrap, group), **security}
        cluster.workers.append(WorkerProcess(f"{group}-w{index + 1}", props, tmp_path))
    try:
        for worker in cluster.workers:
            worker.start(env=environ)
        for worker in cluster.workers:
            wait_until(lambda w=worker: _healthy(w, cluster.http), 60, f"worker {worker.name} healthy", interval=0.2)
        yield Permitted(cluster, rules, environ)
    finally:
        cluster.stop()


def _healthy(worker: WorkerProcess, http: httpx.Client) -> bool:
    if not worker.alive():
        raise AssertionError(f"worker {worker.name} exited with {worker.exit_code()}:\n{worker.log_tail()}")
    try:
        answer = http.get(f"{worker.url}/health", auth=("vera", "pw-vera"), timeout=2)
    except httpx.HTTPError:
        return False
    return answer.status_code == 200


def file_source(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"connector.class": "FileStreamSource", "file": str(tmp_path / "in.txt"), "topic": "perm-t", **extra}


def test_a_rule_change_reaches_every_worker_and_each_refuses_what_the_rules_refuse(
    permitted: Permitted, tmp_path: Path
) -> None:
    w1, w2, w3 = permitted.cluster.workers
    assert permitted.call("alice", "PUT", "/connectors/team-a-src/config", w1, file_source(tmp_path)).status_code == 201
    for worker in (w1, w2, w3):
        refused = permitted.call("vera", "PUT", "/connectors/team-a-src/pause", worker)
        assert refused.status_code == 403 and "needs the 'operate' permission" in refused.json()["message"]
        assert (
            permitted.call("alice", "PUT", "/connectors/team-b-src/config", worker, file_source(tmp_path)).status_code
            == 403
        )
        assert permitted.call("vera", "GET", "/connectors", worker).json() in ([], ["team-a-src"])

    promoted = {"grants": [*RULES["grants"], {"to": ["user:vera"], "role": "operator", "connectors": ["team-a-src"]}]}
    permitted.rules.write_text(json.dumps(promoted))
    for worker in (w1, w2, w3):
        wait_until(
            lambda w=worker: permitted.call("vera", "PUT", "/connectors/team-a-src/resume", w).status_code == 202,
            15,
            f"worker {worker.name} to take the changed rules",
        )
    assert permitted.call("vera", "DELETE", "/connectors/team-a-src", w2).status_code == 403


def test_the_audit_topic_holds_every_change_through_any_worker_once_and_no_secret(
    permitted: Permitted, tmp_path: Path
) -> None:
    w1, w2, w3 = permitted.cluster.workers
    steps = [
        (
            "alice",
            "PUT",
            "/connectors/team-a-audited/config",
            w1,
            file_source(tmp_path, **{"db.password": SECRET}),
            201,
        ),
        ("alice", "PATCH", "/connectors/team-a-audited/config", w2, {"db.password": SECRET + "-2"}, 200),
        ("root", "PUT", "/connectors/team-a-audited/pause", w3, None, 202),
        ("vera", "DELETE", "/connectors/team-a-audited", w1, None, 403),
        ("root", "PUT", "/admin/loggers/connect.runtime", w2, {"level": "INFO"}, 200),
        ("alice", "DELETE", "/connectors/team-a-audited", w3, None, 204),
    ]
    for user, method, path, via, body, status in steps:
        answer = permitted.call(user, method, path, via, body)
        assert answer.status_code == status, (method, path, answer.text)

    topic = f"{permitted.cluster.group}-audit"
    records = topic_records(permitted.cluster.bootstrap, topic)
    raw = b"".join(value or b"" for _, value in records)
    assert SECRET.encode() not in raw
    entries = [json.loads(value or b"{}") for _, value in records]
    assert len({entry["id"] for entry in entries}) == len(entries)
    assert [(e["user"], e["action"], e["worker"], e["outcome"]) for e in entries] == [
        ("alice", "connector.create", w1.worker_id, "success"),
        ("alice", "connector.patch", w2.worker_id, "success"),
        ("root", "connector.pause", w3.worker_id, "success"),
        ("vera", "connector.delete", w1.worker_id, "refused"),
        ("root", "logger.level", w2.worker_id, "success"),
        ("alice", "connector.delete", w3.worker_id, "success"),
    ]
    assert entries[1]["diff"]["changed"] == {"db.password": {"from": "[hidden]", "to": "[hidden]"}}
    assert [key for key, _ in records][:1] == [b"team-a-audited"]


def test_a_connectors_history_outlives_a_worker_restart_and_rolls_back(
    permitted: Permitted, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    w1, w2, _ = permitted.cluster.workers
    first, second = file_source(tmp_path, **{"tasks.max": "1"}), file_source(tmp_path, **{"tasks.max": "2"})
    assert permitted.call("alice", "PUT", "/connectors/team-a-hist/config", w1, first).status_code == 201
    assert permitted.call("root", "PUT", "/connectors/team-a-hist/config", w2, second).status_code == 200
    permitted.restart(w2)

    history = permitted.call("vera", "GET", "/connectors/team-a-hist/history", w2).json()
    assert [(v["version"], v["user"], v["config"]["tasks.max"]) for v in history] == [
        (1, "alice", "1"),
        (2, "root", "2"),
    ]

    monkeypatch.setenv("KCONNECT_CTL_CONFIG", str(tmp_path / "ctl.json"))
    monkeypatch.delenv("KCONNECT_URL", raising=False)
    assert (
        main(["ctl", "config", "set-context", "alice", "--url", w2.url, "--user", "alice", "--password", "pw-alice"])
        == 0
    )
    assert main(["ctl", "rollback", "team-a-hist", "--to", "1"]) == 0
    assert "Rolled back connector team-a-hist to version 1" in capsys.readouterr().out
    config = permitted.call("vera", "GET", "/connectors/team-a-hist/config", w1).json()
    assert config["tasks.max"] == "1"
    after = permitted.call("alice", "GET", "/connectors/team-a-hist/history", w1).json()
    assert [(v["version"], v["user"]) for v in after] == [(1, "alice"), (2, "root"), (3, "alice")]
