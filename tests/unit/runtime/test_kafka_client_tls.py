"""Kafka's client TLS keys translated for librdkafka: PKCS12 and PEM trust and key stores, JKS refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect.api.errors import ConfigError
from connect.runtime.kafka.client_config import to_librdkafka
from tests.support.certificates import KEY_PASSWORD, STORE_PASSWORD, TlsFiles, make_jks, make_tls_files


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls_files(tmp_path_factory.mktemp("client-tls"))


def test_a_pkcs12_trust_store_becomes_pem_text(tls: TlsFiles) -> None:
    config = to_librdkafka(
        {
            "security.protocol": "SSL",
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.location": str(tls.ca_p12),
            "ssl.truststore.password": STORE_PASSWORD,
        },
        "consumer",
    )
    assert config["ssl.ca.pem"] == tls.ca_pem.read_text()
    assert not any(key.startswith("ssl.truststore") for key in config)
    with pytest.raises(ConfigError, match=r"wrong ssl\.truststore\.password"):
        to_librdkafka({"ssl.truststore.location": str(tls.ca_p12), "ssl.truststore.password": "no"}, "consumer")


def test_pem_stores_become_librdkafkas_locations(tls: TlsFiles) -> None:
    config = to_librdkafka(
        {
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(tls.ca_pem),
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(tls.server_pem),
            "ssl.key.password": KEY_PASSWORD,
            "ssl.endpoint.identification.algorithm": "",
        },
        "producer",
    )
    assert config == {
        "ssl.ca.location": str(tls.ca_pem),
        "ssl.certificate.location": str(tls.server_pem),
        "ssl.key.location": str(tls.server_pem),
        "ssl.key.password": KEY_PASSWORD,
        "ssl.endpoint.identification.algorithm": "none",
    }


def test_a_pkcs12_key_store_is_read_by_librdkafka_itself(tls: TlsFiles) -> None:
    config = to_librdkafka(
        {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(tls.client_p12), "ssl.keystore.password": "pw"},
        "producer",
    )
    assert config == {"ssl.keystore.location": str(tls.client_p12), "ssl.keystore.password": "pw"}


def test_a_jks_store_is_refused_with_the_keytool_command(tls: TlsFiles, tmp_path: Path) -> None:
    jks = make_jks(tls.ca_p12, tmp_path / "truststore.jks")
    if jks is None:
        pytest.skip("needs the JDK's keytool to make a JKS store")
    with pytest.raises(ConfigError, match=r"is a JKS store.*keytool -importkeystore -srckeystore .*truststore\.jks"):
        to_librdkafka({"ssl.truststore.location": str(jks), "ssl.truststore.password": STORE_PASSWORD}, "admin")
