"""Certificates made at test time: a CA, a server certificate for localhost/127.0.0.1 (or other DNS names
and 127.0.0.1) and a client certificate, written as PKCS12 and PEM stores the way Kafka users keep them
(and a JKS one with keytool)."""

from __future__ import annotations

import datetime
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

STORE_PASSWORD = "store-secret"
KEY_PASSWORD = "key-secret"


@dataclass(frozen=True)
class Identity:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate


@dataclass(frozen=True)
class TlsFiles:
    """Paths of the stores made in one directory."""

    ca_pem: Path  # the CA certificate (a PEM trust store)
    ca_p12: Path  # the CA certificate in a PKCS12 trust store (STORE_PASSWORD)
    server_p12: Path  # server key + chain, PKCS12 (STORE_PASSWORD)
    server_pem: Path  # server key (encrypted with KEY_PASSWORD) + chain, PEM
    client_p12: Path  # client key + chain, PKCS12 (STORE_PASSWORD)
    client_cert_pem: Path
    client_key_pem: Path  # unencrypted, for httpx's `cert=`
    other_ca_pem: Path  # a CA that signed nothing here: trusting only it must fail
    rogue_client_cert_pem: Path  # a client certificate signed by the other CA
    rogue_client_key_pem: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _ca(common_name: str) -> Identity:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(_name(common_name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return Identity(key, cert)


def _leaf(ca: Identity, common_name: str, *, server: bool, dns_names: tuple[str, ...] = ("localhost",)) -> Identity:
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.key.public_key()),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [*(x509.DNSName(name) for name in dns_names), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    return Identity(key, builder.sign(ca.key, hashes.SHA256()))


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: ec.EllipticCurvePrivateKey, password: str | None) -> bytes:
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password.encode()) if password else serialization.NoEncryption()
    )
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def _p12(identity: Identity, ca: Identity) -> bytes:
    return pkcs12.serialize_key_and_certificates(
        b"kconnect",
        identity.key,
        identity.cert,
        [ca.cert],
        serialization.BestAvailableEncryption(STORE_PASSWORD.encode()),
    )


def make_tls_files(directory: Path, server_dns_names: tuple[str, ...] = ("localhost",)) -> TlsFiles:
    """`server_dns_names`: the DNS names of the server certificate (which always names 127.0.0.1 too)."""
    ca, other_ca = _ca("kconnect test CA"), _ca("another CA")
    server_name = server_dns_names[0] if server_dns_names else "127.0.0.1"
    server = _leaf(ca, server_name, server=True, dns_names=server_dns_names)
    client = _leaf(ca, "client", server=False)
    rogue = _leaf(other_ca, "rogue", server=False)
    files = TlsFiles(
        ca_pem=directory / "ca.pem",
        ca_p12=directory / "truststore.p12",
        server_p12=directory / "server.p12",
        server_pem=directory / "server.pem",
        client_p12=directory / "client.p12",
        client_cert_pem=directory / "client.crt",
        client_key_pem=directory / "client.key",
        other_ca_pem=directory / "other-ca.pem",
        rogue_client_cert_pem=directory / "rogue.crt",
        rogue_client_key_pem=directory / "rogue.key",
    )
    files.ca_pem.write_bytes(_pem(ca.cert))
    files.ca_p12.write_bytes(
        pkcs12.serialize_key_and_certificates(
            None, None, None, [ca.cert], serialization.BestAvailableEncryption(STORE_PASSWORD.encode())
        )
    )
    files.server_p12.write_bytes(_p12(server, ca))
    files.server_pem.write_bytes(_key_pem(server.key, KEY_PASSWORD) + _pem(server.cert) + _pem(ca.cert))
    files.client_p12.write_bytes(_p12(client, ca))
    files.client_cert_pem.write_bytes(_pem(client.cert))
    files.client_key_pem.write_bytes(_key_pem(client.key, None))
    files.other_ca_pem.write_bytes(_pem(other_ca.cert))
    files.rogue_client_cert_pem.write_bytes(_pem(rogue.cert))
    files.rogue_client_key_pem.write_bytes(_key_pem(rogue.key, None))
    return files


def make_jks(p12: Path, target: Path) -> Path | None:
    """A JKS copy of a PKCS12 store, made with the JDK's keytool (None when no keytool is installed)."""
    keytool = shutil.which("keytool")
    if keytool is None:
        return None
    subprocess.run(
        [
            keytool, "-importkeystore", "-noprompt",
            "-srckeystore", str(p12), "-srcstoretype", "PKCS12", "-srcstorepass", STORE_PASSWORD,
            "-destkeystore", str(target), "-deststoretype", "JKS", "-deststorepass", STORE_PASSWORD,
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return target
