"""`admin.listeners`: the `/admin` endpoints on the regular listeners (unset), on their own (a list), or off."""

from __future__ import annotations

import ssl
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
from tests.support.certificates import STORE_PASSWORD, make_tls_files
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import isolated_root_logger

CONVERTERS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}


@pytest.fixture
def started() -> Iterator[list[RestServer]]:
    servers: list[RestServer] = []
    yield servers
    for server in servers:
        server.stop()


def _start(started: list[RestServer], props: dict[str, str]) -> RestServer:
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    server = rest_server_for(WorkerConfig.from_props({**CONVERTERS, **props}), app)
    server.start()
    started.append(server)
    return server


def test_unset_serves_admin_on_the_regular_listeners(started: list[RestServer]) -> None:
    server = _start(started, {"listeners": "http://127.0.0.1:0"})
    assert httpx.get(f"{server.local_url()}/admin/loggers").status_code == 200
    assert server.admin_addresses == []


def test_a_list_moves_admin_to_its_own_listener(started: list[RestServer]) -> None:
    server = _start(started, {"listeners": "http://127.0.0.1:0", "admin.listeners": "http://127.0.0.1:0"})
    regular = server.local_url()
    admin = f"http://127.0.0.1:{server.admin_addresses[0][1]}"
    assert httpx.get(f"{admin}/admin/loggers").status_code == 200
    refused = httpx.get(f"{regular}/admin/loggers")
    assert refused.status_code == 404
    assert refused.json() == {"error_code": 404, "message": "HTTP 404 Not Found"}
    assert httpx.get(f"{regular}/connectors").status_code == 200
    assert httpx.get(f"{admin}/connectors").status_code == 404


def test_an_empty_value_turns_admin_off(started: list[RestServer]) -> None:
    server = _start(started, {"listeners": "http://127.0.0.1:0", "admin.listeners": ""})
    assert httpx.get(f"{server.local_url()}/admin/loggers").status_code == 404
    assert httpx.put(f"{server.local_url()}/admin/loggers/root", json={"level": "DEBUG"}).status_code == 404
    assert httpx.get(f"{server.local_url()}/connectors").status_code == 200


def test_admin_listeners_may_not_share_a_port() -> None:
    with pytest.raises(ConfigError, match=r"admin\.listeners must not share a port"):
        RestServer(create_app(FakeHerder()), "http://127.0.0.1:8083", admin_listeners="http://localhost:8083")
    with pytest.raises(ConfigError, match=r"Invalid admin\.listeners entry 'ftp://:1'"):
        RestServer(create_app(FakeHerder()), "http://:0", admin_listeners="ftp://:1")


def test_an_https_admin_listener_reads_its_own_prefixed_keys(started: list[RestServer], tmp_path: Path) -> None:
    tls = make_tls_files(tmp_path)
    server = _start(
        started,
        {
            "listeners": "http://127.0.0.1:0",
            "admin.listeners": "https://127.0.0.1:0",
            "admin.listeners.https.ssl.keystore.type": "PKCS12",
            "admin.listeners.https.ssl.keystore.location": str(tls.server_p12),
            "admin.listeners.https.ssl.keystore.password": STORE_PASSWORD,
        },
    )
    admin = f"https://127.0.0.1:{server.admin_addresses[0][1]}/admin/loggers"
    context = ssl.create_default_context(cafile=str(tls.ca_pem))
    assert httpx.get(admin, verify=context).status_code == 200
    # Without admin.listeners.https.* keys, the plain ssl.* keys serve (all or nothing, as in Kafka).
    with pytest.raises(ConfigError, match=r"needs a key store: set ssl\.keystore\.location"):
        _start(started, {"listeners": "http://127.0.0.1:0", "admin.listeners": "https://127.0.0.1:0"})
