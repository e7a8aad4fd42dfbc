"""`kconnect health`: the container's health check reaches a worker through its own TLS and basic auth."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.logs.levels import LoggerLevels
from rest.app import create_app
from rest.listeners.for_worker import rest_server_for
from tests.fixtures.tcp_ports import free_port
from tests.support.certificates import STORE_PASSWORD, make_tls_files
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import isolated_root_logger
from workers.cli import main
from workers.common.health_check import check_health

MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"


def _secured_props(tmp_path: Path, port: int) -> tuple[dict[str, str], dict[str, str]]:
    tls = make_tls_files(tmp_path)
    (tmp_path / "users").write_text("ops: health-pw\nadmin: admin-pw\n")
    (tmp_path / "jaas.conf").write_text(f'KafkaConnect {{ {MODULE} required file="{tmp_path}/users"; }};')
    props = {
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "listeners": f"https://:{port}",
        "ssl.keystore.type": "PKCS12",
        "ssl.keystore.location": str(tls.server_p12),
        "ssl.keystore.password": STORE_PASSWORD,
        "ssl.truststore.type": "PKCS12",
        "ssl.truststore.location": str(tls.ca_p12),
        "ssl.truststore.password": STORE_PASSWORD,
        "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
    }
    return props, {"KAFKA_OPTS": f"-Djava.security.auth.login.config={tmp_path}/jaas.conf"}


def test_health_check_through_tls_and_basic_auth(tmp_path: Path) -> None:
    props, environ = _secured_props(tmp_path, free_port())
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    with rest_server_for(WorkerConfig.from_props(props), app, environ):
        healthy, message = check_health(props, environ)
        assert healthy, message
        assert '"status":"healthy"' in message.replace(" ", "")
        assert check_health(props, environ, user="admin")[0]
        # Without the JAAS file the command cannot authenticate, and says so.
        with pytest.raises(ConfigError, match="no JAAS file is set"):
            check_health(props, {})


def test_health_command_exit_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    props, environ = _secured_props(tmp_path, port)
    properties = tmp_path / "worker.properties"
    properties.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["health", str(properties), "--timeout", "2"]) == 1  # nothing listens yet
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    with rest_server_for(WorkerConfig.from_props(props), app, environ):
        assert main(["health", str(properties)]) == 0
