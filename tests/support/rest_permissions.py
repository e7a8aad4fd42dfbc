"""A REST server as the permission tests need it: a FakeHerder behind the real basic-auth extension and the
RoleAuthorizer with a rules file, users of every role, and an audit trail kept in a list."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.info import PluginType
from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.metrics.groups import MetricGroup
from rest.app import create_app
from rest.audit.trail import AuditTrail
from rest.listeners.for_worker import rest_server_for
from rest.listeners.server import RestServer
from tests.support.fake_herder import FakeHerder
from tests.support.fake_plugins import DEFAULT_PLUGINS, FakePlugin, config_key
from tests.support.rest_harness import isolated_root_logger
from tests.support.secured_workers import write_jaas

USERS = ("root", "alice", "gail", "oscar", "vera", "nobody")
RULES: dict[str, Any] = {
    "groups": {"team-a-editors": ["gail"]},
    "grants": [
        {"to": ["user:root"], "role": "admin"},
        {"to": ["user:alice", "group:team-a-editors"], "role": "editor", "connectors": ["team-a-*"]},
        {"to": ["user:oscar"], "role": "operator", "connectors": ["team-a-*"]},
        {"to": ["user:vera"], "role": "viewer", "connectors": ["team-a-*"]},
    ],
}
TOKEN_PLUGIN = FakePlugin(
    "tests.support.TokenSourceConnector",
    PluginType.SOURCE,
    config_keys=(config_key("topic"), replace(config_key("token", required=False), type="PASSWORD")),
)
FILE_SOURCE = {"connector.class": "FileStreamSource", "file": "in.txt", "topic": "t"}


@dataclass
class Worker:
    server: RestServer
    herder: FakeHerder
    rules: Path
    client: httpx.Client
    audit: list[Mapping[str, Any]] = field(default_factory=list)

    def call(self, user: str, method: str, path: str, body: Any = None) -> httpx.Response:
        return self.client.request(method, self.server.local_url() + path, json=body, auth=(user, f"pw-{user}"))

    def stop(self) -> None:
        self.client.close()
        self.server.stop()


def metric_groups() -> list[MetricGroup]:
    return [
        MetricGroup("source-task-metrics", (("connector", name), ("task", "0")), {"source-record-poll-total": 7})
        for name in ("team-a-orders", "team-b-orders")
    ] + [MetricGroup("connect-worker-metrics", (), {"connector-count": 2})]


def start_worker(tmp_path: Path, started: list[Worker], **props: str) -> Worker:
    jaas = write_jaas(tmp_path, {user: f"pw-{user}" for user in USERS})
    rules = tmp_path / "rules.json"
    if not rules.exists():
        rules.write_text(json.dumps(RULES))
    herder = FakeHerder(plugins=(*DEFAULT_PLUGINS, TOKEN_PLUGIN))
    for name in ("team-a-orders", "team-b-orders"):
        herder.put_connector_config(name, {**FILE_SOURCE, "name": name}, allow_replace=False)
    audit: list[Mapping[str, Any]] = []
    trail = AuditTrail("worker-1:8083", [audit.append])
    app = create_app(herder, loggers=LoggerLevels(isolated_root_logger()), metrics=metric_groups, audit=trail)
    worker_props = {
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "listeners": "http://127.0.0.1:0",
        "rest.extension.classes": "BasicAuthSecurityRestExtension",
        "rest.authorizer.class": "RoleAuthorizer",
        "rest.authorizer.rules.file": str(rules),
        **props,
    }
    environ = {"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}
    server = rest_server_for(WorkerConfig.from_props(worker_props), app, environ)
    server.start()
    worker = Worker(server, herder, rules, httpx.Client(timeout=10), audit)
    started.append(worker)
    return worker


def refused(response: httpx.Response) -> bool:
    """Refused by the authorizer (another 403, such as topic tracking being off, is the route's own answer)."""
    return response.status_code == 403 and "may not perform" in response.json()["message"]
