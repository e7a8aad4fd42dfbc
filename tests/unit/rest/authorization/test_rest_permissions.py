"""Permissions on a real REST server: the basic-auth extension authenticates, the RoleAuthorizer decides from a
rules file. Every route of the OpenAPI document is tried as every role, on a connector the role covers and
on one it does not."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import APIRouter

from connect.api.errors import ConfigError
from rest.app import create_app
from rest.authorization.api import Authorizer, Operation, Resource
from rest.authorization.enforcement import api_routes, check_every_route_has_a_rule
from rest.extensions.api import Principal
from tests.support.fake_herder import FakeHerder
from tests.support.rest_permissions import (
    FILE_SOURCE,
    RULES,
    USERS,
    Worker,
    refused,
    start_worker,
)
from tests.support.waiting import wait_until
from tests.unit.ctl.support import ctl

ROLES = ("none", "viewer", "operator", "editor", "admin")
# Each user's role on team-a-* connectors (root's on every connector).
ROLE_OF = {
    "root": "admin",
    "alice": "editor",
    "gail": "editor",
    "oscar": "operator",
    "vera": "viewer",
    "nobody": "none",
}
# The least role each route takes, written out here apart from the server's table: a route the document
# lists and this does not fails the matrix test.
LEAST_ROLE = {
    ("GET", "/"): "viewer",
    ("GET", "/health"): "none",
    ("GET", "/connectors"): "viewer",
    ("POST", "/connectors"): "editor",
    ("GET", "/connectors/{connector}"): "viewer",
    ("DELETE", "/connectors/{connector}"): "editor",
    ("GET", "/connectors/{connector}/config"): "viewer",
    ("PUT", "/connectors/{connector}/config"): "editor",
    ("PATCH", "/connectors/{connector}/config"): "editor",
    ("GET", "/connectors/{connector}/tasks"): "viewer",
    ("GET", "/connectors/{connector}/tasks-config"): "viewer",
    ("GET", "/connectors/{connector}/history"): "viewer",
    ("GET", "/connectors/{connector}/status"): "viewer",
    ("GET", "/connectors/{connector}/tasks/{task}/status"): "viewer",
    ("POST", "/connectors/{connector}/restart"): "operator",
    ("POST", "/connectors/{connector}/tasks/{task}/restart"): "operator",
    ("PUT", "/connectors/{connector}/pause"): "operator",
    ("PUT", "/connectors/{connector}/resume"): "operator",
    ("PUT", "/connectors/{connector}/stop"): "operator",
    ("GET", "/connectors/{connector}/topics"): "viewer",
    ("PUT", "/connectors/{connector}/topics/reset"): "operator",
    ("GET", "/connectors/{connector}/offsets"): "viewer",
    ("PATCH", "/connectors/{connector}/offsets"): "operator",
    ("DELETE", "/connectors/{connector}/offsets"): "operator",
    ("GET", "/connector-plugins"): "viewer",
    ("GET", "/connector-plugins/{plugin}/config"): "viewer",
    ("PUT", "/connector-plugins/{plugin}/config/validate"): "editor",
    ("GET", "/admin/loggers"): "admin",
    ("GET", "/admin/loggers/{logger}"): "admin",
    ("PUT", "/admin/loggers/{logger}"): "admin",
    ("GET", "/metrics"): "viewer",
    ("GET", "/ui/api/task-metrics"): "viewer",
    ("GET", "/ui/api/permissions"): "viewer",
}
CLUSTER_ROUTES = {key for key in LEAST_ROLE if "{connector}" not in key[1]} - {
    ("POST", "/connectors"),
    ("PUT", "/connector-plugins/{plugin}/config/validate"),
}


def request_for(method: str, path: str, connector: str) -> tuple[str, Any]:
    url = path.format(connector=connector, task="0", plugin="FileStreamSource", logger="root")
    bodies: Mapping[tuple[str, str], Any] = {
        ("POST", "/connectors"): {"name": connector, "config": FILE_SOURCE},
        ("PUT", "/connectors/{connector}/config"): FILE_SOURCE,
        ("PATCH", "/connectors/{connector}/config"): {"file": "other.txt"},
        ("PATCH", "/connectors/{connector}/offsets"): {"offsets": []},
        ("PUT", "/connector-plugins/{plugin}/config/validate"): {**FILE_SOURCE, "name": connector},
        ("PUT", "/admin/loggers/{logger}"): {"level": "INFO"},
    }
    return url, bodies.get((method, path))


def held_role(user: str, route: tuple[str, str], connector: str) -> int:
    """The rank of `user`'s role where `route` acts: on the cluster, a role below admin counts as a view."""
    role = ROLE_OF[user]
    if role == "admin":
        return ROLES.index(role)
    if route in CLUSTER_ROUTES:
        return min(ROLES.index(role), ROLES.index("viewer"))
    return ROLES.index(role) if connector.startswith("team-a-") else 0


