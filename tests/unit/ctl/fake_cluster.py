"""A small HTTP server that answers like a Kafka Connect REST API from canned routes and records every
request (method, path, query, headers, JSON body): enough to check what `kconnect ctl` sends and how it
reads answers, without a worker. Optionally https with a certificate made by `openssl`."""

from __future__ import annotations

import json
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class FakeCluster:
    """`routes[(method, path)] = (status, body)`; anything else is Kafka's 404 answer."""

    url: str = ""
    routes: dict[tuple[str, str], tuple[int, Any]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)

    def answer(self, method: str, path: str, status: int, body: Any = None) -> None:
        self.routes[(method, path)] = (status, body)

    def sent(self, method: str) -> list[Request]:
        return [request for request in self.requests if request.method == method]


def _handler(cluster: FakeCluster) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            cluster.requests.append(
                Request(
                    self.command, url.path, parse_qs(url.query), dict(self.headers), json.loads(raw) if raw else None
                )
            )
            status, body = cluster.routes.get(
                (self.command, url.path), (404, {"error_code": 404, "message": f"Unknown resource {url.path}"})
            )
            payload = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def fake_cluster(tls_directory: Path | None = None) -> Iterator[FakeCluster]:
    """A running fake cluster on a free loopback port; https if `tls_directory` is given (its `cert.pem`
    is the CA file a client must trust)."""
    cluster = FakeCluster()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(cluster))
    scheme = "http"
    if tls_directory is not None:
        cert, key = self_signed_certificate(tls_directory)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    cluster.url = f"{scheme}://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="fake-connect", daemon=True)
    thread.start()
    try:
        yield cluster
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key
