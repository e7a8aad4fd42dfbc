"""Java key and trust stores read for TLS clients that are not Java: PEM or PKCS12, never JKS.

Kafka's clients and Schema Registry clients take the same `ssl.truststore.*`/`ssl.keystore.*` keys, and
neither librdkafka nor Python's `ssl` reads a PKCS12 trust store. Shared by the runtime's Kafka clients
and the Schema Registry converters, so it depends on neither (only on `connect.api`'s errors).
"""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from connect.api.errors import ConfigError

_JKS_MAGIC = b"\xfe\xed\xfe\xed"


def store_kind(location: str, declared: str | None, key: str) -> str:
    """`PEM` or `PKCS12`, from the file's content (checked against `declared`); ConfigError for JKS."""
    try:
        head = Path(location).read_bytes()[:4096]
    except OSError as exc:
        raise ConfigError(f"Cannot read {key} '{location}': {exc.strerror}") from exc
    if head.startswith(_JKS_MAGIC):
        target = str(Path(location).with_suffix(".p12"))
        raise ConfigError(
            f"{key} '{location}' is a JKS store, which kconnect's Kafka clients cannot read. Convert it with "
            f"`keytool -importkeystore -srckeystore {location} -srcstoretype JKS -destkeystore {target} "
            f"-deststoretype PKCS12` and set the store's type to PKCS12"
        )
    found = "PEM" if b"-----BEGIN" in head else "PKCS12"
    if declared and declared.strip().upper() in ("PEM", "PKCS12") and declared.strip().upper() != found:
        raise ConfigError(f"{key} '{location}' is not a {declared.strip().upper()} file ({found} found)")
    return found


def pkcs12_certificates(location: str, password: str | None) -> str:
    """The certificates of a PKCS12 trust store as PEM text."""
    try:
        store = pkcs12.load_pkcs12(Path(location).read_bytes(), password.encode() if password else None)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"Cannot open ssl.truststore.location '{location}': wrong ssl.truststore.password, or not PKCS12 ({exc})"
        ) from exc
    certs = ([store.cert] if store.cert else []) + list(store.additional_certs)
    if not certs:
        raise ConfigError(f"ssl.truststore.location '{location}' holds no certificate")
    return "".join(c.certificate.public_bytes(serialization.Encoding.PEM).decode() for c in certs)
