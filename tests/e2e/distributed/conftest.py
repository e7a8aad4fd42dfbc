"""Fixtures of the distributed e2e tests: a cluster of secured workers."""

from __future__ import annotations

import ssl
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.distributed_workers import Cluster, worker_props
from tests.support.secured_workers import PASSWORD, USER, SecuredWorker, security_files
from tests.support.waiting import wait_until


@pytest.fixture
def secured_cluster(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Callable[[int], Cluster]]:
    clusters: list[Cluster] = []

    def make(workers: int) -> Cluster:
        tls, security, environ = security_files(tmp_path)
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
