"""`schema.registry.ssl.*`: a registry on HTTPS is reached with Java-style PKCS12 or PEM trust and key
stores; a trust store without the registry's CA fails with the reason; the converter leaves no key
material behind; a certificate that does not name the URL's host is refused unless
`schema.registry.ssl.endpoint.identification.algorithm` is empty, and even then only a trusted one is taken.
(The test registry cannot require client certificates: its build fixes client-auth
to none, so that the key store is sent is not checked by the server here.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from connect.api.data import INT64_SCHEMA, Schema, Struct
from connect.api.errors import RetriableError
from connect.converters.schema_registry.avro import AvroConverter
from tests.fixtures.schema_registry.server import LocalRegistry
from tests.support.certificates import KEY_PASSWORD, STORE_PASSWORD, TlsFiles

pytestmark = pytest.mark.integration

EVENT = Schema.struct([("id", INT64_SCHEMA)], name="tls.Event")


def _configured(registry: LocalRegistry, **configs: str) -> AvroConverter:
    converter = AvroConverter()
    converter.configure({"schema.registry.url": registry.url, "max.retries": "0", **configs}, False)
    return converter


def _round_trip(converter: AvroConverter) -> Struct:
    data = converter.from_connect_data("tls-events", EVENT, Struct(EVENT, {"id": 42}))
    value: Struct = converter.to_connect_data("tls-events", data).value
    return value


def test_pkcs12_stores_as_java_configs_name_them(https_schema_registry: tuple[LocalRegistry, TlsFiles]) -> None:
    registry, files = https_schema_registry
    converter = _configured(
        registry,
        **{
            "schema.registry.ssl.truststore.location": str(files.ca_p12),
            "schema.registry.ssl.truststore.password": STORE_PASSWORD,
            "schema.registry.ssl.truststore.type": "PKCS12",
            "schema.registry.ssl.keystore.location": str(files.client_p12),
            "schema.registry.ssl.keystore.password": STORE_PASSWORD,
            "schema.registry.ssl.keystore.type": "PKCS12",
        },
    )
    written = list(Path("/").glob("tmp/kconnect-registry-tls-*"))
    try:
        assert _round_trip(converter).get("id") == 42
    finally:
        converter.close()
    assert all(not directory.exists() for directory in written)


def test_pem_stores(https_schema_registry: tuple[LocalRegistry, TlsFiles], tmp_path: Path) -> None:
    registry, files = https_schema_registry
    # A PEM key store: the client's encrypted key and its certificate in one file, as Kafka's PEM stores.
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(files.client_key_pem.read_bytes(), None)
    keystore = tmp_path / "client.pem"
    keystore.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(KEY_PASSWORD.encode()),
        )
        + files.client_cert_pem.read_bytes()
    )
    converter = _configured(
        registry,
        **{
            "schema.registry.ssl.truststore.location": str(files.ca_pem),
            "schema.registry.ssl.keystore.location": str(keystore),
            "schema.registry.ssl.key.password": KEY_PASSWORD,
        },
    )
    try:
        assert _round_trip(converter).get("id") == 42
    finally:
        converter.close()


def test_a_trust_store_without_the_registrys_ca_fails_with_the_reason(
    https_schema_registry: tuple[LocalRegistry, TlsFiles],
) -> None:
    registry, files = https_schema_registry
    converter = _configured(registry, **{"schema.registry.ssl.truststore.location": str(files.other_ca_pem)})
    try:
        with pytest.raises(RetriableError, match=r"could not be reached.*CERTIFICATE_VERIFY_FAILED"):
            _round_trip(converter)
    finally:
        converter.close()


def _by_an_uncertified_name(registry: LocalRegistry) -> str:
    """The registry's URL with a host its certificate does not name (it names 127.0.0.1, not localhost)."""
    return registry.url.replace("127.0.0.1", "localhost")


def test_a_certificate_not_naming_the_host_is_refused_unless_the_host_name_check_is_off(
    https_schema_registry: tuple[LocalRegistry, TlsFiles],
) -> None:
    registry, files = https_schema_registry
    trust = {
        "schema.registry.url": _by_an_uncertified_name(registry),
        "schema.registry.ssl.truststore.location": str(files.ca_pem),
    }
    checked = _configured(registry, **trust)
    try:
        with pytest.raises(RetriableError, match=r"could not be reached.*Hostname mismatch.*'localhost'"):
            _round_trip(checked)
    finally:
        checked.close()

    unchecked = _configured(registry, **trust, **{"schema.registry.ssl.endpoint.identification.algorithm": ""})
    try:
        assert _round_trip(unchecked).get("id") == 42
    finally:
        unchecked.close()


def test_without_the_host_name_check_an_untrusted_ca_is_still_refused(
    https_schema_registry: tuple[LocalRegistry, TlsFiles],
) -> None:
    registry, files = https_schema_registry
    converter = _configured(
        registry,
        **{
            "schema.registry.url": _by_an_uncertified_name(registry),
            "schema.registry.ssl.truststore.location": str(files.other_ca_pem),
            "schema.registry.ssl.endpoint.identification.algorithm": "",
        },
    )
    try:
        # The registry sends its CA with its certificate: a chain ending in a CA the trust store lacks.
        with pytest.raises(
            RetriableError,
            match=r"could not be reached.*CERTIFICATE_VERIFY_FAILED.*self-signed certificate in certificate chain",
        ) as refused:
            _round_trip(converter)
        assert "Hostname mismatch" not in str(refused.value)
    finally:
        converter.close()
