"""The HTTP layers a worker's config puts around its REST app: CORS, response headers, the body limit,
and their order with authentication (preflights answered without credentials, refusals with headers)."""

from __future__ import annotations

import base64
import email.utils
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.logs.levels import LoggerLevels
from rest.app import create_app
from rest.http_layers.response_headers import parse_header_rules
from rest.http_layers.stack import http_stack
from rest.listeners.for_worker import rest_server_for
from tests.support.asgi_client import AsgiClient
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import file_source_config, isolated_root_logger

WORKER = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}
MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"


def _client(props: dict[str, str], environ: dict[str, str] | None = None) -> AsgiClient:
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    return AsgiClient(http_stack(app, WorkerConfig.from_props({**WORKER, **props}), environ or {}).app)


def _basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def test_without_an_origin_key_no_cors_headers_are_sent() -> None:
    response = _client({}).get("/connectors", headers={"Origin": "https://ui.example.com"})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


def test_cors_preflight_and_simple_requests_from_allowed_origins() -> None:
    client = _client(
        {
            "access.control.allow.origin": "https://ui.example.com,https://*.corp.example",
            "access.control.allow.methods": "GET,POST,PUT,DELETE",
        }
    )
    preflight = client.request(
        "OPTIONS",
        "/connectors",
        headers={"Origin": "https://ui.example.com", "Access-Control-Request-Method": "PUT"},
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://ui.example.com"
    assert "PUT" in preflight.headers["access-control-allow-methods"]
    assert preflight.headers["access-control-allow-credentials"] == "true"
    simple = client.get("/connectors", headers={"Origin": "https://team.corp.example"})
    assert simple.headers["access-control-allow-origin"] == "https://team.corp.example"
    other = client.get("/connectors", headers={"Origin": "https://evil.example.org"})
    assert "access-control-allow-origin" not in other.headers
    refused = client.request(
        "OPTIONS", "/connectors", headers={"Origin": "https://ui.example.com", "Access-Control-Request-Method": "PATCH"}
    )
    assert refused.status_code == 400


def test_cors_methods_default_to_jettys(tmp_path: Path) -> None:
    client = _client({"access.control.allow.origin": "*"})
    preflight = client.request(
        "OPTIONS", "/connectors", headers={"Origin": "https://a.example", "Access-Control-Request-Method": "GET"}
    )
    assert preflight.headers["access-control-allow-methods"] == "GET, POST, HEAD"


def test_preflights_need_no_credentials_and_refusals_carry_cors_headers(tmp_path: Path) -> None:
    (tmp_path / "users").write_text("admin: pw\n")
    (tmp_path / "jaas.conf").write_text(f'KafkaConnect {{ {MODULE} required file="{tmp_path}/users"; }};')
    client = _client(
        {
            "access.control.allow.origin": "https://ui.example.com",
            "rest.extension.classes": "BasicAuthSecurityRestExtension",
            "response.http.headers.config": "set X-Frame-Options: DENY",
        },
        {"KCONNECT_JAAS_CONFIG": str(tmp_path / "jaas.conf")},
    )
    origin = {"Origin": "https://ui.example.com"}
    preflight = client.request("OPTIONS", "/connectors", headers={**origin, "Access-Control-Request-Method": "GET"})
    assert preflight.status_code == 200
    assert "Authorization" in preflight.headers["access-control-allow-headers"]
    refused = client.get("/connectors", headers=origin)
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == "https://ui.example.com"
    assert refused.headers["x-frame-options"] == "DENY"
    assert client.get("/connectors", headers={**origin, **_basic("admin", "pw")}).status_code == 200


def test_response_headers_in_jettys_syntax() -> None:
    client = _client(
        {
            "response.http.headers.config": (
                'set X-Frame-Options: DENY,"add Cache-Control: no-cache, no-store, must-revalidate",'
                "setDate Expires: 3600000, ADD X-Team: connect, add X-Team: platform"
            )
        }
    )
    before = time.time()
    response = client.get("/connectors")
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["cache-control"] == "no-cache, no-store, must-revalidate"
    assert response.headers.get_list("x-team") == ["connect", "platform"]
    expires = email.utils.parsedate_to_datetime(response.headers["expires"]).timestamp()
    assert before + 3600 - 2 <= expires <= time.time() + 3600 + 1


def test_set_replaces_a_header_the_app_sent() -> None:
    response = _client({"response.http.headers.config": "set Content-Type: application/vnd.test+json"}).get("/")
    assert response.headers.get_list("content-type") == ["application/vnd.test+json"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("replace X-A: b", "the action must be one of"),
        ("set X-A", "exactly one ':'"),
        ("set X-A: http://b", "exactly one ':'"),
        ("set : b", "non-empty"),
        ('"set X-A: b', "unbalanced double quote"),
        ("setDate Expires: tomorrow", "milliseconds"),
    ],
)
def test_bad_response_header_rules_stop_start_up_naming_the_key(value: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=rf"response\.http\.headers\.config.*{problem}"):
        parse_header_rules(value)
    with pytest.raises(ConfigError, match=problem):
        _client({"response.http.headers.config": value})


