"""`--watch` refreshes the table until Ctrl-C, and Ctrl-C ends it with exit code 0."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.support.waiting import wait_until
from tests.unit.ctl.fake_cluster import FakeCluster


def test_watch_refreshes_get_connectors_until_interrupted(cluster: FakeCluster, tmp_path: Path) -> None:
    status = {"name": "c", "connector": {"state": "RUNNING"}, "tasks": [], "type": "sink"}
    cluster.answer("GET", "/connectors", 200, {"c": {"status": status}})
    output = tmp_path / "watch.out"
    command = [sys.executable, "-m", "workers.cli", "ctl", "get", "connectors", "--watch", "0.1", "--url", cluster.url]
    with output.open("w") as out, (tmp_path / "watch.err").open("w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err)
    try:
        wait_until(lambda: len(cluster.requests) >= 3, 30, "three refreshes")
        cluster.answer("GET", "/connectors", 200, {"c": {"status": {**status, "connector": {"state": "PAUSED"}}}})
        wait_until(lambda: "PAUSED" in output.read_text(), 30, "the new state in the table")
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(30)
    assert code == 0, (tmp_path / "watch.err").read_text()
    text = output.read_text()
    assert text.count(f"Every 0.1s: {cluster.url}") >= 4
    assert "c     sink  RUNNING" in text
