"""What the converter sends a registry for basic and bearer authentication, seen by a loopback HTTP server
that answers like a registry requiring it (Apicurio, the integration tests' registry, takes basic
credentials only through an OIDC server, which these machines lack; tests/integration/
test_registry_bearer_auth.py puts it behind a gateway for bearer tokens)."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from connect.api.data import STRING_SCHEMA
from connect.api.errors import DataError
from connect.converters.schema_registry.avro import AvroConverter

USER, PASSWORD = "alice", "s3cret"
TOKEN = "t0ken-5e1f"
# The Avro binary of the string "k" under schema id 1.
FRAMED = b"\x00\x00\x00\x00\x01\x02k"


class _Registry(BaseHTTPRequestHandler):
    """Answers GET /schemas/ids/1 with the schema "string" to requests with alice's credentials or TOKEN,
    401 else."""

    seen: list[str | None] = []
    headers_seen: list[dict[str, str]] = []

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        header = self.headers.get("Authorization")
        self.seen.append(header)
        self.headers_seen.append(dict(self.headers.items()))
        basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        if header not in (basic, f"Bearer {TOKEN}"):
            # Echoes what it got, as some gateways do: the converter must still hide the secret.
            self._answer(401, {"error_code": 401, "message": f"Unauthorized: {header}"})
            return False
        return True

    def do_GET(self) -> None:
        if self._authorized():
            self._answer(200, {"schema": '"string"', "schemaType": "AVRO"})

    def do_POST(self) -> None:  # the version lookup: not registered under the subject
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self._authorized():
            self._answer(404, {"error_code": 40403, "message": "Schema not found"})

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def registry() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Registry.seen = []
    _Registry.headers_seen = []
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _read(configs: dict[str, str]) -> Any:
    converter = AvroConverter()
    converter.configure({"max.retries": "0", **configs}, False)
    try:
        return converter.to_connect_data("keys", FRAMED)
    finally:
        converter.close()


def test_user_info_credentials_are_sent(registry: str) -> None:
    read = _read(
        {
            "schema.registry.url": f"http://{registry}",
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": f"{USER}:{PASSWORD}",
        }
    )
    assert read == (STRING_SCHEMA, "k")


def test_credentials_in_the_url_are_sent(registry: str) -> None:
    assert _read({"schema.registry.url": f"http://{USER}:{PASSWORD}@{registry}"}).value == "k"


def test_a_refused_login_is_a_data_error_without_the_password(registry: str) -> None:
    with pytest.raises(DataError, match="HTTP 401") as refused:
        _read(
            {
                "schema.registry.url": f"http://{registry}",
                "basic.auth.credentials.source": "USER_INFO",
                "schema.registry.basic.auth.user.info": f"{USER}:wrong-{PASSWORD}",
            }
        )
    assert PASSWORD not in str(refused.value) and "wrong" not in str(refused.value)
    encoded = base64.b64encode(f"{USER}:wrong-{PASSWORD}".encode()).decode()
    assert encoded not in str(refused.value) and "Basic [hidden]" in str(refused.value)
    assert _Registry.seen and _Registry.seen[0] is not None


def test_a_static_bearer_token_is_sent_with_the_confluent_cloud_headers(registry: str) -> None:
    read = _read(
        {
            "schema.registry.url": f"http://{registry}",
            "bearer.auth.credentials.source": "STATIC_TOKEN",
            "bearer.auth.token": TOKEN,
            "bearer.auth.logical.cluster": "lsrc-42",
            "bearer.auth.identity.pool.id": "pool-1,pool-2",
        }
    )
    assert read.value == "k"
    assert _Registry.headers_seen  # the schema by id, then its version under the subject
    for headers in _Registry.headers_seen:
        assert headers["Authorization"] == f"Bearer {TOKEN}"
        assert headers["target-sr-cluster"] == "lsrc-42"
        assert headers["Confluent-Identity-Pool-Id"] == "pool-1,pool-2"


def test_a_refused_bearer_token_is_a_data_error_without_the_token(registry: str) -> None:
    with pytest.raises(DataError, match="HTTP 401") as refused:
        _read(
            {
                "schema.registry.url": f"http://{registry}",
                "bearer.auth.credentials.source": "STATIC_TOKEN",
                "bearer.auth.token": f"{TOKEN}-revoked",
            }
        )
    assert TOKEN not in str(refused.value)
    assert _Registry.seen == [f"Bearer {TOKEN}-revoked"]
