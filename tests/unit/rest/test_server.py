"""RestServer: Kafka's `listeners` syntax, and a real server on an ephemeral loopback port."""

from __future__ import annotations

import socket
import statistics
import time

import httpx
import pytest

from connect.api.errors import ConfigError
from connect.runtime.logs.levels import LoggerLevels
from rest.app import create_app
from rest.listeners.server import Listener, RestServer, parse_listeners
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import file_source_config, isolated_root_logger


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://:8083", [Listener("http", "", 8083)]),
        ("HTTP://localhost:0/", [Listener("http", "localhost", 0)]),
        ("http://[::1]:8083", [Listener("http", "[::1]", 8083)]),
        ("http://a:1, http://b:2", [Listener("http", "a", 1), Listener("http", "b", 2)]),
    ],
)
def test_parse_listeners(text: str, expected: list[Listener]) -> None:
    assert parse_listeners(text) == expected


def test_empty_host_binds_all_interfaces() -> None:
    assert Listener("http", "", 8083).bind_host == "0.0.0.0"
    assert Listener("http", "[::1]", 8083).bind_host == "::1"


@pytest.mark.parametrize("text", ["", "localhost:8083", "http://host", "http://host:99999", "ftp://:21"])
def test_bad_listeners_are_config_errors(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_listeners(text)


def test_serves_on_an_ephemeral_port_and_stops() -> None:
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    server = RestServer(app, "http://127.0.0.1:0")
    server.start()
    try:
        assert server.port > 0
        assert server.advertised_url == f"http://127.0.0.1:{server.port}/"
        base = f"http://127.0.0.1:{server.port}"
        response = httpx.get(f"{base}/")
        assert response.status_code == 200
        assert response.json()["version"] == "0.1.0"
        created = httpx.post(f"{base}/connectors/", json={"name": "src", "config": file_source_config()})
        assert created.status_code == 201
        assert httpx.get(f"{base}/connectors").json() == ["src"]
    finally:
        server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{server.port}/")


def test_a_port_in_use_fails_in_start() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = RestServer(create_app(FakeHerder()), f"http://127.0.0.1:{port}")
        with pytest.raises(OSError, match="Cannot bind REST listener"):
            server.start()


def test_advertised_host_and_port_override_the_listener() -> None:
    server = RestServer(create_app(FakeHerder()), "http://:8083", advertised_host="node1", advertised_port=9000)
    assert server.advertised_url == "http://node1:9000/"


def test_kept_alive_connections_answer_without_waiting_on_delayed_acks() -> None:
    # Without TCP_NODELAY on accepted connections, each response on a kept-alive connection waits ~40 ms for
    # the client's delayed ACK (Nagle); the median of many sequential requests shows it whatever the load.
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    with RestServer(app, "http://127.0.0.1:0") as server, httpx.Client() as client:
        url = f"http://127.0.0.1:{server.port}/connectors"
        assert client.get(url).status_code == 200
        durations = []
        for _ in range(30):
            started = time.perf_counter()
            assert client.get(url).status_code == 200
            durations.append(time.perf_counter() - started)
    assert statistics.median(durations) < 0.015
