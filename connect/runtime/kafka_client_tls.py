"""Kafka's client TLS keys in librdkafka's terms: trust stores and key stores as PKCS12 or PEM.

librdkafka has no trust store: a PEM trust store becomes `ssl.ca.location`, a PKCS12 one is read here and
handed over as PEM text (`ssl.ca.pem`). A PKCS12 key store is read by librdkafka itself
(`ssl.keystore.location`); a PEM one becomes `ssl.certificate.location` and `ssl.key.location`. Java's
JKS cannot be read: a ConfigError gives the `keytool` command converting it. Java's empty
`ssl.endpoint.identification.algorithm` (no host name check) is librdkafka's `none`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from connect.api.errors import ConfigError

_JKS_MAGIC = b"\xfe\xed\xfe\xed"


def librdkafka_tls(props: Mapping[str, str]) -> dict[str, str]:
    """librdkafka settings for the `ssl.truststore.*`, `ssl.keystore.*` and endpoint keys in `props`."""
    result: dict[str, str] = {}
    if props.get("ssl.truststore.certificates"):
        result["ssl.ca.pem"] = props["ssl.truststore.certificates"]
    location = props.get("ssl.truststore.location", "").strip()
    if location:
        kind = _kind(location, props.get("ssl.truststore.type"), "ssl.truststore.location")
        if kind == "PEM":
            result["ssl.ca.location"] = location
        else:
            result["ssl.ca.pem"] = _pkcs12_certificates(location, props.get("ssl.truststore.password"))
    keystore = props.get("ssl.keystore.location", "").strip()
    if keystore and _kind(keystore, props.get("ssl.keystore.type"), "ssl.keystore.location") == "PEM":
        result.update({"ssl.certificate.location": keystore, "ssl.key.location": keystore})
        if props.get("ssl.key.password"):
            result["ssl.key.password"] = props["ssl.key.password"]
    if props.get("ssl.keystore.key") and props.get("ssl.keystore.certificate.chain"):
        result.update(
            {"ssl.key.pem": props["ssl.keystore.key"], "ssl.certificate.pem": props["ssl.keystore.certificate.chain"]}
        )
    endpoint = props.get("ssl.endpoint.identification.algorithm")
    if endpoint is not None:
        result["ssl.endpoint.identification.algorithm"] = endpoint.strip().lower() or "none"
    return result


def uses_pem_keystore(props: Mapping[str, str]) -> bool:
    """Whether `ssl.keystore.location` names a PEM file (librdkafka must then not read it as PKCS12)."""
    location = props.get("ssl.keystore.location", "").strip()
    return bool(location) and _kind(location, props.get("ssl.keystore.type"), "ssl.keystore.location") == "PEM"


def store_kind(location: str, declared: str | None, key: str) -> str:
    """`PEM` or `PKCS12`, from the file's content (checked against `declared`); ConfigError for JKS."""
    return _kind(location, declared, key)


def pkcs12_certificates(location: str, password: str | None) -> str:
    """The certificates of a PKCS12 trust store as PEM text."""
    return _pkcs12_certificates(location, password)


def _kind(location: str, declared: str | None, key: str) -> str:
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


def _pkcs12_certificates(location: str, password: str | None) -> str:
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