def test_every_route_of_the_openapi_document_takes_its_role_on_the_connectors_the_role_covers(worker: Worker) -> None:
    routes = [
        (method.upper(), path)
        for path, operations in worker.call("root", "GET", "/openapi.json").json()["paths"].items()
        for method in operations
    ]
    assert set(routes) == set(LEAST_ROLE), "a route without an expected role, or a role for a gone route"
    for method, path in routes:
        least = ROLES.index(LEAST_ROLE[(method, path)])
        for user in USERS:
            for connector in ("team-a-new", "team-b-new"):
                covered = (
                    ROLE_OF[user] == "admin" or connector.startswith("team-a-") or (method, path) in CLUSTER_ROUTES
                )
                held = ROLES.index(ROLE_OF[user]) if covered else 0
                if (method, path) in CLUSTER_ROUTES and ROLE_OF[user] != "admin" and least > ROLES.index("viewer"):
                    held = 0  # only admin holds a cluster-wide permission above view
                url, body = request_for(method, path, connector)
                response = worker.call(user, method, url, body)
                assert response.status_code != 401, (user, method, url)
                assert refused(response) == (held < least), (user, method, url, response.status_code, response.text)


def test_a_refusal_is_kafkas_403_body_naming_the_permission_whether_or_not_the_connector_exists(
    worker: Worker,
) -> None:
    existing = worker.call("vera", "DELETE", "/connectors/team-b-orders")
    missing = worker.call("vera", "DELETE", "/connectors/team-b-nothing")
    assert existing.status_code == missing.status_code == 403
    assert existing.json() == {
        "error_code": 403,
        "message": "User 'vera' may not perform connector.delete on connector 'team-b-orders': "
        "it needs the 'edit' permission there",
    }
    assert missing.json()["message"] == existing.json()["message"].replace("team-b-orders", "team-b-nothing")
    assert "team-b-orders" in worker.herder.connectors()


def test_lists_metrics_and_dashboard_figures_hold_only_the_connectors_the_caller_may_view(worker: Worker) -> None:
    assert worker.call("vera", "GET", "/connectors").json() == ["team-a-orders"]
    assert sorted(worker.call("root", "GET", "/connectors").json()) == ["team-a-orders", "team-b-orders"]
    expanded = worker.call("oscar", "GET", "/connectors?expand=status&expand=info").json()
    assert list(expanded) == ["team-a-orders"] and set(expanded["team-a-orders"]) == {"status", "info"}
    scrape = worker.call("vera", "GET", "/metrics").text
    assert 'connector="team-a-orders"' in scrape and "team-b-orders" not in scrape
    assert "connector_count" in scrape.replace("-", "_")
    assert 'connector="team-b-orders"' in worker.call("root", "GET", "/metrics").text
    assert worker.call("oscar", "GET", "/ui/api/permissions").json() == {
        "user": "oscar",
        "enforced": True,
        "connectors": {"team-a-orders": ["view", "operate"]},
    }
    figures = worker.call("vera", "GET", "/ui/api/task-metrics?scope=worker").json()["tasks"]
    assert [figure["connector"] for figure in figures] == ["team-a-orders"]
    assert refused(worker.call("nobody", "GET", "/connectors"))


def test_a_viewer_sees_configs_with_their_secrets_hidden_and_an_editor_sees_them_whole(worker: Worker) -> None:
    config = {
        "connector.class": "tests.support.TokenSourceConnector",
        "topic": "t",
        "token": "tok-123",
        "producer.override.sasl.jaas.config": "jaas-456",
        "db.password": "pw-789",
        "api.secret": "${file:/etc/secrets.properties:api.secret}",
    }
    created = worker.call("alice", "PUT", "/connectors/team-a-tokens/config", config)
    assert created.status_code == 201, created.text
    reads = [
        lambda user: worker.call(user, "GET", "/connectors/team-a-tokens/config").json(),
        lambda user: worker.call(user, "GET", "/connectors/team-a-tokens").json()["config"],
        lambda user: worker.call(user, "GET", "/connectors?expand=info").json()["team-a-tokens"]["info"]["config"],
        lambda user: worker.call(user, "GET", "/connectors/team-a-tokens/tasks").json()[0]["config"],
        lambda user: worker.call(user, "GET", "/connectors/team-a-tokens/tasks-config").json().popitem()[1],
        lambda user: worker.call(user, "GET", "/connectors/team-a-tokens/history").json()[-1]["config"],
    ]
    for read in reads:
        seen = read("vera")
        for key in ("token", "producer.override.sasl.jaas.config", "db.password"):
            assert seen[key] == "[hidden]", (key, seen)
        assert seen["topic"] == "t" and seen["api.secret"] == config["api.secret"]
        assert read("oscar")["token"] == "[hidden]"
        assert read("alice")["token"] == "tok-123" and read("root")["db.password"] == "pw-789"


