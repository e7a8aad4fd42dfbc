"""A worker secured the way Kafka Connect's docs secure one, with the same files and keys on both systems.

REST: an https listener (`listeners.https.ssl.*`, so the top-level `ssl.*` keys stay the Kafka clients'),
Kafka's `BasicAuthSecurityRestExtension`, and its JAAS file naming a `user: password` file, handed over
as Kafka's start scripts do: `-Djava.security.auth.login.config=...` in KAFKA_OPTS (kconnect reads that
variable; for Java the harness puts the option on the command line, where kafka-run-class.sh puts it).
Kafka: the broker's SASL_SSL client keys at the top level (the worker's own clients) and under the
`producer.`, `consumer.` and `admin.` prefixes (the connectors' clients; Java gives them nothing else).

The TLS certificate is made by the local Kafka's own helper (`local_kafka.security.prepare`): a CA
and a server certificate for 127.0.0.1, as a PKCS12 key store both systems read.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bench.rest import RestAccess
from bench.systems.base import WorkerSetup
from local_kafka.security import prepare

BASIC_AUTH_EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
LOGIN_MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
JAAS_OPTION = "-Djava.security.auth.login.config"
CLIENT_PREFIXES = ("", "producer.", "consumer.", "admin.")
REST_USER = "bench"


def jaas_text(credentials: Path) -> str:
    """The JAAS file Kafka's basic-auth extension reads: its `KafkaConnect` section names the users' file."""
    return f'KafkaConnect {{\n  {LOGIN_MODULE} required\n  file="{credentials}";\n}};\n'


def credentials_text(user: str, password: str) -> str:
    """PropertyFileLoginModule's users file: a Java properties file of `user: password` lines."""
    return f"{user}: {password}\n"


def kafka_opts(jaas: Path) -> str:
    return f"{JAAS_OPTION}={jaas}"


def https_rest_properties(keystore: Path, password: str) -> dict[str, str]:
    """REST over TLS with basic auth. The `listeners.https.` prefix keeps the REST key store apart from the
    top-level `ssl.*` keys, which both systems give to their Kafka clients."""
    return {
        "listeners.https.ssl.keystore.type": "PKCS12",
        "listeners.https.ssl.keystore.location": str(keystore),
        "listeners.https.ssl.keystore.password": password,
        "listeners.https.ssl.key.password": password,
        "rest.extension.classes": BASIC_AUTH_EXTENSION,
    }


def kafka_client_properties(client_keys: Mapping[str, str]) -> dict[str, str]:
    """A secured listener's client keys for the worker's own clients and, prefixed, for the connectors'.

    `bootstrap.servers` is given once, at the top level: both systems' connector clients take it from there."""
    keys = {key: value for key, value in client_keys.items() if key != "bootstrap.servers"}
    props = {f"{prefix}{key}": value for prefix in CLIENT_PREFIXES for key, value in keys.items()}
    if "bootstrap.servers" in client_keys:
        props["bootstrap.servers"] = client_keys["bootstrap.servers"]
    return props


@dataclass(frozen=True)
class SecuredRest:
    """The files of a secured REST API and how a client reaches it."""

    keystore: Path
    keystore_password: str
    ca_file: Path
    jaas_file: Path
    user: str
    password: str

    @property
    def access(self) -> RestAccess:
        return RestAccess(self.ca_file, (self.user, self.password))

    @property
    def kafka_opts(self) -> str:
        return kafka_opts(self.jaas_file)

    def worker_setup(self, kafka_client_keys: Mapping[str, str]) -> WorkerSetup:
        """A worker with this REST security against the Kafka listener of `kafka_client_keys`."""
        return WorkerSetup(
            properties={
                **https_rest_properties(self.keystore, self.keystore_password),
                **kafka_client_properties(kafka_client_keys),
            },
            environment={"KAFKA_OPTS": self.kafka_opts},
            access=self.access,
        )


def write_secured_rest(directory: Path) -> SecuredRest:
    """Certificates, the users' file and the JAAS file in `directory`."""
    tls = prepare(directory / "tls", "ssl")
    password = secrets.token_urlsafe(18)
    credentials = directory / "connect.password"
    credentials.write_text(credentials_text(REST_USER, password))
    credentials.chmod(0o600)
    jaas = directory / "jaas.conf"
    jaas.write_text(jaas_text(credentials))
    return SecuredRest(tls.broker_keystore, tls.password, tls.ca_pem, jaas, REST_USER, password)
