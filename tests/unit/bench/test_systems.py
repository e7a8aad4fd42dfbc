"""How the harness starts each system: the same worker keys on both sides, the right main class or subcommand."""

from __future__ import annotations

from pathlib import Path

from bench.java_connect.jars import ConnectJars
from bench.settings import HEARTBEAT_INTERVAL_MS, OFFSET_FLUSH_INTERVAL_MS, PRODUCER_SETTINGS, SESSION_TIMEOUT_MS
from bench.systems import JavaConnect, Kconnect, WorkerMode
from bench.systems.base import distributed_properties


def test_distributed_workers_share_a_group_with_internal_topics_replicated_to_every_broker() -> None:
    props = distributed_properties("127.0.0.1:9092", 8083, "bench-g", replication=3)
    assert props["group.id"] == "bench-g"
    assert {props[f"{kind}.storage.topic"] for kind in ("config", "offset", "status")} == {
        "bench-g-configs",
        "bench-g-offsets",
        "bench-g-status",
    }
    assert {props[f"{kind}.storage.replication.factor"] for kind in ("config", "offset", "status")} == {"3"}
    assert props["session.timeout.ms"] == str(SESSION_TIMEOUT_MS)
    assert props["heartbeat.interval.ms"] == str(HEARTBEAT_INTERVAL_MS)
    assert props["offset.flush.interval.ms"] == str(OFFSET_FLUSH_INTERVAL_MS)
    assert props["listeners"] == "http://127.0.0.1:8083"
    assert all(props[f"producer.{key}"] == value for key, value in PRODUCER_SETTINGS.items())
    # Java reads every offset.storage.* key as a topic config in distributed mode and refuses this one.
    assert "offset.storage.file.filename" not in props


def test_java_runs_its_own_main_class_for_each_mode(tmp_path: Path) -> None:
    java = JavaConnect(ConnectJars(tmp_path / "libs", tmp_path / "plugins"), "4.3.1")
    props = tmp_path / "worker.properties"
    standalone = java.command(props, tmp_path, WorkerMode.STANDALONE)
    distributed = java.command(props, tmp_path, WorkerMode.DISTRIBUTED)
    assert standalone[-2:] == ["org.apache.kafka.connect.cli.ConnectStandalone", str(props)]
    assert distributed[-2:] == ["org.apache.kafka.connect.cli.ConnectDistributed", str(props)]
    assert standalone[:-2] == distributed[:-2]


def test_kconnect_runs_its_standalone_and_worker_subcommands(tmp_path: Path) -> None:
    props = tmp_path / "worker.properties"
    assert Kconnect().command(props, tmp_path, WorkerMode.STANDALONE)[-2:] == ["standalone", str(props)]
    assert Kconnect().command(props, tmp_path, WorkerMode.DISTRIBUTED)[-2:] == ["worker", str(props)]
