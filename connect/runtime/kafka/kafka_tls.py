"""TLS for the requests the worker sends itself (`group_eviction.py`), from the librdkafka settings its
Kafka clients already use (`client_tls.py` makes them from Kafka's keys), so both trust and present the same.

The trust: `ssl.ca.location` (a PEM file) or `ssl.ca.pem` (PEM text), else the system's. The client's
certificate: `ssl.certificate.location` + `ssl.key.location` (+ `ssl.key.password`), `ssl.certificate.pem` +
`ssl.key.pem`, or a PKCS12 `ssl.keystore.location` + `ssl.keystore.password`. Host names are checked unless
`ssl.endpoint.identification.algorithm` is `none` (librdkafka's default is `https`), certificates unless
`enable.ssl.certificate.verification` is false.
"""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Mapping
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from connect.api.errors import ConfigError


def tls_context(config: Mapping[str, str]) -> ssl.SSLContext:
    context = ssl.create_default_context(
        cafile=config.get("ssl.ca.location") or None, cadata=config.get("ssl.ca.pem") or None
    )
    if config.get("ssl.endpoint.identification.algorithm", "https").strip().lower() == "none":
        context.check_hostname = False
    if config.get("enable.ssl.certificate.verification", "true").strip().lower() == "false":
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    _load_client_certificate(context, config)
    return context


def _load_client_certificate(context: ssl.SSLContext, config: Mapping[str, str]) -> None:
    password = config.get("ssl.key.password") or None
    if config.get("ssl.certificate.location") and config.get("ssl.key.location"):
        context.load_cert_chain(config["ssl.certificate.location"], config["ssl.key.location"], password)
    elif config.get("ssl.certificate.pem") and config.get("ssl.key.pem"):
        _load_pem_chain(context, config["ssl.certificate.pem"] + "\n" + config["ssl.key.pem"], password)
    elif config.get("ssl.keystore.location"):
        _load_pem_chain(context, _pkcs12_as_pem(config["ssl.keystore.location"], config.get("ssl.keystore.password")))


def _load_pem_chain(context: ssl.SSLContext, pem: str, password: str | None = None) -> None:
    # The ssl module loads certificates and keys from files only: one that only this process can read,
    # deleted as soon as it is loaded.
    with tempfile.TemporaryDirectory(prefix="kconnect-tls-") as directory:
        path = Path(directory) / "client.pem"
        path.touch(mode=0o600)
        path.write_text(pem)
        context.load_cert_chain(path, password=password)


def _pkcs12_as_pem(location: str, password: str | None) -> str:
    try:
        key, certificate, chain = pkcs12.load_key_and_certificates(
            Path(location).read_bytes(), password.encode() if password else None
        )
    except (OSError, ValueError) as exc:
        raise ConfigError(f"Cannot read the PKCS12 key store {location}: {exc}") from exc
    if key is None or certificate is None:
        raise ConfigError(f"The PKCS12 key store {location} holds no private key with its certificate")
    parts = [
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        certificate.public_bytes(serialization.Encoding.PEM),
        *(extra.public_bytes(serialization.Encoding.PEM) for extra in chain),
    ]
    return b"".join(parts).decode()
