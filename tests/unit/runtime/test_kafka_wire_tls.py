"""TLS of the worker's own requests (group eviction) from librdkafka's settings: it trusts what they trust,
presents the client certificate they name in each of its forms, and checks host names unless told not to.
Against a local TLS server that asks for a client certificate."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator, Mapping

import pytest

from connect.api.errors import ConfigError
from connect.runtime.kafka.kafka_tls import tls_context
from tests.support.certificates import KEY_PASSWORD, STORE_PASSWORD, TlsFiles, make_tls_files


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls_files(tmp_path_factory.mktemp("tls"), server_dns_names=("broker.test",))


@pytest.fixture
def server(files: TlsFiles) -> Iterator[tuple[int, list[str]]]:
    """A TLS listener on 127.0.0.1 that requires a client certificate; the client common names it saw."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=files.ca_pem)
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_cert_chain(files.server_pem, password=KEY_PASSWORD)
    listener = socket.create_server(("127.0.0.1", 0))
    seen: list[str] = []

    def serve() -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(raw, server_side=True) as tls:
                    subject = dict(item[0] for item in tls.getpeercert()["subject"])
                    seen.append(str(subject["commonName"]))
                    tls.sendall(b"ok")
            except (ssl.SSLError, OSError):
                raw.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], seen
    finally:
        listener.close()


def talk(port: int, config: Mapping[str, str], host: str = "127.0.0.1") -> bytes:
    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        tls_context(config).wrap_socket(raw, server_hostname=host) as tls,
    ):
        return tls.recv(2)


def test_each_form_of_client_certificate_is_presented(files: TlsFiles, server: tuple[int, list[str]]) -> None:
    port, seen = server
    trust = {"ssl.ca.location": str(files.ca_pem)}
    forms = [
        {"ssl.certificate.location": str(files.client_cert_pem), "ssl.key.location": str(files.client_key_pem)},
        {"ssl.certificate.pem": files.client_cert_pem.read_text(), "ssl.key.pem": files.client_key_pem.read_text()},
        {"ssl.keystore.location": str(files.client_p12), "ssl.keystore.password": STORE_PASSWORD},
    ]
    for form in forms:
        assert talk(port, {**trust, **form}) == b"ok"
    assert seen == ["client", "client", "client"]


def test_trust_given_as_pem_text_works_and_a_ca_that_signed_nothing_here_fails(
    files: TlsFiles, server: tuple[int, list[str]]
) -> None:
    port, _ = server
    client = {"ssl.keystore.location": str(files.client_p12), "ssl.keystore.password": STORE_PASSWORD}
    assert talk(port, {"ssl.ca.pem": files.ca_pem.read_text(), **client}) == b"ok"
    with pytest.raises(ssl.SSLCertVerificationError):
        talk(port, {"ssl.ca.location": str(files.other_ca_pem), **client})


def test_host_names_are_checked_unless_the_endpoint_algorithm_is_none(
    files: TlsFiles, server: tuple[int, list[str]]
) -> None:
    port, _ = server
    config = {
        "ssl.ca.location": str(files.ca_pem),
        "ssl.keystore.location": str(files.client_p12),
        "ssl.keystore.password": STORE_PASSWORD,
    }
    assert talk(port, config, host="broker.test") == b"ok"
    with pytest.raises(ssl.SSLCertVerificationError, match="mismatch"):
        talk(port, config, host="elsewhere.test")
    assert talk(port, {**config, "ssl.endpoint.identification.algorithm": "none"}, host="elsewhere.test") == b"ok"


def test_an_unreadable_key_store_is_a_config_error_naming_it(files: TlsFiles) -> None:
    with pytest.raises(ConfigError, match=r"client\.p12"):
        tls_context({"ssl.keystore.location": str(files.client_p12), "ssl.keystore.password": "wrong"})
