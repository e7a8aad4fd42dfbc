"""Secrets given through each config provider reach the connector and its tasks, and nothing else: not a
REST response, not a status trace, not `/validate` output, not a log line (a real Worker and
StandaloneHerder, fake Kafka clients, the REST app in process)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import ClassVar

import pytest

from connect.api.config import ConfigDef, ConfigType, Importance
from connect.api.connector import SourceConnector
from connect.api.errors import NotFoundError
from connect.api.records import SourceRecord
from connect.api.task import SourceTask
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.worker import Worker
from rest.app import create_app
from tests.support.asgi_client import AsgiClient
from tests.support.rest_harness import isolated_root_logger
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeClients
from workers.common.logs import redact_logs
from workers.standalone.herder import StandaloneHerder

WORKER_ID = "worker-host:8083"
FILE_SECRET, DIR_SECRET, ENV_SECRET = "pw-from-file-7f3a", "token-from-dir-91c2", "key-from-env-55d0"
log = logging.getLogger("tests.provider_secrets")


class LoginTask(SourceTask):
    """Logs in with its config's password: fails (quoting it, as careless drivers do) when told to."""

    started: ClassVar[list[dict[str, str]]] = []

    def start(self, props: Mapping[str, str]) -> None:
        LoginTask.started.append(dict(props))
        self.props = dict(props)
        self.stopped = threading.Event()
        log.info("task logging in with password %s", props["password"])

    def poll(self) -> list[SourceRecord] | None:
        if self.props.get("fail") == "true":
            raise RuntimeError(f"login refused for password {self.props['password']}")
        self.stopped.wait(0.02)
        return None

    def stop(self) -> None:
        self.stopped.set()


class LoginSource(SourceConnector):
    instances: ClassVar[list[dict[str, str]]] = []

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)
        LoginSource.instances.append(dict(props))

    def task_class(self) -> type[SourceTask]:
        return LoginTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        keys = ("password", "token", "api.key", "fail")
        return [{key: self.props[key] for key in keys if key in self.props} for _ in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("password", ConfigType.PASSWORD, importance=Importance.HIGH)
            .define("token", ConfigType.STRING, "", importance=Importance.HIGH)
            .define("api.key", ConfigType.STRING, "", importance=Importance.HIGH)
        )


@pytest.fixture
def secret_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "db.properties").write_text(f"password={FILE_SECRET}\n")
    (tmp_path / "mounted").mkdir()
    (tmp_path / "mounted" / "token").write_text(DIR_SECRET)
    monkeypatch.setenv("KC_API_KEY", ENV_SECRET)
    LoginTask.started.clear()
    LoginSource.instances.clear()
    return tmp_path


@pytest.fixture
def herder(secret_files: Path) -> Iterator[StandaloneHerder]:
    config = WorkerConfig.from_props(
        {
            "key.converter": "StringConverter",
            "value.converter": "StringConverter",
            "config.providers": "file,directory,env",
            "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
            "config.providers.directory.class": "org.apache.kafka.common.config.provider.DirectoryConfigProvider",
            "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
            "config.providers.env.param.allowlist.pattern": "KC_.*",
        }
    )
    installed = dict.fromkeys(d.cls for d in PluginRegistry.discover().plugins())
    registry = PluginRegistry.of(LoginSource, *installed)
    status = MemoryStatusStore(WORKER_ID)
    store = MemoryOffsetStore()
    worker = Worker(
        worker_id=WORKER_ID, config=config, plugins=registry, offset_store=store, status=status, clients=FakeClients()
    )
    herder = StandaloneHerder(worker, registry, status, store, None, WORKER_ID, config=config)
    herder.start()
    herder.mark_ready()
    yield herder
    herder.stop()


def _raw_config(secret_files: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "LoginSource",
        "tasks.max": "2",
        "password": f"${{file:{secret_files / 'db.properties'}:password}}",
        "token": f"${{directory:{secret_files / 'mounted'}:token}}",
        "api.key": "${env:KC_API_KEY}",
        **extra,
    }


def _assert_no_secret(text: str, where: str) -> None:
    for secret in (FILE_SECRET, DIR_SECRET, ENV_SECRET):
        assert secret not in text, f"{secret} leaked into {where}"


def task_state(herder: StandaloneHerder, task: ConnectorTaskId) -> State | None:
    try:
        return herder.task_status(task).status.state
    except NotFoundError:
        return None


