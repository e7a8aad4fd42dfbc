"""Workers secured as Kafka Connect deployments are: https listeners and the basic-auth extension with its
JAAS file in KAFKA_OPTS. A distributed cluster keeps working (its workers coordinate through Kafka, never
through each other's REST API), and a bad security setting stops a worker with one message naming it."""

from __future__ import annotations

import ssl
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.support.certificates import STORE_PASSWORD
from tests.support.distributed_workers import REPO, Cluster, datagen_config, make_topic, per_worker
from tests.support.secured_workers import PASSWORD, USER, security_files
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e


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
    _, security, environ = security_files(tmp_path)
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
