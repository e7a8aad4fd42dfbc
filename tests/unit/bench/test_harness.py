"""Running a body against each system's cluster: rows carry the worker mode, failures stay in their row,
and no worker outlives its cluster."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import pytest

from bench.broker import KafkaAdmin
from bench.harness import ClusterVariant, RunContext, cluster_mode
from bench.procs import ProcessSet
from bench.results import Metric, Status, SystemResult
from bench.settings import QUICK
from bench.systems.base import WorkerMode
from bench.systems.cluster import WorkerCluster

# A stand-in worker: serves /health and /connectors on the port of `listeners` in its properties file.
FAKE_WORKER = """
import http.server, sys
props = dict(line.split("=", 1) for line in open(sys.argv[1]).read().splitlines() if "=" in line)
port = int(props["listeners"].rsplit(":", 1)[1])
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"status": "healthy"}' if self.path == "/health" else b"[]"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


class FakeSystem:
    key = "fake"
    label = "Fake Connect"

    def unavailable_reason(self) -> str | None:
        return None

    def mode_unavailable_reason(self, mode: WorkerMode) -> str | None:
        return None

    def extra_worker_properties(self, workdir: Path) -> Mapping[str, str]:
        return {}

    def command(self, worker_properties: Path, workdir: Path, mode: WorkerMode = WorkerMode.STANDALONE) -> list[str]:
        return [sys.executable, "-c", FAKE_WORKER, str(worker_properties)]

    def settings(self) -> Mapping[str, str]:
        return {}

    def group_leader_port(self, workdir: Path) -> int | None:
        return None


class FakeAdmin:
    def __init__(self) -> None:
        self.deleted: list[str] = []

    def topics_with_prefix(self, prefix: str) -> list[str]:
        return [f"{prefix}configs", f"{prefix}status"]

    def delete_topics(self, names: list[str]) -> None:
        self.deleted += names


def context(tmp_path: Path, processes: ProcessSet, admin: FakeAdmin, **unavailable: Any) -> RunContext:
    return RunContext(
        mode="quick",
        sizes=QUICK,
        workdir=tmp_path,
        bootstrap_servers="127.0.0.1:9",
        admin=cast(KafkaAdmin, admin),
        processes=processes,
        systems=[FakeSystem()],
        unavailable={},
        machine={},
        unavailable_modes=unavailable.get("modes", {}),
    )


def test_each_cluster_runs_the_body_against_live_workers_and_stops_them_after(tmp_path: Path) -> None:
    admin = FakeAdmin()
    seen: list[WorkerCluster] = []

    def body(cluster: WorkerCluster, record: Any) -> None:
        seen.append(cluster)
        assert len(cluster.alive()) == 2
        assert cluster.rest.healthy()
        record("bench", SystemResult.measured("Fake Connect", {"s": Metric("s", False, (1.0,))}))

    with ProcessSet() as processes:
        ctx = context(tmp_path, processes, admin)
        rows = ctx.each_cluster(["bench"], body, [ClusterVariant("fake", FakeSystem(), "Fake")], size=2)
    assert rows["bench"]["fake"].status is Status.MEASURED
    assert rows["bench"]["fake"].worker_mode == cluster_mode(2) == "distributed, 2 workers"
    assert not seen[0].alive()
    assert admin.deleted == [f"{seen[0].group}-configs", f"{seen[0].group}-status"]


def test_a_body_that_raises_fails_its_own_rows_only(tmp_path: Path) -> None:
    def body(cluster: WorkerCluster, record: Any) -> None:
        record("first", SystemResult.measured("Fake", {}))
        raise RuntimeError("the cluster fell over\nwith details")

    with ProcessSet() as processes:
        rows = context(tmp_path, processes, FakeAdmin()).each_cluster(
            ["first", "second"], body, [ClusterVariant("fake", FakeSystem(), "Fake")], size=1
        )
    assert rows["first"]["fake"].status is Status.MEASURED
    assert rows["second"]["fake"].status is Status.FAILED
    assert rows["second"]["fake"].reason == "the cluster fell over"
    assert rows["second"]["fake"].worker_mode == "distributed, 1 worker"


def test_a_system_without_a_distributed_mode_gets_a_row_that_says_why(tmp_path: Path) -> None:
    def body(cluster: WorkerCluster, record: Any) -> None:
        pytest.fail("no cluster should start")

    modes = {("fake", WorkerMode.DISTRIBUTED): "`fake worker` is not available yet"}
    with ProcessSet() as processes:
        rows = context(tmp_path, processes, FakeAdmin(), modes=modes).each_cluster(
            ["bench"], body, [ClusterVariant("fake", FakeSystem(), "Fake")]
        )
    assert rows["bench"]["fake"].status is Status.NOT_MEASURABLE
    assert rows["bench"]["fake"].reason == "`fake worker` is not available yet"
