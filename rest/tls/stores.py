"""Key stores and trust stores as Kafka configures them (PKCS12 or PEM files, or PEM text in the config),
read with `cryptography` into what Python's `ssl` module loads.

Java's own JKS format cannot be read here: a JKS store stops start-up with the `keytool` command that
converts it. An unset or `JKS` type is accepted when the file is really PKCS12 or PEM, as Java's
keystore loader accepts PKCS12 under the JKS type. Every failure is a ConfigError naming the key and file.

Python's `ssl` loads a certificate chain and private key only from a file. The key is therefore written,
encrypted with a random one-time password, to a private temporary file that is removed as soon as it is
loaded: the clear key never reaches the disk.
"""

from __future__ import annotations

import os
import re
import secrets
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from cryptography.hazmat.primitives.serialization import pkcs12

from connect.api.errors import ConfigError
from rest.tls.settings import StoreSettings

_JKS_MAGIC = b"\xfe\xed\xfe\xed"
_PEM_MARK = b"-----BEGIN"
_PEM_PRIVATE_KEY = re.compile(rb"-----BEGIN ([A-Z ]*PRIVATE KEY)-----.*?-----END \1-----", re.DOTALL)
PKCS12 = "PKCS12"
PEM = "PEM"
JKS = "JKS"


@dataclass(frozen=True)
class KeyMaterial:
    """A private key and its certificate chain (leaf first)."""

    key: PrivateKeyTypes
    chain: list[x509.Certificate]


def load_key_material(store: StoreSettings) -> KeyMaterial:
    """The private key and chain of a key store; ConfigError naming the key if it cannot be read."""
    if store.pem_key or (store.pem_certificates and not store.location):
        return _key_material_from_config(store)
    data, store_type = _read_store(store)
    if store_type == PKCS12:
        key, cert, extra = _open_pkcs12(store, data)
        if key is None or cert is None:
            raise ConfigError(f"{store.key('location')} '{store.location}' holds no private key and certificate")
        return KeyMaterial(key, [cert, *extra])
    password = store.key_password or store.password
    return KeyMaterial(_pem_key(store, data, password, store.key("location")), _pem_certs(store, data))


def load_trusted_certificates(store: StoreSettings) -> list[x509.Certificate]:
    """The certificates of a trust store; ConfigError naming the key if it cannot be read or is empty."""
    if store.pem_certificates and not store.location:
        certs = _pem_certs(store, store.pem_certificates.encode(), store.key("certificates"))
    else:
        data, store_type = _read_store(store)
        if store_type == PKCS12:
            try:
                loaded = pkcs12.load_pkcs12(data, _password_bytes(store.password))
            except ValueError as exc:
                raise _cannot_open(store, exc) from exc
            certs = [c.certificate for c in ([loaded.cert] if loaded.cert else []) + list(loaded.additional_certs)]
        else:
            certs = _pem_certs(store, data)
    if not certs:
        raise ConfigError(f"{store.key('location')} '{store.location}' holds no certificate")
    return certs


def load_into_context(context: ssl.SSLContext, material: KeyMaterial) -> None:
    """`context.load_cert_chain` from in-memory material (see the module docstring for why a file)."""
    one_time = secrets.token_bytes(32)
    pem = material.key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(one_time),
    ) + b"".join(cert.public_bytes(serialization.Encoding.PEM) for cert in material.chain)
    with tempfile.TemporaryDirectory(prefix="kconnect-tls-") as private_dir:
        path = Path(private_dir, "chain.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)
        context.load_cert_chain(path, password=one_time)


def certificates_pem(certs: list[x509.Certificate]) -> str:
    return "".join(cert.public_bytes(serialization.Encoding.PEM).decode() for cert in certs)


def jks_conversion_command(location: str) -> str:
    target = str(Path(location).with_suffix(".p12"))
    return (
        f"keytool -importkeystore -srckeystore {location} -srcstoretype JKS "
        f"-destkeystore {target} -deststoretype PKCS12"
    )


def _read_store(store: StoreSettings) -> tuple[bytes, str]:
    if not store.location:
        raise ConfigError(f"{store.key('location')} is required")
    try:
        data = Path(store.location).read_bytes()
    except OSError as exc:
        raise ConfigError(f"Cannot read {store.key('location')} '{store.location}': {exc.strerror}") from exc
    declared = (store.type or JKS).upper()
    found = _sniff(data)
    if found == JKS:
        target = str(Path(store.location).with_suffix(".p12"))
        raise ConfigError(
            f"{store.key('location')} '{store.location}' is a JKS store, which kconnect cannot read. Convert it to "
            f"PKCS12 with `{jks_conversion_command(store.location)}`, then set {store.key('type')}=PKCS12 and "
            f"{store.key('location')}={target}"
        )
    if declared not in (JKS, PKCS12, PEM):
        raise ConfigError(f"Invalid {store.key('type')} '{store.type}': expected PKCS12 or PEM")
    if declared != JKS and found != declared:
        raise ConfigError(f"{store.key('location')} '{store.location}' is not a {declared} file ({found} found)")
    return data, found


def _sniff(data: bytes) -> str:
    if data.startswith(_JKS_MAGIC):
        return JKS
    if _PEM_MARK in data[:4096]:
        return PEM
    return PKCS12


def _open_pkcs12(
    store: StoreSettings, data: bytes
) -> tuple[PrivateKeyTypes | None, x509.Certificate | None, list[x509.Certificate]]:
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(data, _password_bytes(store.password))
    except ValueError as exc:
        raise _cannot_open(store, exc) from exc
    return key, cert, list(extra)


def _key_material_from_config(store: StoreSettings) -> KeyMaterial:
    if not (store.pem_key and store.pem_certificates):
        raise ConfigError(f"{store.key('key')} and {store.key('certificate.chain')} must be given together")
    key = _pem_key(store, store.pem_key.encode(), store.key_password, store.key("key"))
    return KeyMaterial(key, _pem_certs(store, store.pem_certificates.encode(), store.key("certificate.chain")))


def _pem_key(store: StoreSettings, data: bytes, password: str | None, key_name: str) -> PrivateKeyTypes:
    match = _PEM_PRIVATE_KEY.search(data)
    if match is None:
        raise ConfigError(f"{key_name} holds no PEM private key")
    try:
        return serialization.load_pem_private_key(match.group(0), _password_bytes(password))
    except (ValueError, TypeError) as exc:
        raise ConfigError(
            f"Cannot read the private key of {key_name}: wrong or missing {store.prefix}ssl.key.password? ({exc})"
        ) from exc


def _pem_certs(store: StoreSettings, data: bytes, key_name: str | None = None) -> list[x509.Certificate]:
    try:
        return x509.load_pem_x509_certificates(data)
    except ValueError as exc:
        raise ConfigError(f"{key_name or store.key('location')} holds no readable PEM certificate: {exc}") from exc


def _password_bytes(password: str | None) -> bytes | None:
    return password.encode() if password else None


def _cannot_open(store: StoreSettings, exc: Exception) -> ConfigError:
    return ConfigError(
        f"Cannot open {store.key('location')} '{store.location}': wrong {store.key('password')}, "
        f"or not a PKCS12 store ({exc})"
    )
