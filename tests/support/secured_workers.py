"""Distributed workers secured as Kafka Connect deployments are: https listeners and the basic-auth extension with
its JAAS file in KAFKA_OPTS."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import httpx

from tests.support.certificates import STORE_PASSWORD, TlsFiles, make_tls_files
from tests.support.distributed_workers import WorkerProcess

EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
USER, PASSWORD = "operator", "op-secret-4321"


def write_jaas(directory: Path, users: Mapping[str, str]) -> Path:
    """A users' file of `users` (name -> password) and the JAAS file naming it, in `directory`; the JAAS file."""
    credentials = directory / "connect.password"
    credentials.write_text("".join(f"{user}: {password}\n" for user, password in users.items()))
    jaas = directory / "jaas.conf"
    jaas.write_text(f'KafkaConnect {{\n  {MODULE} required\n  file="{credentials}";\n}};\n')
    return jaas


def security_files(tmp_path: Path) -> tuple[TlsFiles, dict[str, str], dict[str, str]]:
    """TLS files, the worker keys of an https listener with basic auth, and the environment with its JAAS file."""
    tls = make_tls_files(tmp_path)
    write_jaas(tmp_path, {USER: PASSWORD})
    props = {
        "listeners.https.ssl.keystore.type": "PKCS12",
        "listeners.https.ssl.keystore.location": str(tls.server_p12),
        "listeners.https.ssl.keystore.password": STORE_PASSWORD,
        "rest.extension.classes": EXTENSION,
    }
    return tls, props, {"KAFKA_OPTS": f"-Djava.security.auth.login.config={tmp_path / 'jaas.conf'}"}


class SecuredWorker(WorkerProcess):
    def __init__(self, name: str, props: dict[str, str], directory: Path, client: httpx.Client) -> None:
        super().__init__(name, props, directory)
        self.url = f"https://localhost:{self.port}"
        self.worker_id = f"localhost:{self.port}"  # rest.advertised.host.name
        self.client = client

    def healthy(self) -> bool:
        if not self.alive():
            raise AssertionError(f"worker {self.name} exited with {self.exit_code()}:\n{self.log_tail()}")
        try:
            return bool(self.client.get(f"{self.url}/health", timeout=2).json().get("status") == "healthy")
        except (httpx.HTTPError, ValueError):
            return False