def test_request_bodies_over_the_limit_are_refused() -> None:
    client = _client({"rest.request.body.max.bytes": "2000"})
    config = file_source_config()
    accepted = client.post("/connectors", json={"name": "small", "config": config})
    assert accepted.status_code == 201
    big = {"name": "big", "config": {**config, "padding": "x" * 3000}}
    refused = client.post("/connectors", json=big)
    assert refused.status_code == 413
    assert refused.json() == {
        "error_code": 413,
        "message": "The request body is larger than rest.request.body.max.bytes=2000 bytes",
    }
    assert client.get("/connectors").json() == ["small"]


def test_a_chunked_body_is_counted_as_it_arrives() -> None:
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    config = WorkerConfig.from_props(
        {**WORKER, "listeners": "http://127.0.0.1:0", "rest.request.body.max.bytes": "2000"}
    )
    with rest_server_for(config, app) as server:

        def chunks() -> Iterator[bytes]:
            yield b'{"name": "chunked", "config": {"padding": "'
            for _ in range(10):
                yield b"y" * 500
            yield b'"}}'

        chunked = httpx.post(
            f"{server.local_url()}/connectors", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert "content-length" not in chunked.request.headers
        assert chunked.status_code == 413
        assert httpx.get(f"{server.local_url()}/connectors").json() == []


def test_a_browsers_write_from_another_site_is_refused_before_authentication(tmp_path: Path) -> None:
    jaas = tmp_path / "jaas.conf"
    users = tmp_path / "users"
    users.write_text("admin: secret\n")
    jaas.write_text(f'KafkaConnect {{ {MODULE} required file="{users}"; }};\n')
    props = {
        "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
    }
    client = _client(props, {"KCONNECT_JAAS_CONFIG": str(jaas)})
    body = {"name": "src", "config": file_source_config()}
    forged = client.post(
        "/connectors", json=body, headers={"Origin": "https://evil.example", **_basic("admin", "secret")}
    )
    assert forged.status_code == 403
    assert forged.json()["error_code"] == 403 and "https://evil.example" in forged.json()["message"]
    # Reads stay as they were; the worker's own pages and clients without Origin write as before.
    assert (
        client.get("/connectors", headers={"Origin": "https://evil.example", **_basic("admin", "secret")}).status_code
        == 200
    )
    own = client.post("/connectors", json=body, headers={"Origin": "http://testserver", **_basic("admin", "secret")})
    assert own.status_code == 201, own.text
    assert client.delete("/connectors/src", headers=_basic("admin", "secret")).status_code == 204


def test_origins_cors_allows_may_write() -> None:
    client = _client({"access.control.allow.origin": "https://*.corp.example", "access.control.allow.methods": "POST"})
    body = {"name": "src", "config": file_source_config()}
    allowed = client.post("/connectors", json=body, headers={"Origin": "https://ui.corp.example"})
    assert allowed.status_code == 201, allowed.text
    refused = client.post("/connectors", json=body, headers={"Origin": "https://ui.other.example"})
    assert refused.status_code == 403
