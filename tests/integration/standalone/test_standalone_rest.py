"""The Kafka Connect REST contract, endpoint by endpoint, against a real standalone worker on a real broker:
status codes and body shapes of the success and the error paths."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka.admin import AdminClient

from tests.fixtures.kafka import new_topic
from tests.support.standalone_workers import (
    all_running,
    line_count,
    running_worker,
    status_of,
    worker_props,
)
from tests.support.waiting import wait_until
from workers.standalone.process import StandaloneWorker

pytestmark = pytest.mark.integration

NOT_STOPPED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
)


class Env:
    def __init__(self, worker: StandaloneWorker, client: httpx.Client, topic: str, data: Path) -> None:
        self.worker = worker
        self.client = client
        self.topic = topic
        self.data = data
        self.port = int(worker.local_url.rsplit(":", 1)[1])

    def source_config(self, name: str, **extra: str) -> dict[str, str]:
        source = self.data / f"{name}.in"
        if not source.exists():
            source.write_text("".join(f"{name} line {i}\n" for i in range(20)))
        return {"connector.class": "FileStreamSource", "file": str(source), "topic": self.topic, **extra}

    def sink_config(self, name: str, **extra: str) -> dict[str, str]:
        return {
            "connector.class": "FileStreamSink",
            "file": str(self.data / f"{name}.out"),
            "topics": self.topic,
            **extra,
        }

    def create(self, name: str, config: dict[str, str]) -> dict[str, Any]:
        response = self.client.post("/connectors", json={"name": name, "config": config})
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    def running(self, name: str, tasks: int = 1) -> None:
        wait_until(lambda: all_running(self.client, name, tasks), 60, f"{name} and {tasks} task(s) to run")


@pytest.fixture(scope="module")
def env(kafka_bootstrap: str, kafka_admin: AdminClient, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    data = tmp_path_factory.mktemp("rest-contract")
    topic = new_topic(kafka_admin)
    with running_worker(worker_props(kafka_bootstrap, data / "connect.offsets")) as (worker, client):
        yield Env(worker, client, topic, data)


def _error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error_code", "message"} and body["error_code"] == status
    message: str = body["message"]
    return message


# -- worker ------------------------------------------------------------------------------------


def test_root_and_health(env: Env) -> None:
    info = env.client.get("/").json()
    assert set(info) == {"version", "commit", "kafka_cluster_id"}
    assert isinstance(info["kafka_cluster_id"], str) and info["kafka_cluster_id"]
    health = env.client.get("/health")
    assert health.status_code == 200
    assert health.json() == {
        "status": "healthy",
        "message": "Worker has completed startup and is ready to handle requests.",
    }


# -- create, read, update, delete --------------------------------------------------------------


def test_create_connector_and_read_it_back(env: Env) -> None:
    config = env.source_config("crud-src")
    response = env.client.post("/connectors", json={"name": "crud-src", "config": config})
    assert response.status_code == 201
    assert response.headers["location"].endswith("/connectors/crud-src")
    body = response.json()
    assert body["name"] == "crud-src" and body["type"] == "source"
    assert body["config"] == {**config, "name": "crud-src"}
    assert body["tasks"] == [{"connector": "crud-src", "task": 0}]

    assert env.client.get("/connectors/crud-src").json() == body
    assert env.client.get("/connectors/crud-src/config").json() == {**config, "name": "crud-src"}
    assert "crud-src" in env.client.get("/connectors").json()
    assert "crud-src" in env.client.get("/connectors/").json()  # trailing slash

    env.running("crud-src")
    status = env.client.get("/connectors/crud-src/status").json()
    worker_id = f"127.0.0.1:{env.port}"
    assert status == {
        "name": "crud-src",
        "connector": {"state": "RUNNING", "worker_id": worker_id},
        "tasks": [{"id": 0, "state": "RUNNING", "worker_id": worker_id}],
        "type": "source",
    }
    assert env.client.get("/connectors/crud-src/tasks/0/status").json() == {
        "id": 0,
        "state": "RUNNING",
        "worker_id": worker_id,
    }
    tasks = env.client.get("/connectors/crud-src/tasks").json()
    assert [t["id"] for t in tasks] == [{"connector": "crud-src", "task": 0}]
    assert tasks[0]["config"]["task.class"].endswith("FileStreamSourceTask")
    assert tasks[0]["config"]["file"] == config["file"]

    expanded = env.client.get("/connectors", params=[("expand", "status"), ("expand", "info")]).json()
    assert expanded["crud-src"]["status"]["connector"]["state"] == "RUNNING"
    assert expanded["crud-src"]["info"]["type"] == "source"


def test_create_errors(env: Env) -> None:
    env.create("dup", env.source_config("dup"))
    duplicate = env.client.post("/connectors", json={"name": "dup", "config": env.source_config("dup")})
    assert _error(duplicate, 409) == "Connector dup already exists"

    invalid = env.client.post("/connectors", json={"name": "bad", "config": {"connector.class": "FileStreamSource"}})
    message = _error(invalid, 400)
    assert message.startswith("Connector configuration is invalid and contains the following 1 error(s):")
    assert "topic" in message
    assert "bad" not in env.client.get("/connectors").json()

    mismatch = env.client.post("/connectors", json={"name": "a", "config": {**env.source_config("a"), "name": "b"}})
    assert "doesn't match connector name" in _error(mismatch, 400)

    unknown_class = env.client.post("/connectors", json={"name": "u", "config": {"connector.class": "NoSuchThing"}})
    assert "NoSuchThing" in _error(unknown_class, 400)

    no_class = env.client.post("/connectors", json={"name": "n", "config": {"topic": "t"}})
    assert "contains no connector type" in _error(no_class, 400)


def test_unknown_connector_is_404_everywhere(env: Env) -> None:
    assert _error(env.client.get("/connectors/nope"), 404) == "Connector nope not found"
    assert _error(env.client.get("/connectors/nope/config"), 404) == "Connector nope not found"
    assert _error(env.client.get("/connectors/nope/tasks"), 404) == "Connector nope not found"
    assert _error(env.client.get("/connectors/nope/status"), 404) == "No status found for connector nope"
    assert _error(env.client.get("/connectors/nope/tasks/0/status"), 404) == "No status found for task nope-0"
    assert _error(env.client.delete("/connectors/nope"), 404) == "Connector nope not found"
    _error(env.client.patch("/connectors/nope/config", json={"x": "1"}), 404)
    _error(env.client.put("/connectors/nope/pause"), 404)
    _error(env.client.put("/connectors/nope/resume"), 404)
    _error(env.client.put("/connectors/nope/stop"), 404)
    _error(env.client.post("/connectors/nope/restart"), 404)
    _error(env.client.post("/connectors/nope/restart", params={"includeTasks": "true"}), 404)
    _error(env.client.post("/connectors/nope/tasks/0/restart"), 404)
    _error(env.client.get("/connectors/nope/offsets"), 404)
    _error(env.client.delete("/connectors/nope/offsets"), 404)


def test_put_creates_then_updates_and_restarts_tasks(env: Env) -> None:
    config = env.source_config("put-src")
    created = env.client.put("/connectors/put-src/config", json=config)
    assert created.status_code == 201
    assert created.headers["location"].endswith("/connectors/put-src")
    env.running("put-src")

    updated = env.client.put("/connectors/put-src/config", json={**config, "batch.size": "7"})
    assert updated.status_code == 200
    assert updated.json()["config"]["batch.size"] == "7"
    assert env.client.get("/connectors/put-src/tasks").json()[0]["config"]["batch.size"] == "7"
    env.running("put-src")

    mismatch = env.client.put("/connectors/put-src/config", json={**config, "name": "other"})
    assert "doesn't match connector name in the URL" in _error(mismatch, 400)
    invalid = env.client.put("/connectors/put-src/config", json={**config, "tasks.max": "zero"})
    assert "Connector configuration is invalid" in _error(invalid, 400)
    assert env.client.get("/connectors/put-src/config").json()["batch.size"] == "7"


def test_patch_merges_and_null_removes(env: Env) -> None:
    env.create("patch-src", env.source_config("patch-src", **{"batch.size": "5"}))
    patched = env.client.patch("/connectors/patch-src/config", json={"batch.size": None, "tasks.max": "1"})
    assert patched.status_code == 200
    config = patched.json()["config"]
    assert "batch.size" not in config and config["tasks.max"] == "1"
    assert env.client.get("/connectors/patch-src/config").json() == config
    invalid = env.client.patch("/connectors/patch-src/config", json={"topic": None})
    assert "Connector configuration is invalid" in _error(invalid, 400)


def test_delete_stops_and_forgets_the_connector(env: Env) -> None:
    env.create("del-src", env.source_config("del-src"))
    env.running("del-src")
    assert env.client.delete("/connectors/del-src").status_code == 204
    assert "del-src" not in env.client.get("/connectors").json()
    _error(env.client.get("/connectors/del-src/status"), 404)
    _error(env.client.get("/connectors/del-src/tasks/0/status"), 404)


# -- lifecycle ---------------------------------------------------------------------------------


def test_pause_resume_stop(env: Env) -> None:
    env.create("life", env.source_config("life"))
    env.running("life")

    for _ in range(2):  # idempotent
        response = env.client.put("/connectors/life/pause")
        assert response.status_code == 202 and response.content == b""

    def states() -> tuple[str, list[str]]:
        status = status_of(env.client, "life") or {"connector": {"state": None}, "tasks": []}
        return status["connector"]["state"], [t["state"] for t in status["tasks"]]

    wait_until(lambda: states() == ("PAUSED", ["PAUSED"]), 30, "connector and task PAUSED")
    assert env.client.put("/connectors/life/resume").status_code == 202
    env.running("life")

    stopped = env.client.put("/connectors/life/stop")
    assert stopped.status_code == 204
    wait_until(lambda: states() == ("STOPPED", []), 30, "connector STOPPED without tasks")
    assert env.client.get("/connectors/life").json()["tasks"] == []
    assert env.client.get("/connectors/life/tasks").json() == []
    assert env.client.put("/connectors/life/stop").status_code == 204  # idempotent

    assert env.client.put("/connectors/life/resume").status_code == 202  # a stopped connector resumes too
    env.running("life")
    assert env.client.get("/connectors/life").json()["tasks"] == [{"connector": "life", "task": 0}]


def test_restarts(env: Env) -> None:
    env.create("rst", env.source_config("rst", **{"tasks.max": "1"}))
    env.running("rst")

    legacy = env.client.post("/connectors/rst/restart")
    assert legacy.status_code == 204 and legacy.content == b""
    env.running("rst")

    with_tasks = env.client.post("/connectors/rst/restart", params={"includeTasks": "true"})
    assert with_tasks.status_code == 202
    body = with_tasks.json()
    assert body["name"] == "rst" and body["type"] == "source"
    assert body["connector"]["state"] == "RESTARTING"
    assert [t["state"] for t in body["tasks"]] == ["RESTARTING"]
    env.running("rst")

    only_failed = env.client.post("/connectors/rst/restart", params={"includeTasks": "true", "onlyFailed": "true"})
    assert only_failed.status_code == 202
    assert only_failed.json()["connector"]["state"] == "RUNNING"  # nothing failed, nothing restarts
    assert [t["state"] for t in only_failed.json()["tasks"]] == ["RUNNING"]

    task_restart = env.client.post("/connectors/rst/tasks/0/restart")
    assert task_restart.status_code == 204
    env.running("rst")
    assert _error(env.client.post("/connectors/rst/tasks/5/restart"), 404) == "Task rst-5 not found"


# -- topics and offsets ------------------------------------------------------------------------


def test_active_topics_and_reset(env: Env) -> None:
    env.create("topics-src", env.source_config("topics-src"))

    def topics() -> list[str]:
        body = env.client.get("/connectors/topics-src/topics").json()
        listed: list[str] = body["topics-src"]["topics"]
        return listed

    wait_until(lambda: topics() == [env.topic], 60, "the topic to be tracked")
    reset = env.client.put("/connectors/topics-src/topics/reset")
    assert reset.status_code == 202 and reset.content == b""
    env.client.put("/connectors/topics-src/stop")
    wait_until(lambda: (status_of(env.client, "topics-src") or {}).get("tasks") == [], 30, "no tasks")
    env.client.put("/connectors/topics-src/topics/reset")
    assert topics() == []


def test_topic_tracking_disabled_is_forbidden(kafka_bootstrap: str, tmp_path: Path) -> None:
    props = worker_props(kafka_bootstrap, tmp_path / "offsets", **{"topic.tracking.enable": "false"})
    with running_worker(props) as (_, client):
        assert _error(client.get("/connectors/any/topics"), 403) == "Topic tracking is disabled."
        assert _error(client.put("/connectors/any/topics/reset"), 403) == "Topic tracking is disabled."
    props = worker_props(kafka_bootstrap, tmp_path / "offsets", **{"topic.tracking.allow.reset": "false"})
    with running_worker(props) as (_, client):
        assert client.get("/connectors/any/topics").json() == {"any": {"topics": []}}
        assert _error(client.put("/connectors/any/topics/reset"), 403) == "Topic tracking reset is disabled."


def test_source_offsets_get_alter_reset(env: Env) -> None:
    config = env.source_config("off-src")
    source_file = Path(config["file"])
    env.create("off-src", config)
    partition = {"filename": str(source_file)}
    size = source_file.stat().st_size

    def offsets() -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = env.client.get("/connectors/off-src/offsets").json()["offsets"]
        return listed

    wait_until(lambda: offsets() == [{"partition": partition, "offset": {"position": size}}], 60, "stored offset")

    new_offset = {"offsets": [{"partition": partition, "offset": {"position": 5}}]}
    running = env.client.patch("/connectors/off-src/offsets", json=new_offset)
    assert _error(running, 400) == NOT_STOPPED.format(name="off-src")
    assert _error(env.client.delete("/connectors/off-src/offsets"), 400) == NOT_STOPPED.format(name="off-src")
    env.client.put("/connectors/off-src/pause")
    assert _error(env.client.delete("/connectors/off-src/offsets"), 400) == NOT_STOPPED.format(name="off-src")

    assert env.client.put("/connectors/off-src/stop").status_code == 204
    empty = env.client.patch("/connectors/off-src/offsets", json={"offsets": []})
    _error(empty, 400)
    altered = env.client.patch("/connectors/off-src/offsets", json=new_offset)
    assert altered.status_code == 200
    assert altered.json() == {"message": "The offsets for this connector have been altered successfully"}
    assert offsets() == [{"partition": partition, "offset": {"position": 5}}]

    bad = env.client.patch("/connectors/off-src/offsets", json={"offsets": [{"partition": partition, "offset": {}}]})
    assert "position" in bad.json()["message"] and bad.status_code >= 400

    reset = env.client.delete("/connectors/off-src/offsets")
    assert reset.status_code == 200
    assert reset.json() == {"message": "The offsets for this connector have been reset successfully"}
    assert offsets() == []


def test_sink_offsets_get_alter_reset(env: Env) -> None:
    feeder = env.source_config("feed")
    env.create("feed", feeder)
    env.create("off-snk", env.sink_config("off-snk"))
    sink_file = env.data / "off-snk.out"
    wait_until(lambda: line_count(sink_file) >= 20, 60, "the sink to consume")
    tp = {"kafka_topic": env.topic, "kafka_partition": 0}

    def offsets() -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = env.client.get("/connectors/off-snk/offsets").json()["offsets"]
        return listed

    wait_until(lambda: len(offsets()) == 1 and offsets()[0]["partition"] == tp, 60, "the committed sink offset")
    assert offsets()[0]["offset"]["kafka_offset"] >= 20

    patch = {"offsets": [{"partition": {**tp, "kafka_partition": "0"}, "offset": {"kafka_offset": "3"}}]}
    assert _error(env.client.patch("/connectors/off-snk/offsets", json=patch), 400) == NOT_STOPPED.format(
        name="off-snk"
    )
    env.client.put("/connectors/off-snk/stop")
    altered = env.client.patch("/connectors/off-snk/offsets", json=patch)
    assert altered.status_code == 200, altered.text
    assert altered.json()["message"] == "The offsets for this connector have been altered successfully"
    assert offsets() == [{"partition": tp, "offset": {"kafka_offset": 3}}]

    malformed = env.client.patch(
        "/connectors/off-snk/offsets", json={"offsets": [{"partition": {"kafka_topic": "x"}, "offset": None}]}
    )
    assert "must contain the keys 'kafka_topic' and 'kafka_partition'" in _error(malformed, 400)

    reset = env.client.delete("/connectors/off-snk/offsets")
    assert reset.status_code == 200
    assert reset.json()["message"] == "The offsets for this connector have been reset successfully"
    assert offsets() == []


# -- plug-ins, validation, loggers -------------------------------------------------------------


def test_connector_plugins(env: Env) -> None:
    plugins = env.client.get("/connector-plugins").json()
    by_class = {p["class"].rsplit(".", 1)[-1]: p for p in plugins}
    assert by_class["FileStreamSourceConnector"]["type"] == "source"
    assert by_class["FileStreamSinkConnector"]["type"] == "sink"
    assert all(set(p) <= {"class", "type", "version"} for p in plugins)
    assert {p["type"] for p in plugins} <= {"source", "sink"}
    everything = env.client.get("/connector-plugins", params={"connectorsOnly": "false"}).json()
    assert "converter" in {p["type"] for p in everything}

    keys = env.client.get("/connector-plugins/FileStreamSource/config").json()
    names = [k["name"] for k in keys]
    assert "file" in names and "topic" in names and "connector.class" in names
    assert set(keys[0]) == {
        "name",
        "type",
        "required",
        "default_value",
        "importance",
        "documentation",
        "group",
        "order",
        "width",
        "display_name",
        "dependents",
    }
    assert _error(env.client.get("/connector-plugins/NoSuchPlugin/config"), 404) == "Unknown plugin NoSuchPlugin."


def test_validate(env: Env) -> None:
    good = env.client.put(
        "/connector-plugins/FileStreamSource/config/validate", json={**env.source_config("v"), "name": "v"}
    )
    assert good.status_code == 200
    body = good.json()
    assert set(body) == {"name", "error_count", "groups", "configs"} and body["error_count"] == 0
    bad = env.client.put(
        "/connector-plugins/FileStreamSource/config/validate",
        json={"connector.class": "FileStreamSource", "tasks.max": "0"},
    )
    assert bad.status_code == 200 and bad.json()["error_count"] >= 2
    errors = {c["value"]["name"]: c["value"]["errors"] for c in bad.json()["configs"] if c["value"]}
    assert errors["topic"] and errors["tasks.max"]
    missing = env.client.put("/connector-plugins/FileStreamSource/config/validate", json={"topic": "t"})
    assert "contains no connector type" in _error(missing, 400)
    other = env.client.put("/connector-plugins/FileStreamSink/config/validate", json=env.source_config("v"))
    assert "does not match request type" in _error(other, 400)


def test_loggers(env: Env) -> None:
    assert "root" in env.client.get("/admin/loggers").json()
    changed = env.client.put("/admin/loggers/kconnect.test.rest", json={"level": "DEBUG"})
    assert changed.status_code == 200 and "kconnect.test.rest" in changed.json()
    level = env.client.get("/admin/loggers/kconnect.test.rest").json()
    assert level["level"] == "DEBUG" and isinstance(level["last_modified"], int)
    assert _error(env.client.put("/admin/loggers/x", json={"level": "LOUD"}), 404) == "invalid log level 'LOUD'."
    _error(env.client.put("/admin/loggers/x", json={}), 400)
    assert _error(env.client.get("/admin/loggers/no.such.logger.here"), 404) == "Logger no.such.logger.here not found."
    env.client.put("/admin/loggers/kconnect.test.rest", json={"level": "INFO"})


def test_malformed_request_bodies_are_400(env: Env) -> None:
    raw = env.client.post("/connectors", content=b"{not json", headers={"content-type": "application/json"})
    assert raw.status_code in (400, 500) and set(raw.json()) == {"error_code", "message"}
    not_strings = env.client.put(
        "/connectors/x/config",
        content=json.dumps({"a": ["list"]}).encode(),
        headers={"content-type": "application/json"},
    )
    _error(not_strings, 400)
