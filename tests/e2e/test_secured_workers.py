"""Workers secured as Kafka Connect deployments are: https listeners and the basic-auth extension with its
JAAS file in KAFKA_OPTS. A distributed cluster keeps working (its workers coordinate through Kafka, never
through each other's REST API), and a bad security setting stops a worker with one message naming it."""

from __future__ import annotations

import ssl
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_distributed_support import (
    REPO,
    Cluster,
    WorkerProcess,
    datagen_config,
    make_topic,
    per_worker,
    wait_until,
    worker_props,
)
from tests.support.certificates import STORE_PASSWORD, TlsFiles, make_tls_files

pytestmark = pytest.mark.e2e

EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
USER, PASSWORD = "operator", "op-secret-4321"


def _security(tmp_path: Path) -> tuple[TlsFiles, dict[str, str], dict[str, str]]:
    tls = make_tls_files(tmp_path)
    (tmp_path / "connect.password").write_text(f"{USER}: {PASSWORD}\n")
    (tmp_path / "jaas.conf").write_text(
        f'KafkaConnect {{\n  {MODULE} required\n  file="{tmp_path / "connect.password"}";\n}};\n'
    )
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


@pytest.fixture
def secured_cluster(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Callable[[int], Cluster]]:
    clusters: list[Cluster] = []

    def make(workers: int) -> Cluster:
        tls, security, environ = _security(tmp_path)
        client = httpx.Client(verify=ssl.create_default_context(cafile=str(tls.ca_pem)), auth=(USER, PASSWORD))
        probe = worker_props(kafka_bootstrap, "x")
        group = f"kc-secured-{probe['listeners'].rsplit(':', 1)[1]}"
        cluster = Cluster(kafka_bootstrap, group, tmp_path, tmp_path / "runs", http=client)
        cluster.runs.mkdir()
        clusters.append(cluster)
        for index in range(workers):
            props = worker_props(kafka_bootstrap, group)
            port = props["listeners"].rsplit(":", 1)[1]
            props.update(security, listeners=f"https://127.0.0.1:{port}", **{"rest.advertised.host.name": "localhost"})
            cluster.workers.append(SecuredWorker(f"{group}-w{index + 1}", props, tmp_path, client))
        for worker in cluster.workers:
            worker.start(env=environ)
        for worker in cluster.workers:
            wait_until(worker.healthy, 60, f"worker {worker.name} to be healthy", interval=0.2)
        return cluster

    yield make
    for cluster in clusters:
        cluster.stop()


def test_a_secured_distributed_cluster_serves_and_balances(secured_cluster: Callable[[int], Cluster]) -> None:
    cluster = secured_cluster(2)
    w1, w2 = cluster.workers
    with httpx.Client(verify=ssl.create_default_context(cafile=str(cluster.directory / "ca.pem"))) as anonymous:
        refused = anonymous.get(f"{w1.url}/connectors")
        assert refused.status_code == 401
        assert refused.json()["error_code"] == 401
        assert anonymous.get(f"{w2.url}/health").status_code == 401
        assert anonymous.get(f"{w2.url}/connectors", auth=(USER, "wrong")).status_code == 401

    topic = make_topic(cluster.bootstrap, 4)
    cluster.create("secured-src", datagen_config(cluster, topic, tasks=4, rate=50), via=w1)
    owners = wait_until(
        lambda: cluster.balanced_on(["secured-src"], 4, cluster.workers, via=w2), 60, "4 tasks over both workers"
    )
    assert sorted(per_worker(owners).values()) == [2, 2]
    assert set(owners.values()) == {
        w1.worker_id.replace("127.0.0.1", "localhost"),
        w2.worker_id.replace("127.0.0.1", "localhost"),
    }
    assert cluster.request("DELETE", "/connectors/secured-src", via=w2).status_code == 204
    wait_until(lambda: cluster.request("GET", "/connectors", via=w1).json() == [], 30, "the connector deleted")
    for worker in cluster.workers:
        assert PASSWORD not in worker.log_text()
        assert STORE_PASSWORD not in worker.log_text()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"listeners.https.ssl.keystore.password": "wrong"}, "wrong listeners.https.ssl.keystore.password"),
        ({"listeners.https.ssl.keystore.location": "/nonexistent/ks.p12"}, "Cannot read listeners.https.ssl.keystore"),
        ({"rest.extension.classes": "com.example.Missing"}, "rest.extension.classes: cannot load com.example.Missing"),
        ({"KAFKA_OPTS": "-Djava.security.auth.login.config=/nonexistent/jaas.conf"}, "Cannot read the JAAS file"),
        ({"config.providers": "vault"}, 'Missing required configuration "config.providers.vault.class"'),
        (
            {"config.providers": "file", "config.providers.file.class": "FileConfigProvider", "x": "${file:/nope:k}"},
            "Could not read properties from file /nope",
        ),
    ],
)
def test_a_bad_security_setting_stops_a_standalone_worker_naming_it(
    tmp_path: Path, change: dict[str, str], message: str
) -> None:
    _, security, environ = _security(tmp_path)
    environ = {**environ, **{k: v for k, v in change.items() if k.isupper()}}
    change = {k: v for k, v in change.items() if not k.isupper()}
    props = {
        "bootstrap.servers": "127.0.0.1:1",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp_path / "offsets"),
        "listeners": "https://127.0.0.1:0",
        **security,
        **change,
    }
    worker = tmp_path / "worker.properties"
    worker.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    finished = subprocess.run(
        [sys.executable, "-m", "workers.cli", "standalone", str(worker)],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", **environ},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2, finished.stdout + finished.stderr
    output = finished.stdout + finished.stderr
    assert message in output
    assert "Traceback" not in output
    assert STORE_PASSWORD not in output
