"""A distributed worker given secrets through each config provider: the connector runs, and not one byte of a
secret is in the config topic, the status topic, any REST response, `/validate` output or the worker's log."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.distributed_workers import Cluster, WorkerProcess, datagen_config, make_topic, worker_props
from tests.support.topic_reads import messages_to_end
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

FILE_SECRET, DIR_SECRET, ENV_SECRET = (f"{kind}-{uuid.uuid4().hex}" for kind in ("file", "dir", "env"))
PROVIDERS = {
    "config.providers": "file,directory,env",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    "config.providers.directory.class": "org.apache.kafka.common.config.provider.DirectoryConfigProvider",
    "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
}


@pytest.fixture
def cluster(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Cluster]:
    group = f"kc-secrets-{uuid.uuid4().hex[:8]}"
    made = Cluster(kafka_bootstrap, group, tmp_path, tmp_path / "runs")
    made.runs.mkdir()
    made.workers.append(WorkerProcess(f"{group}-w1", {**worker_props(kafka_bootstrap, group), **PROVIDERS}, tmp_path))
    made.workers[0].start(env={"KC_E2E_API_KEY": ENV_SECRET})
    try:
        wait_until(made.workers[0].healthy, 60, "the worker to be healthy", interval=0.2)
        yield made
    finally:
        made.stop()


def _topic_bytes(bootstrap: str, topic: str) -> bytes:
    messages = messages_to_end({"bootstrap.servers": bootstrap}, topic)
    return b"\n".join(part for message in messages for part in (message.key() or b"", message.value() or b""))


def test_secrets_from_each_provider_never_leave_the_worker(cluster: Cluster, tmp_path: Path) -> None:
    (tmp_path / "db.properties").write_text(f"password={FILE_SECRET}\n")
    (tmp_path / "mounted").mkdir()
    (tmp_path / "mounted" / "token").write_text(DIR_SECRET)
    topic = make_topic(cluster.bootstrap, 1)
    config = {
        **datagen_config(cluster, topic, tasks=2, rate=20),
        "db.password": f"${{file:{tmp_path / 'db.properties'}:password}}",
        "api.token": f"${{directory:{tmp_path / 'mounted'}:token}}",
        "api.key": "${env:KC_E2E_API_KEY}",
    }
    cluster.create("with-secrets", config)
    wait_until(lambda: cluster.running_on(["with-secrets"], 2, cluster.workers), 60, "both tasks RUNNING")
    refused = cluster.request(
        "POST", "/connectors", json={"name": "bad", "config": {**config, "tasks.max": "${env:KC_E2E_API_KEY}"}}
    )
    assert refused.status_code == 400
    assert "tasks.max" in refused.text

    served = [
        refused.text,
        cluster.request("PUT", "/connector-plugins/DatagenConnector/config/validate", json=config).text,
        *(
            cluster.request("GET", path).text
            for path in (
                "/connectors/with-secrets",
                "/connectors/with-secrets/config",
                "/connectors/with-secrets/tasks",
                "/connectors/with-secrets/status",
                "/connectors?expand=info&expand=status",
            )
        ),
    ]
    assert cluster.request("GET", "/connectors/with-secrets/config").json()["api.key"] == "${env:KC_E2E_API_KEY}"
    stored = _topic_bytes(cluster.bootstrap, f"{cluster.group}-configs")
    assert b"${env:KC_E2E_API_KEY}" in stored
    statuses = _topic_bytes(cluster.bootstrap, f"{cluster.group}-status")
    log = cluster.workers[0].log_text()
    for secret in (FILE_SECRET, DIR_SECRET, ENV_SECRET):
        for text in served:
            assert secret not in text
        assert secret.encode() not in stored
        assert secret.encode() not in statuses
        assert secret not in log