def test_validating_a_config_that_names_no_connector_takes_an_admin(worker: Worker) -> None:
    path = "/connector-plugins/FileStreamSource/config/validate"
    assert refused(worker.call("alice", "PUT", path, FILE_SOURCE))
    assert worker.call("root", "PUT", path, FILE_SOURCE).status_code == 200
    assert worker.call("alice", "PUT", path, {**FILE_SOURCE, "name": "team-a-new"}).status_code == 200
    assert refused(worker.call("alice", "POST", "/connectors", {"config": FILE_SOURCE}))


def test_a_changed_rules_file_is_in_force_without_a_restart_and_a_broken_one_keeps_the_rules(
    tmp_path: Path, started: list[Worker], caplog: pytest.LogCaptureFixture
) -> None:
    worker = start_worker(tmp_path, started, **{"rest.authorizer.rules.reload.ms": "50"})
    assert refused(worker.call("vera", "PUT", "/connectors/team-a-orders/pause"))
    promoted = json.loads(json.dumps(RULES))
    promoted["grants"].append({"to": ["user:vera"], "role": "operator", "connectors": ["team-a-orders"]})
    worker.rules.write_text(json.dumps(promoted))
    wait_until(lambda: worker.call("vera", "PUT", "/connectors/team-a-orders/pause").status_code == 202, 10)
    with caplog.at_level(logging.ERROR, logger="rest.authorization"):
        worker.rules.write_text('{"grants": [{"to": ["user:vera"], "role": "owner"}]}')
        wait_until(lambda: "role 'owner' is not one of" in caplog.text, 10, what="the broken file's error")
    assert worker.call("vera", "PUT", "/connectors/team-a-orders/resume").status_code == 202
    assert refused(worker.call("vera", "DELETE", "/connectors/team-a-orders"))


@pytest.mark.parametrize(
    ("props", "rules", "message"),
    [
        ({"rest.authorizer.rules.file": "/nonexistent/rules.json"}, None, r"cannot read /nonexistent/rules.json"),
        ({}, "{not json", r"rest.authorizer.rules.file: .*rules.json is not JSON"),
        ({"rest.authorizer.class": "NoSuchAuthorizer"}, None, r"no REST authorizer named NoSuchAuthorizer"),
        ({"rest.extension.classes": ""}, None, r"no REST extension authenticates callers"),
        ({"rest.authorizer.rules.reload.ms": "soon"}, None, r"Invalid value soon for configuration rest.authorizer"),
    ],
)
def test_a_worker_with_unusable_authorization_settings_does_not_start(
    tmp_path: Path, started: list[Worker], props: dict[str, str], rules: str | None, message: str
) -> None:
    if rules is not None:
        (tmp_path / "rules.json").write_text(rules)
    with pytest.raises(ConfigError, match=message):
        start_worker(tmp_path, started, **props)


def test_a_separate_admin_listener_and_health_keep_their_rules(tmp_path: Path, started: list[Worker]) -> None:
    worker = start_worker(tmp_path, started, **{"admin.listeners": "http://127.0.0.1:0"})
    admin_url = "http://{}:{}".format(*worker.server.admin_addresses[0])
    loggers = httpx.get(f"{admin_url}/admin/loggers", auth=("nobody", "pw-nobody"))
    assert loggers.status_code == 200
    assert httpx.get(f"{admin_url}/admin/loggers").status_code == 401
    assert worker.call("nobody", "GET", "/health").status_code == 200
    assert refused(worker.call("nobody", "GET", "/"))


class ReadOnlyAuthorizer(Authorizer):
    """A user's own authorizer: everybody reads, nobody changes anything."""

    def authorize(self, principal: Principal, operation: Operation, resource: Resource) -> bool:
        return operation.permission is None or operation.permission.value == "view"


