"""`kconnect kafka` without a broker: argument parsing, missing tools, generated config, pid safety."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from local_kafka import LocalKafka, fetch_jars, jars, processes
from local_kafka.config import layout, new_cluster_id, server_properties
from workers.cli import build_parser, main

REPO = Path(__file__).resolve().parents[3]


def run_cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workers.cli", *args],
        env={"PYTHONPATH": str(REPO), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def properties(text: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return {key: value for key, value in pairs}


def test_start_without_java_says_what_to_install_in_one_line(tmp_path: Path) -> None:
    result = run_cli("kafka", "start", "--dir", str(tmp_path / "k"), env={"PATH": ""}, cwd=tmp_path)

    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "`java` not found" in lines[0]
    assert "openjdk-17-jre-headless" in lines[0]


def test_fetch_without_mvn_says_what_to_install(tmp_path: Path) -> None:
    env = {"PATH": "", "KCONNECT_CACHE_DIR": str(tmp_path / "cache")}
    result = run_cli("kafka", "fetch", env=env, cwd=tmp_path)

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "kconnect kafka: `mvn` not found: install Apache Maven 3.6+ (Debian: apt-get install maven)"
    ]


def test_fetch_with_a_matching_marker_neither_runs_nor_needs_mvn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = jars.default_version()
    libs = jars.libs_dir(version, tmp_path)
    libs.mkdir(parents=True)
    (libs / jars.MARKER).write_text(jars.fingerprint(version) + "\n")
    monkeypatch.setenv("PATH", "")

    assert fetch_jars(version, tmp_path) == libs


def test_a_marker_from_another_descriptor_is_not_trusted(tmp_path: Path) -> None:
    version = jars.default_version()
    libs = jars.libs_dir(version, tmp_path)
    libs.mkdir(parents=True)
    (libs / jars.MARKER).write_text("written-for-an-older-pom\n")

    assert not jars.is_fetched(version, tmp_path)


def test_version_comes_from_the_pom_unless_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KCONNECT_KAFKA_VERSION", raising=False)
    assert re.fullmatch(r"4\.\d+\.\d+", jars.default_version())
    monkeypatch.setenv("KCONNECT_KAFKA_VERSION", "4.0.0")
    assert jars.default_version() == "4.0.0"


def test_arguments_parse_into_a_handler() -> None:
    args = build_parser().parse_args(["kafka", "start", "--nodes", "3", "--port", "19092", "--dir", "x"])

    assert (args.nodes, args.port, args.dir, args.controller_port) == (3, 19092, Path("x"), None)
    assert callable(args.func)


@pytest.mark.parametrize("argv", [["kafka", "start", "--nodes", "2"], ["kafka"], ["kafka", "restart"]])
def test_bad_arguments_exit_with_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(argv)

    assert exited.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_three_node_server_properties(tmp_path: Path) -> None:
    specs = layout(tmp_path, nodes=3, port=19092)
    node2 = properties(server_properties(specs[1], specs))

    assert [(s.broker_port, s.controller_port) for s in specs] == [(19092, 19192), (19093, 19193), (19094, 19194)]
    assert node2["process.roles"] == "broker,controller"
    assert node2["node.id"] == "2"
    assert node2["controller.quorum.voters"] == "1@127.0.0.1:19192,2@127.0.0.1:19193,3@127.0.0.1:19194"
    assert node2["listeners"] == "PLAINTEXT://127.0.0.1:19093,CONTROLLER://127.0.0.1:19193"
    assert node2["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19093"
    assert node2["log.dirs"] == str(tmp_path / "node-2" / "data")
    assert node2["offsets.topic.replication.factor"] == "3"
    assert node2["transaction.state.log.replication.factor"] == "3"
    assert node2["transaction.state.log.min.isr"] == "2"
    assert node2["default.replication.factor"] == "3"
    assert node2["group.initial.rebalance.delay.ms"] == "0"
    assert node2["num.partitions"] == "1"
    assert node2["auto.create.topics.enable"] == "true"


def test_one_node_internal_topics_fit_one_node(tmp_path: Path) -> None:
    specs = layout(tmp_path, nodes=1, port=9092)
    props = properties(server_properties(specs[0], specs))

    assert props["controller.quorum.voters"] == "1@127.0.0.1:9192"
    assert props["offsets.topic.replication.factor"] == "1"
    assert props["transaction.state.log.min.isr"] == "1"
    assert props["min.insync.replicas"] == "1"


def test_broker_settings_given_replace_or_add_to_the_defaults(tmp_path: Path) -> None:
    specs = layout(tmp_path, nodes=1, port=9092)
    props = properties(
        server_properties(specs[0], specs, overrides={"num.io.threads": 4, "log.segment.delete.delay.ms": 0})
    )

    assert props["num.io.threads"] == "4" and props["log.segment.delete.delay.ms"] == "0"
    assert props["num.network.threads"] == "2", "the other defaults stay"


def test_jvm_options_reach_the_brokers_and_the_storage_tool_before_the_main_class(tmp_path: Path) -> None:
    cluster = LocalKafka(tmp_path, nodes=1, port=19092, jvm_options=("-XX:TieredStopAtLevel=1",))

    for main_class in ("kafka.Kafka", "kafka.tools.StorageTool"):
        command = cluster._java_command("java", cluster.specs[0], main_class)
        assert command.index("-XX:TieredStopAtLevel=1") < command.index(main_class)
    assert "-XX:TieredStopAtLevel=1" not in LocalKafka(tmp_path, 1, 19092)._java_command("java", cluster.specs[0], "x")


def test_layout_rejects_overlapping_ports(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="overlap"):
        layout(tmp_path, nodes=3, port=9092, controller_port=9093)


def test_cluster_ids_look_like_kafkas() -> None:
    # 1 id in 64 would start with "-" if nothing prevented it; 2000 draws make a miss vanishingly rare.
    ids = {new_cluster_id() for _ in range(2000)}

    assert len(ids) == 2000
    assert all(re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{21}", cluster_id) for cluster_id in ids)


def test_status_and_stop_of_an_empty_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kafka", "status", "--dir", str(tmp_path)]) == 1
    assert "not running" in capsys.readouterr().out
    assert main(["kafka", "stop", "--dir", str(tmp_path)]) == 0
    assert "nothing running" in capsys.readouterr().out


def test_stop_never_signals_a_pid_that_is_not_ours(tmp_path: Path) -> None:
    cluster = LocalKafka(tmp_path, nodes=1, port=19092)
    node_dir = cluster.specs[0].directory
    node_dir.mkdir(parents=True)
    # A stale pid file that now names an unrelated process, e.g. after a reboot.
    with subprocess.Popen(["sleep", "60"]) as stranger:
        try:
            processes.write_pid(node_dir, stranger.pid)

            assert cluster.status().running is False
            processes.write_pid(node_dir, stranger.pid)
            assert cluster.stop(timeout=1) == []
            assert stranger.poll() is None
            assert not (node_dir / processes.PID_FILE).exists()
        finally:
            stranger.kill()


def test_stop_ends_a_process_started_for_the_directory(tmp_path: Path) -> None:
    cluster = LocalKafka(tmp_path, nodes=1, port=19092)
    node_dir = cluster.specs[0].directory
    command = [sys.executable, "-c", "import time; time.sleep(120)", processes.marker_argument(node_dir)]
    pid = processes.spawn_detached(command, node_dir / "logs" / "stdout.log")
    processes.write_pid(node_dir, pid)

    assert cluster.status().running
    assert cluster.stop(timeout=10) == [pid]
    # stop() waits for the exit and reaps its own child, so nothing of the pid is left.
    assert not Path(f"/proc/{pid}").exists()
