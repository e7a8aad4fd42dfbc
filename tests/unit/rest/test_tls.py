"""https listeners with Kafka Connect's keys: real TLS handshakes on loopback, with stores made at test time."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from connect.api.errors import ConfigError
from connect.runtime.config.worker_config import WorkerConfig
from rest.app import create_app
from rest.listeners.for_worker import rest_server_for
from rest.listeners.server import RestServer
from tests.support.certificates import KEY_PASSWORD, STORE_PASSWORD, TlsFiles, make_jks, make_tls_files
from tests.support.fake_herder import FakeHerder

CONVERTERS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls_files(tmp_path_factory.mktemp("tls"))


def _pkcs12_keys(tls: TlsFiles, prefix: str = "") -> dict[str, str]:
    return {
        f"{prefix}ssl.keystore.type": "PKCS12",
        f"{prefix}ssl.keystore.location": str(tls.server_p12),
        f"{prefix}ssl.keystore.password": STORE_PASSWORD,
        f"{prefix}ssl.truststore.type": "PKCS12",
        f"{prefix}ssl.truststore.location": str(tls.ca_p12),
        f"{prefix}ssl.truststore.password": STORE_PASSWORD,
    }


def _server(props: dict[str, str]) -> RestServer:
    return rest_server_for(WorkerConfig.from_props({**CONVERTERS, **props}), create_app(FakeHerder()))


@pytest.fixture
def serve() -> Iterator[list[RestServer]]:
    started: list[RestServer] = []
    yield started
    for server in started:
        server.stop()


def _start(serve: list[RestServer], props: dict[str, str]) -> RestServer:
    server = _server(props)
    server.start()
    serve.append(server)
    return server


def _client_context(trust: Path, cert: Path | None = None, key: Path | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(trust))
    if cert is not None:
        context.load_cert_chain(cert, key)
    return context


def _get(url: str, context: ssl.SSLContext) -> httpx.Response:
    return httpx.get(url, verify=context, timeout=10)


def test_https_listener_with_pkcs12_stores_serves_over_tls(serve: list[RestServer], tls: TlsFiles) -> None:
    server = _start(serve, {"listeners": "https://127.0.0.1:0", **_pkcs12_keys(tls)})
    url = server.local_url("https")
    assert url.startswith("https://")
    response = _get(f"{url}/", _client_context(tls.ca_pem))
    assert response.status_code == 200
    assert response.json()["version"]
    assert server.advertised_url.startswith("https://")
    # A client that does not trust the listener's CA is refused by its own verification.
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        _get(f"{url}/", _client_context(tls.other_ca_pem))
    # Plain HTTP to the https port gets no HTTP answer.
    with pytest.raises(httpx.HTTPError):
        httpx.get(url.replace("https://", "http://") + "/", timeout=10)


def test_mixed_listeners_and_the_advertised_listener(serve: list[RestServer], tls: TlsFiles) -> None:
    props = {"listeners": "http://127.0.0.1:0,https://127.0.0.1:0", **_pkcs12_keys(tls)}
    server = _start(serve, props)
    assert httpx.get(f"{server.local_url('http')}/connectors").json() == []
    assert _get(f"{server.local_url('https')}/connectors", _client_context(tls.ca_pem)).json() == []
    # Kafka's rule: http is advertised when there is an http listener, unless rest.advertised.listener says.
    assert server.advertised_url.startswith("http://")
    https_port = server.bound_addresses[1][1]
    chosen = _server({**props, "rest.advertised.listener": "https", "listeners": f"http://:0,https://:{https_port}"})
    assert chosen.advertised_url.endswith(f":{https_port}/")
    assert chosen.advertised_url.startswith("https://")
    with pytest.raises(ConfigError, match=r"rest.advertised.listener is https but listeners has no https"):
        _server({"listeners": "http://:0", "rest.advertised.listener": "https"})


def test_prefixed_keys_replace_the_plain_ones_all_or_nothing(serve: list[RestServer], tls: TlsFiles) -> None:
    broken_plain = {"ssl.keystore.location": "/nonexistent/keystore.p12", "ssl.keystore.password": "nope"}
    server = _start(
        serve,
        {"listeners": "https://127.0.0.1:0", **broken_plain, **_pkcs12_keys(tls, "listeners.https.")},
    )
    assert _get(f"{server.local_url()}/", _client_context(tls.ca_pem)).status_code == 200
    # One prefixed key is enough to ignore every plain one: the keystore is then missing.
    with pytest.raises(ConfigError, match=r"set listeners\.https\.ssl\.keystore\.location"):
        _server({"listeners": "https://:0", **_pkcs12_keys(tls), "listeners.https.ssl.client.auth": "none"})


def test_pem_key_store_with_an_encrypted_key_and_a_pem_trust_store(serve: list[RestServer], tls: TlsFiles) -> None:
    props = {
        "listeners": "https://127.0.0.1:0",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(tls.server_pem),
        "ssl.key.password": KEY_PASSWORD,
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(tls.ca_pem),
        "ssl.client.auth": "required",
    }
    server = _start(serve, props)
    context = _client_context(tls.ca_pem, tls.client_cert_pem, tls.client_key_pem)
    assert _get(f"{server.local_url()}/", context).status_code == 200
    with pytest.raises(ConfigError, match=r"ssl\.key\.password"):
        _server({**props, "ssl.key.password": "wrong"})


def test_pem_stores_given_in_the_config(serve: list[RestServer], tls: TlsFiles) -> None:
    key, chain = tls.server_pem.read_text().split("-----END ENCRYPTED PRIVATE KEY-----\n")
    server = _start(
        serve,
        {
            "listeners": "https://127.0.0.1:0",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.key": key + "-----END ENCRYPTED PRIVATE KEY-----\n",
            "ssl.keystore.certificate.chain": chain,
            "ssl.key.password": KEY_PASSWORD,
        },
    )
    assert _get(f"{server.local_url()}/", _client_context(tls.ca_pem)).status_code == 200


def test_required_client_auth_refuses_a_handshake_without_a_trusted_certificate(
    serve: list[RestServer], tls: TlsFiles
) -> None:
    server = _start(serve, {"listeners": "https://127.0.0.1:0", **_pkcs12_keys(tls), "ssl.client.auth": "required"})
    url = f"{server.local_url()}/"
    with pytest.raises(httpx.HTTPError):
        _get(url, _client_context(tls.ca_pem))
    with pytest.raises(httpx.HTTPError):
        _get(url, _client_context(tls.ca_pem, tls.rogue_client_cert_pem, tls.rogue_client_key_pem))
    assert _get(url, _client_context(tls.ca_pem, tls.client_cert_pem, tls.client_key_pem)).status_code == 200


def test_requested_client_auth_lets_clients_without_a_certificate_in(serve: list[RestServer], tls: TlsFiles) -> None:
    server = _start(serve, {"listeners": "https://127.0.0.1:0", **_pkcs12_keys(tls), "ssl.client.auth": "requested"})
    assert _get(f"{server.local_url()}/", _client_context(tls.ca_pem)).status_code == 200
    with pytest.raises(httpx.HTTPError):
        _get(f"{server.local_url()}/", _client_context(tls.ca_pem, tls.rogue_client_cert_pem, tls.rogue_client_key_pem))


def test_enabled_protocols_refuse_older_clients(serve: list[RestServer], tls: TlsFiles) -> None:
    server = _start(
        serve, {"listeners": "https://127.0.0.1:0", **_pkcs12_keys(tls), "ssl.enabled.protocols": "TLSv1.3"}
    )
    old_client = _client_context(tls.ca_pem)
    old_client.maximum_version = ssl.TLSVersion.TLSv1_2
    with pytest.raises(httpx.ConnectError):
        _get(f"{server.local_url()}/", old_client)
    assert _get(f"{server.local_url()}/", _client_context(tls.ca_pem)).status_code == 200
    with pytest.raises(ConfigError, match=r"TLSv1\.1 in ssl\.enabled\.protocols"):
        _server({"listeners": "https://:0", **_pkcs12_keys(tls), "ssl.enabled.protocols": "TLSv1.1,TLSv1.2"})


def test_cipher_suites_in_java_names_limit_the_handshake(serve: list[RestServer], tls: TlsFiles) -> None:
    suite = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
    server = _start(serve, {"listeners": "https://127.0.0.1:0", **_pkcs12_keys(tls), "ssl.cipher.suites": suite})
    client = _client_context(tls.ca_pem)
    with httpx.Client(verify=client, timeout=10) as http:
        response = http.get(f"{server.local_url()}/")
        stream = response.extensions["network_stream"]
        assert stream.get_extra_info("ssl_object").cipher()[0] == "ECDHE-ECDSA-AES256-GCM-SHA384"
    only_other = _client_context(tls.ca_pem)
    only_other.set_ciphers("ECDHE-ECDSA-AES128-GCM-SHA256")
    with pytest.raises(httpx.ConnectError):
        _get(f"{server.local_url()}/", only_other)
    with pytest.raises(ConfigError, match=r"TLS_NOT_A_SUITE in ssl\.cipher\.suites"):
        _server({"listeners": "https://:0", **_pkcs12_keys(tls), "ssl.cipher.suites": "TLS_NOT_A_SUITE"})


def test_a_jks_store_stops_start_up_with_the_keytool_command(tls: TlsFiles, tmp_path: Path) -> None:
    jks = make_jks(tls.server_p12, tmp_path / "server.jks")
    if jks is None:
        pytest.skip("needs the JDK's keytool to make a JKS store")
    with pytest.raises(ConfigError) as error:
        _server(
            {
                "listeners": "https://:0",
                "ssl.keystore.location": str(jks),
                "ssl.keystore.password": STORE_PASSWORD,
            }
        )
    message = str(error.value)
    assert "is a JKS store" in message
    assert f"keytool -importkeystore -srckeystore {jks} -srcstoretype JKS" in message
    assert f"-destkeystore {tmp_path / 'server.p12'} -deststoretype PKCS12" in message


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"ssl.keystore.password": "wrong"}, r"wrong ssl\.keystore\.password"),
        ({"ssl.keystore.location": "/nonexistent/ks.p12"}, r"Cannot read ssl\.keystore\.location '/nonexistent"),
        ({"ssl.truststore.password": "wrong", "ssl.client.auth": "required"}, r"wrong ssl\.truststore\.password"),
        ({"ssl.keystore.type": "PEM"}, r"ssl\.keystore\.location '.*' is not a PEM file"),
        ({"ssl.keystore.type": "BKS"}, r"Invalid ssl\.keystore\.type 'BKS'"),
        ({"ssl.client.auth": "sometimes"}, r"ssl\.client\.auth"),
        ({"ssl.protocol": "SSLv3"}, r"ssl\.protocol 'SSLv3'"),
    ],
)
def test_bad_tls_settings_stop_start_up_naming_the_key(tls: TlsFiles, change: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        _server({"listeners": "https://:0", **_pkcs12_keys(tls), **change})


def test_the_stores_passwords_are_not_in_the_settings_repr(tls: TlsFiles) -> None:
    from rest.tls import TlsSettings

    shown = repr(TlsSettings.for_listeners({**_pkcs12_keys(tls), "ssl.key.password": KEY_PASSWORD}))
    assert STORE_PASSWORD not in shown
    assert KEY_PASSWORD not in shown