def test_each_provider_resolves_for_instances_and_nowhere_else(
    herder: StandaloneHerder, secret_files: Path, caplog: pytest.LogCaptureFixture
) -> None:
    undo = redact_logs(herder.worker.secrets.redactor)
    client = AsgiClient(create_app(herder, loggers=LoggerLevels(isolated_root_logger())))
    raw = _raw_config(secret_files)
    try:
        with caplog.at_level(logging.INFO):
            created = client.post("/connectors", json={"name": "login", "config": raw})
            assert created.status_code == 201, created.text
            wait_until(lambda: len(LoginTask.started) == 2, what="both tasks started")
            failing = client.put("/connectors/login/config", json={**raw, "fail": "true"})
            assert failing.status_code == 200
            # Both tasks fail and log it; only then is the log filter taken off again.
            tasks = [ConnectorTaskId("login", 0), ConnectorTaskId("login", 1)]
            wait_until(lambda: all(task_state(herder, t) is State.FAILED for t in tasks), what="both tasks FAILED")
    finally:
        undo()

    # The instances got the secrets...
    expected = {"password": FILE_SECRET, "token": DIR_SECRET, "api.key": ENV_SECRET}
    assert {k: LoginSource.instances[0][k] for k in expected} == expected
    assert {k: LoginTask.started[0][k] for k in expected} == expected
    # ... stored, served and validated configs keep the placeholders ...
    assert herder.connector_config("login") == {**raw, "fail": "true", "name": "login"}
    for task in herder.task_configs("login"):
        assert task.config["password"] == raw["password"]
        assert task.config["api.key"] == "${env:KC_API_KEY}"
    validated = client.put("/connector-plugins/LoginSource/config/validate", json={**raw, "api.key": "${env:NOPE}"})
    values = {c["value"]["name"]: c["value"]["value"] for c in validated.json()["configs"]}
    assert values["token"] == raw["token"]
    assert values["api.key"] == "${env:NOPE}"  # left as written: not allowed or not set
    # ... the failed task's trace names the failure, not the secret ...
    trace = herder.task_status(ConnectorTaskId("login", 0)).status.trace or ""
    assert "login refused for password [hidden]" in trace
    # ... and nothing served, traced or logged holds a secret's bytes.
    responses = [
        client.get(path).text
        for path in (
            "/connectors/login",
            "/connectors/login/config",
            "/connectors/login/tasks",
            "/connectors/login/status",
            "/connectors/login/tasks/0/status",
            "/connectors?expand=info&expand=status",
        )
    ]
    for text, where in [(r, "a REST response") for r in responses] + [
        (validated.text, "/validate"),
        (created.text + failing.text, "create/update answers"),
        (trace, "the status trace"),
        (caplog.text, "the log"),
    ]:
        _assert_no_secret(text, where)
    assert "task logging in with password [hidden]" in caplog.text


def test_a_provider_that_cannot_read_refuses_the_config_or_fails_the_connector(
    herder: StandaloneHerder, secret_files: Path
) -> None:
    client = AsgiClient(create_app(herder, loggers=LoggerLevels(isolated_root_logger())))
    gone = secret_files / "gone.properties"
    refused = client.post(
        "/connectors", json={"name": "broken", "config": _raw_config(secret_files, password=f"${{file:{gone}:pw}}")}
    )
    assert refused.status_code == 400
    assert refused.json()["message"].startswith(f"Could not read properties from file {gone}")
    # A file that disappears after the connector was created fails it at its next start, with the reason.
    assert client.post("/connectors", json={"name": "later", "config": _raw_config(secret_files)}).status_code == 201
    (secret_files / "db.properties").unlink()
    assert client.post("/connectors/later/restart").status_code == 204
    status = herder.connector_status("later").connector
    assert status.state is State.FAILED
    assert "Could not read properties from file" in (status.trace or "")


def test_literal_password_values_are_hidden_in_traces_and_logs_too(
    herder: StandaloneHerder, caplog: pytest.LogCaptureFixture
) -> None:
    literal = "literal-pass-3e9a"
    undo = redact_logs(herder.worker.secrets.redactor)
    config = {
        "connector.class": "LoginSource",
        "tasks.max": "1",
        "password": literal,
        "producer.override.sasl.jaas.config": 'ScramLoginModule required username="u" password="jaas-pw-77";',
        "fail": "true",
    }
    try:
        with caplog.at_level(logging.INFO):
            herder.put_connector_config("literal", config, allow_replace=False)
            task = ConnectorTaskId("literal", 0)
            # The task's first status may not be written yet when the herder returns.
            wait_until(lambda: task_state(herder, task) is State.FAILED, what="the task FAILED")
            log.info("client config %s", config["producer.override.sasl.jaas.config"])
    finally:
        undo()
    trace = herder.task_status(ConnectorTaskId("literal", 0)).status.trace or ""
    assert "login refused for password [hidden]" in trace
    assert literal not in caplog.text
    assert "jaas-pw-77" not in caplog.text
    assert "task logging in with password [hidden]" in caplog.text
    # Stored as given: the user's own config is not rewritten.
    assert herder.connector_config("literal")["password"] == literal
