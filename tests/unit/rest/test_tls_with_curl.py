"""A third-party client against a secured listener: curl (OpenSSL) with mutual TLS and basic auth."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.logs.levels import LoggerLevels
from rest.app import create_app
from rest.listeners.for_worker import rest_server_for
from rest.listeners.server import RestServer
from tests.support.certificates import STORE_PASSWORD, TlsFiles, make_tls_files
from tests.support.fake_herder import FakeHerder
from tests.support.rest_harness import isolated_root_logger

CURL = shutil.which("curl")
pytestmark = pytest.mark.skipif(CURL is None, reason="needs curl")
MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[tuple[RestServer, TlsFiles]]:
    tls = make_tls_files(tmp_path)
    (tmp_path / "users").write_text("admin: curl-pw\n")
    (tmp_path / "jaas.conf").write_text(f'KafkaConnect {{ {MODULE} required file="{tmp_path}/users"; }};')
    props = {
        "key.converter": "StringConverter",
        "value.converter": "StringConverter",
        "listeners": "https://127.0.0.1:0",
        "ssl.keystore.type": "PKCS12",
        "ssl.keystore.location": str(tls.server_p12),
        "ssl.keystore.password": STORE_PASSWORD,
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(tls.ca_pem),
        "ssl.client.auth": "required",
        "ssl.enabled.protocols": "TLSv1.3",
        "rest.extension.classes": "BasicAuthSecurityRestExtension",
    }
    app = create_app(FakeHerder(), loggers=LoggerLevels(isolated_root_logger()))
    with rest_server_for(
        WorkerConfig.from_props(props), app, {"KCONNECT_JAAS_CONFIG": str(tmp_path / "jaas.conf")}
    ) as server:
        yield server, tls


def _curl(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    assert CURL is not None
    command = [CURL, "--silent", "--show-error", "--max-time", "10", "--write-out", "\n%{http_code}", *args, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


def test_curl_with_a_client_certificate_and_credentials(secured: tuple[RestServer, TlsFiles]) -> None:
    server, tls = secured
    url = f"https://localhost:{server.port}/connectors"
    identity = ["--cacert", str(tls.ca_pem), "--cert", str(tls.client_cert_pem), "--key", str(tls.client_key_pem)]
    ok = _curl(url, *identity, "--user", "admin:curl-pw", "--tlsv1.3")
    assert ok.returncode == 0, ok.stderr
    body, status = ok.stdout.rsplit("\n", 1)
    assert (json.loads(body), status) == ([], "200")

    no_credentials = _curl(url, *identity, "--include")
    assert no_credentials.stdout.rsplit("\n", 1)[1] == "401"
    assert 'www-authenticate: Basic realm="Kafka Connect"' in no_credentials.stdout

    no_certificate = _curl(url, "--cacert", str(tls.ca_pem), "--user", "admin:curl-pw")
    assert no_certificate.returncode != 0  # the handshake is refused: no HTTP answer at all
    assert no_certificate.stdout.rsplit("\n", 1)[1] == "000"

    tls12_only = _curl(url, *identity, "--user", "admin:curl-pw", "--tls-max", "1.2")
    assert tls12_only.returncode != 0
