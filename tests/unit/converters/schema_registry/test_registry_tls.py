"""`schema.registry.ssl.*` turned into the registry client's PEM settings, without a registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect.api.errors import ConfigError
from connect.converters.schema_registry.registry_tls import RegistryTls
from tests.support.certificates import STORE_PASSWORD, make_jks, make_tls_files


def test_pem_stores_are_used_in_place_and_pkcs12_ones_written_privately_then_removed(tmp_path: Path) -> None:
    files = make_tls_files(tmp_path)
    pem = RegistryTls({"schema.registry.ssl.truststore.location": str(files.ca_pem)})
    assert pem.client_conf == {"ssl.ca.location": str(files.ca_pem)}
    pem.close()

    tls = RegistryTls(
        {
            "schema.registry.ssl.truststore.location": str(files.ca_p12),
            "schema.registry.ssl.truststore.password": STORE_PASSWORD,
            "schema.registry.ssl.keystore.location": str(files.client_p12),
            "schema.registry.ssl.keystore.password": STORE_PASSWORD,
        }
    )
    written = Path(tls.client_conf["ssl.key.location"])
    assert Path(tls.client_conf["ssl.ca.location"]).read_bytes() == files.ca_pem.read_bytes()
    assert b"ENCRYPTED PRIVATE KEY" in written.read_bytes() and written.stat().st_mode & 0o077 == 0
    assert tls.client_conf["ssl.key.password"] not in (STORE_PASSWORD, "")
    tls.close()
    assert not written.parent.exists()


def test_jks_and_wrong_passwords_are_refused_with_what_to_do(tmp_path: Path) -> None:
    files = make_tls_files(tmp_path)
    jks = make_jks(files.ca_p12, tmp_path / "truststore.jks")
    assert jks is not None, "keytool (Java 17) is needed"
    with pytest.raises(ConfigError, match="keytool -importkeystore"):
        RegistryTls({"schema.registry.ssl.truststore.location": str(jks)})
    with pytest.raises(ConfigError, match=r"wrong schema\.registry\.ssl\.keystore\.password"):
        RegistryTls(
            {
                "schema.registry.ssl.keystore.location": str(files.client_p12),
                "schema.registry.ssl.keystore.password": "wrong",
            }
        )
