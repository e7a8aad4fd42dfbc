#!/usr/bin/env python3
"""`kafka-broker-api-versions.sh --bootstrap-server HOST:PORT[,...]` in the Kafka image: the part of Kafka's
tool (BrokerApiVersionsCommand) that health checks use. It sends each listed broker an ApiVersions request
(KIP-35) and exits 0 when every one answers without error, printing the number of APIs each supports.

The image has the broker's jars only, not the kafka-tools jar and its dependencies, so this is a small
client of the Kafka protocol instead. It has the same path and arguments as the official image's tool, so
one compose health check (`docker/compose.yaml`) serves both images. A broker accepts requests only once
it has started, which is what the check needs to know.
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys

API_VERSIONS_KEY = 18
# Version 0 of the request and its response: no tagged fields, the oldest every broker answers.
API_VERSION = 0
CLIENT_ID = b"kafka-image-health-check"
CORRELATION_ID = 1
DEFAULT_TIMEOUT_S = 10.0


def request() -> bytes:
    """An ApiVersions v0 request: request header v1 (api key, version, correlation id, client id), no body."""
    header = struct.pack(">hhih", API_VERSIONS_KEY, API_VERSION, CORRELATION_ID, len(CLIENT_ID)) + CLIENT_ID
    return struct.pack(">i", len(header)) + header


def parse_response(payload: bytes) -> int:
    """The number of APIs an ApiVersions v0 response lists; ValueError if it carries an error."""
    correlation_id, error_code, count = struct.unpack_from(">ihi", payload)
    if correlation_id != CORRELATION_ID:
        raise ValueError(f"answer to another request (correlation id {correlation_id})")
    if error_code != 0:
        raise ValueError(f"error code {error_code}")
    return int(count)


def _read_exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        data += chunk
    return data


def api_count(address: str, timeout: float) -> int:
    host, _, port = address.rpartition(":")
    with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as connection:
        connection.sendall(request())
        (size,) = struct.unpack(">i", _read_exactly(connection, 4))
        return parse_response(_read_exactly(connection, size))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-broker-api-versions.sh", description=__doc__)
    parser.add_argument("--bootstrap-server", required=True, help="HOST:PORT[,HOST:PORT...]")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds for each broker")
    args = parser.parse_args(argv)
    failed = False
    for address in filter(None, (a.strip() for a in args.bootstrap_server.split(","))):
        try:
            print(f"{address} -> {api_count(address, args.timeout)} APIs")
        except (OSError, ValueError, struct.error) as exc:
            print(f"{address} -> no answer: {exc}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
