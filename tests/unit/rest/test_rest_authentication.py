"""REST authentication through `rest.extension.classes`: Kafka's basic-auth extension with its JAAS and
credentials files, and a user's own bearer-token extension, on a real server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.logs.levels import LoggerLevels
from rest.app import create_app
from rest.listeners.for_worker import rest_server_for
from rest.listeners.server import RestServer
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import isolated_root_logger

KAFKA_EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
PASSWORD = "s3cr3t:with-colon"
WORKER = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    "listeners": "http://127.0.0.1:0",
}


@pytest.fixture
def jaas(tmp_path: Path) -> Path:
    credentials = tmp_path / "connect.password"
    credentials.write_text(f"admin: {PASSWORD}\nreader: other\n")
    jaas = tmp_path / "jaas.conf"
    jaas.write_text(f'KafkaConnect {{\n  {MODULE} required\n  file="{credentials}";\n}};\n')
    return jaas


@pytest.fixture
def started() -> Iterator[list[RestServer]]:
    servers: list[RestServer] = []
    yield servers
    for server in servers:
        server.stop()


def _server(props: dict[str, str], environ: dict[str, str]) -> RestServer:
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    return rest_server_for(WorkerConfig.from_props({**WORKER, **props}), app, environ)


def _start(started: list[RestServer], props: dict[str, str], environ: dict[str, str]) -> RestServer:
    server = _server(props, environ)
    server.start()
    started.append(server)
    return server


def _kafka_opts(jaas: Path) -> dict[str, str]:
    return {"KAFKA_OPTS": f"-Xms256m -Djava.security.auth.login.config={jaas}"}


def test_basic_auth_with_kafkas_class_name_and_jaas_file(
    started: list[RestServer], jaas: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = _start(started, {"rest.extension.classes": KAFKA_EXTENSION}, _kafka_opts(jaas))
    base = server.local_url()
    for path in ("/", "/health", "/connectors", "/connector-plugins", "/admin/loggers"):
        refused = httpx.get(base + path)
        assert refused.status_code == 401, path
        assert refused.json() == {"error_code": 401, "message": "User cannot access the resource."}
        assert refused.headers["www-authenticate"].startswith('Basic realm="Kafka Connect"')
    with caplog.at_level(logging.DEBUG, logger="rest"):
        wrong = httpx.get(f"{base}/connectors", auth=("admin", "not-it"))
        unknown = httpx.get(f"{base}/connectors", auth=("mallory", PASSWORD))
    assert wrong.status_code == unknown.status_code == 401
    assert "REST authentication failed for user 'admin'" in caplog.text
    assert "not-it" not in caplog.text
    assert PASSWORD not in caplog.text
    assert httpx.get(f"{base}/connectors", auth=("admin", PASSWORD)).json() == []
    assert httpx.get(f"{base}/health", auth=("admin", PASSWORD)).status_code == 200
    assert httpx.post(f"{base}/connectors", auth=("admin", PASSWORD), json={}).status_code == 400
    # A non-Basic or malformed Authorization header is refused like none.
    assert httpx.get(base + "/", headers={"Authorization": "Basic !!!"}).status_code == 401
    assert httpx.get(base + "/", headers={"Authorization": "Bearer abc"}).status_code == 401


def test_the_admin_listener_needs_credentials_too(started: list[RestServer], jaas: Path) -> None:
    props = {"rest.extension.classes": KAFKA_EXTENSION, "admin.listeners": "http://127.0.0.1:0"}
    server = _start(started, props, {"KCONNECT_JAAS_CONFIG": str(jaas)})
    admin = f"http://127.0.0.1:{server.admin_addresses[0][1]}/admin/loggers"
    assert httpx.get(admin).status_code == 401
    assert httpx.get(admin, auth=("reader", "other")).status_code == 200


def test_a_users_bearer_token_extension_beside_basic_auth(started: list[RestServer], jaas: Path) -> None:
    props = {
        "rest.extension.classes": f"{KAFKA_EXTENSION},tests.support.bearer_extension.BearerTokenExtension",
        "rest.bearer.token": "tok-123",
    }
    server = _start(started, props, _kafka_opts(jaas))
    base = server.local_url()
    refused = httpx.get(f"{base}/connectors")
    assert refused.headers.get_list("www-authenticate") == [
        'Basic realm="Kafka Connect", charset="UTF-8"',
        'Bearer realm="kconnect"',
    ]
    assert httpx.get(f"{base}/connectors", headers={"Authorization": "Bearer tok-123"}).status_code == 200
    assert httpx.get(f"{base}/connectors", headers={"Authorization": "Bearer tok-12"}).status_code == 401
    assert httpx.get(f"{base}/connectors", auth=("admin", PASSWORD)).status_code == 200


@pytest.mark.parametrize(
    ("write", "environ", "message"),
    [
        (None, {}, r"needs a JAAS file: set KAFKA_OPTS=-Djava\.security\.auth\.login\.config=/path/jaas\.conf"),
        (None, {"KCONNECT_JAAS_CONFIG": "/nonexistent/jaas.conf"}, r"Cannot read the JAAS file '/nonexistent/jaas"),
        ("Other { x.Y required; };", None, r"has no KafkaConnect section"),
        ("KafkaConnect { com.example.LdapLoginModule required; };", None, r"LdapLoginModule, which kconnect does not"),
        (f"KafkaConnect {{ {MODULE} required; }};", None, r'needs a file="\.\.\." option'),
        (f'KafkaConnect {{ {MODULE} required file="/nonexistent/users"; }};', None, r"Cannot read the credentials"),
        ("KafkaConnect { ", None, r"Malformed JAAS file"),
    ],
)
def test_a_basic_auth_setup_that_cannot_work_stops_start_up(
    tmp_path: Path, write: str | None, environ: dict[str, str] | None, message: str
) -> None:
    if write is not None:
        (tmp_path / "jaas.conf").write_text(write)
    with pytest.raises(ConfigError, match=message):
        jaas_env = {"KCONNECT_JAAS_CONFIG": f"{tmp_path}/jaas.conf"}
        _server({"rest.extension.classes": KAFKA_EXTENSION}, environ if environ is not None else jaas_env)


def test_an_empty_credentials_file_stops_start_up(tmp_path: Path) -> None:
    (tmp_path / "users").write_text("\n# no users\n")
    (tmp_path / "jaas.conf").write_text(f'KafkaConnect {{ {MODULE} required file="{tmp_path}/users"; }};')
    with pytest.raises(ConfigError, match="has no users"):
        _server({"rest.extension.classes": KAFKA_EXTENSION}, {"KCONNECT_JAAS_CONFIG": str(tmp_path / "jaas.conf")})


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("com.example.NoSuchExtension", r"rest\.extension\.classes: cannot load com\.example\.NoSuchExtension"),
        ("NoSuchExtension", r"no REST extension named NoSuchExtension is installed \(installed: .*BasicAuth"),
        ("tests.support.fake_herder.FakeHerder", r"is not a RestExtension"),
    ],
)
def test_an_unknown_extension_stops_start_up(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _server({"rest.extension.classes": name}, {})


def test_an_extensions_own_config_error_stops_start_up() -> None:
    with pytest.raises(ConfigError, match=r"rest\.bearer\.token is required"):
        _server({"rest.extension.classes": "tests.support.bearer_extension.BearerTokenExtension"}, {})