def test_a_users_own_authorizer_decides_when_named(tmp_path: Path, started: list[Worker]) -> None:
    worker = start_worker(tmp_path, started, **{"rest.authorizer.class": f"{__name__}.ReadOnlyAuthorizer"})
    assert sorted(worker.call("nobody", "GET", "/connectors").json()) == ["team-a-orders", "team-b-orders"]
    assert refused(worker.call("root", "PUT", "/connectors/team-a-orders/pause"))


def test_kconnect_ctl_shows_what_the_user_may_view_and_says_which_permission_a_refusal_lacks(
    worker: Worker, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCONNECT_CTL_CONFIG", str(tmp_path / "ctl.json"))
    monkeypatch.delenv("KCONNECT_URL", raising=False)
    url = worker.server.local_url()
    context = ctl(capsys, "config", "set-context", "vera", "--url", url, "--user", "vera", "--password", "pw-vera")
    assert context.code == 0
    listed = ctl(capsys, "get", "connectors", "-o", "json")
    assert listed.code == 0 and list(json.loads(listed.out)) == ["team-a-orders"]
    refused_delete = ctl(capsys, "delete", "connector", "team-a-orders")
    assert refused_delete.code == 5
    assert "may not perform connector.delete on connector 'team-a-orders'" in refused_delete.err
    assert "needs the 'edit' permission" in refused_delete.err
    assert "team-a-orders" in worker.herder.connectors()


def test_a_connectors_history_says_who_wrote_each_version_and_ctl_puts_one_back(
    worker: Worker, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCONNECT_CTL_CONFIG", str(tmp_path / "ctl.json"))
    url = worker.server.local_url()
    for user in ("alice", "vera"):
        assert (
            ctl(capsys, "config", "set-context", user, "--url", url, "--user", user, "--password", f"pw-{user}").code
            == 0
        )
    assert (
        worker.call("alice", "PUT", "/connectors/team-a-h/config", {**FILE_SOURCE, "file": "a.txt"}).status_code == 201
    )
    assert worker.call("gail", "PATCH", "/connectors/team-a-h/config", {"file": "b.txt"}).status_code == 200

    versions = worker.call("vera", "GET", "/connectors/team-a-h/history").json()
    assert [(v["version"], v["user"], v["config"]["file"]) for v in versions] == [
        (1, "alice", "a.txt"),
        (2, "gail", "b.txt"),
    ]
    assert all(v["timestamp"] > 1_700_000_000_000 for v in versions)
    shown = ctl(capsys, "--context", "vera", "history", "team-a-h")
    assert shown.code == 0
    assert [line.split()[0::3] for line in shown.out.splitlines()[1:]] == [["1", "alice"], ["2", "gail"]]
    assert shown.out.splitlines()[2].endswith("~file")

    refused_rollback = ctl(capsys, "--context", "vera", "rollback", "team-a-h", "--to", "1")
    assert refused_rollback.code == 5 and "needs the 'edit' permission" in refused_rollback.err
    rolled = ctl(capsys, "--context", "alice", "rollback", "team-a-h", "--to", "1")
    assert (rolled.code, rolled.out.strip()) == (0, "Rolled back connector team-a-h to version 1")
    assert worker.herder.connector_config("team-a-h")["file"] == "a.txt"
    assert ctl(capsys, "--context", "alice", "rollback", "team-a-h", "--to", "7").code == 2

    assert worker.call("alice", "DELETE", "/connectors/team-a-h").status_code == 204
    after = worker.call("alice", "GET", "/connectors/team-a-h/history").json()
    assert [(v["version"], v["user"], v["config"] is None) for v in after[2:]] == [
        (3, "alice", False),
        (4, "alice", True),
    ]
    assert ctl(capsys, "--context", "alice", "rollback", "team-a-h", "--to", "4").code == 2
    assert refused(worker.call("nobody", "GET", "/connectors/team-a-h/history"))


def test_the_app_refuses_to_start_with_a_route_that_has_no_authorization_rule() -> None:
    app = create_app(FakeHerder())
    assert len(api_routes(app.router.routes)) >= len(LEAST_ROLE)
    extra = APIRouter()
    extra.add_api_route("/connectors/{connector}/secrets", lambda connector: {}, methods=["GET"])
    app.include_router(extra)
    with pytest.raises(RuntimeError, match=r"without an authorization rule: GET /connectors/\{connector\}/secrets"):
        check_every_route_has_a_rule(app)
