"""The secured listener of a local Kafka cluster (`kconnect kafka start --security ssl|sasl_ssl`).

Each node keeps its PLAINTEXT listener (inter-broker traffic, the start-up check) and gets a second one,
`SECURE_PORT_OFFSET` above its broker port, secured as production listeners are:

- `sasl_ssl`: TLS, and SCRAM-SHA-512 users (created when the storage is formatted);
- `ssl`: TLS with client certificates required (`ssl.client.auth=required`).

The certificates are made at start with `cryptography`: a CA, a broker certificate for 127.0.0.1 and
localhost, and a client certificate, kept as PKCS12 stores (and the CA as PEM) under `security/` in the
state directory. `client.properties` there holds the Kafka client keys a worker needs, in Kafka Connect's
names (`security.protocol`, `sasl.jaas.config`, `ssl.truststore.*`, ...).
"""

from __future__ import annotations

import datetime
import ipaddress
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

SECURITY_MODES = ("ssl", "sasl_ssl")
SECURE_PORT_OFFSET = 200
SCRAM_MECHANISM = "SCRAM-SHA-512"
USER = "kconnect"
_VALID_DAYS = 30


@dataclass(frozen=True)
class SecurityFiles:
    directory: Path
    mode: str

    @property
    def protocol(self) -> str:
        return self.mode.upper()

    @property
    def broker_keystore(self) -> Path:
        return self.directory / "broker.p12"

    @property
    def truststore(self) -> Path:
        return self.directory / "truststore.p12"

    @property
    def ca_pem(self) -> Path:
        return self.directory / "ca.pem"

    @property
    def client_keystore(self) -> Path:
        return self.directory / "client.p12"

    @property
    def password_file(self) -> Path:
        return self.directory / "password"

    @property
    def client_properties(self) -> Path:
        return self.directory / "client.properties"

    @property
    def password(self) -> str:
        """The store password, which is also the SCRAM user's password."""
        return self.password_file.read_text().strip()


def prepare(directory: Path, mode: str, keytool: str | None = None) -> SecurityFiles:
    """Make (once) the certificates, stores and password of a secured cluster under `directory`.

    `keytool` (the JDK's, beside the `java` that runs the brokers) makes the PKCS12 trust store, so that
    Java clients trust its CA too; without it `cryptography` makes one only non-Java clients read."""
    if mode not in SECURITY_MODES:
        raise ValueError(f"security must be one of {SECURITY_MODES}, not {mode}")
    files = SecurityFiles(directory, mode)
    if files.password_file.exists() and files.broker_keystore.exists():
        return files
    directory.mkdir(parents=True, exist_ok=True)
    password = secrets.token_urlsafe(18)
    ca_key, ca_cert = _certificate("kconnect local Kafka CA", None, ca=True)
    broker_key, broker_cert = _certificate("localhost", (ca_key, ca_cert), server=True)
    client_key, client_cert = _certificate(USER, (ca_key, ca_cert))
    encryption = serialization.BestAvailableEncryption(password.encode())
    files.broker_keystore.write_bytes(
        pkcs12.serialize_key_and_certificates(b"broker", broker_key, broker_cert, [ca_cert], encryption)
    )
    files.client_keystore.write_bytes(
        pkcs12.serialize_key_and_certificates(b"client", client_key, client_cert, [ca_cert], encryption)
    )
    files.ca_pem.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    if keytool is not None:
        _keytool_truststore(keytool, files, password)
    else:
        files.truststore.write_bytes(pkcs12.serialize_key_and_certificates(None, None, None, [ca_cert], encryption))
    files.password_file.write_text(password + "\n")
    files.password_file.chmod(0o600)
    return files


def broker_settings(files: SecurityFiles, port: int) -> dict[str, str]:
    """The server.properties entries of the secured listener (named after its protocol)."""
    name = files.mode
    settings = {
        f"listener.name.{name}.ssl.keystore.type": "PKCS12",
        f"listener.name.{name}.ssl.keystore.location": str(files.broker_keystore),
        f"listener.name.{name}.ssl.keystore.password": files.password,
        # PEM (KIP-651): Java ignores certificates of a PKCS12 store that lack its own "trusted" attribute.
        f"listener.name.{name}.ssl.truststore.type": "PEM",
        f"listener.name.{name}.ssl.truststore.location": str(files.ca_pem),
    }
    if files.mode == "sasl_ssl":
        settings["sasl.enabled.mechanisms"] = SCRAM_MECHANISM
        settings[f"listener.name.{name}.scram-sha-512.sasl.jaas.config"] = (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        )
    else:
        settings[f"listener.name.{name}.ssl.client.auth"] = "required"
    return settings


def scram_format_arguments(files: SecurityFiles) -> list[str]:
    """`kafka-storage format` arguments creating the SCRAM user (KRaft keeps users in the metadata log)."""
    if files.mode != "sasl_ssl":
        return []
    return ["--add-scram", f"{SCRAM_MECHANISM}=[name={USER},password={files.password}]"]


def client_settings(files: SecurityFiles, bootstrap: str) -> dict[str, str]:
    """A Kafka client's settings for the secured listener, with Kafka's key names."""
    settings = {
        "bootstrap.servers": bootstrap,
        "security.protocol": files.protocol,
        "ssl.truststore.type": "PKCS12",
        "ssl.truststore.location": str(files.truststore),
        "ssl.truststore.password": files.password,
    }
    if files.mode == "sasl_ssl":
        settings["sasl.mechanism"] = SCRAM_MECHANISM
        settings["sasl.jaas.config"] = (
            f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{USER}" '
            f'password="{files.password}";'
        )
    else:
        settings["ssl.keystore.type"] = "PKCS12"
        settings["ssl.keystore.location"] = str(files.client_keystore)
        settings["ssl.keystore.password"] = files.password
    return settings


def _keytool_truststore(keytool: str, files: SecurityFiles, password: str) -> None:
    subprocess.run(
        [
            keytool, "-importcert", "-noprompt", "-alias", "kconnect-local-ca", "-file", str(files.ca_pem),
            "-storetype", "PKCS12", "-keystore", str(files.truststore), "-storepass", password,
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip


def _certificate(
    common_name: str,
    issuer: tuple[ec.EllipticCurvePrivateKey, x509.Certificate] | None,
    *,
    ca: bool = False,
    server: bool = False,
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer[1].subject if issuer else name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=_VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        # Brokers are clients of each other too, so the broker certificate serves both purposes.
        usages = [ExtendedKeyUsageOID.CLIENT_AUTH] + ([ExtendedKeyUsageOID.SERVER_AUTH] if server else [])
        builder = builder.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    if server:
        names: list[x509.GeneralName] = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    signer = issuer[0] if issuer else key
    return key, builder.sign(signer, hashes.SHA256())
