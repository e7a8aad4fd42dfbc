"""`schema.registry.ssl.*`, Confluent's keys for TLS to the registry, as confluent-kafka's registry client
takes them: PEM files by path (`ssl.ca.location`, `ssl.certificate.location`, `ssl.key.location`).

A PEM trust or key store is handed over as it is. A PKCS12 one is read here and written as PEM into a
private directory (mode 0700) that `RegistryTls.close` removes: the trust store's certificates, and the
key store's chain with its key encrypted under a random password that only this process knows. JKS
cannot be read (ConfigError with the `keytool` command that converts it).

`schema.registry.ssl.endpoint.identification.algorithm` keeps Java's meaning: `https` (the default) checks the
registry's host name against its certificate, empty does not (logged as a warning; the certificate chain is
still verified against the trust store: `RegistryClient` turns off only the host name check). Other values
are refused.
"""

from __future__ import annotations

import logging
import secrets
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from connect.api.config import Password, invalid_value
from connect.api.errors import ConfigError
from connect.keystores import pkcs12_certificates, store_kind

log = logging.getLogger(__name__)

PREFIX = "schema.registry.ssl."
TRUSTSTORE_LOCATION = PREFIX + "truststore.location"
TRUSTSTORE_PASSWORD = PREFIX + "truststore.password"
TRUSTSTORE_TYPE = PREFIX + "truststore.type"
KEYSTORE_LOCATION = PREFIX + "keystore.location"
KEYSTORE_PASSWORD = PREFIX + "keystore.password"
KEYSTORE_TYPE = PREFIX + "keystore.type"
KEY_PASSWORD = PREFIX + "key.password"
ENDPOINT_IDENTIFICATION = PREFIX + "endpoint.identification.algorithm"


def _text(configs: Mapping[str, Any], key: str) -> str | None:
    value = configs.get(key)
    if value is None:
        return None
    text = value.value if isinstance(value, Password) else str(value)
    return text.strip() or None


def _checks_host_name(configs: Mapping[str, Any]) -> bool:
    value = configs.get(ENDPOINT_IDENTIFICATION)
    algorithm = "https" if value is None else str(value).strip()
    if algorithm.lower() == "https":
        return True
    if algorithm:
        raise invalid_value(
            ENDPOINT_IDENTIFICATION, value, "https (check the host name) or empty (do not) are supported"
        )
    log.warning(
        "%s is empty: the Schema Registry's host name is not checked against its certificate "
        "(the certificate is still verified against the trust store)",
        ENDPOINT_IDENTIFICATION,
    )
    return False


class RegistryTls:
    """The client settings for one converter's `schema.registry.ssl.*` keys, and the files made for them."""

    def __init__(self, configs: Mapping[str, Any]) -> None:
        self.client_conf: dict[str, str] = {}
        self.check_host_name = _checks_host_name(configs)
        self._directory: Path | None = None
        try:
            self._trust(configs)
            self._keys(configs)
        except Exception:
            self.close()
            raise

    def _trust(self, configs: Mapping[str, Any]) -> None:
        location = _text(configs, TRUSTSTORE_LOCATION)
        if location is None:
            return
        if store_kind(location, _text(configs, TRUSTSTORE_TYPE), TRUSTSTORE_LOCATION) == "PEM":
            self.client_conf["ssl.ca.location"] = location
            return
        certificates = pkcs12_certificates(location, _text(configs, TRUSTSTORE_PASSWORD))
        self.client_conf["ssl.ca.location"] = str(self._write("truststore.pem", certificates.encode()))

    def _keys(self, configs: Mapping[str, Any]) -> None:
        location = _text(configs, KEYSTORE_LOCATION)
        if location is None:
            return
        key_password = _text(configs, KEY_PASSWORD)
        if store_kind(location, _text(configs, KEYSTORE_TYPE), KEYSTORE_LOCATION) == "PEM":
            self.client_conf.update({"ssl.certificate.location": location, "ssl.key.location": location})
            if key_password:
                self.client_conf["ssl.key.password"] = key_password
            return
        store_password = _text(configs, KEYSTORE_PASSWORD)
        try:
            key, cert, chain = pkcs12.load_key_and_certificates(
                Path(location).read_bytes(), store_password.encode() if store_password else None
            )
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"Cannot open {KEYSTORE_LOCATION} '{location}': wrong {KEYSTORE_PASSWORD}, or not PKCS12 ({exc})"
            ) from None
        if key is None or cert is None:
            raise ConfigError(f"{KEYSTORE_LOCATION} '{location}' holds no private key with its certificate")
        transient = secrets.token_urlsafe(24)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(transient.encode()),
        )
        pem += b"".join(c.public_bytes(serialization.Encoding.PEM) for c in (cert, *chain))
        path = self._write("keystore.pem", pem)
        self.client_conf.update(
            {"ssl.certificate.location": str(path), "ssl.key.location": str(path), "ssl.key.password": transient}
        )

    def _write(self, name: str, data: bytes) -> Path:
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="kconnect-registry-tls-"))
        path = self._directory / name
        path.write_bytes(data)
        path.chmod(0o600)
        return path

    def close(self) -> None:
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
