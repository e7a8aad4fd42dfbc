"""Failover bookkeeping: where statuses place work, which worker is killed, and percentiles of cut-off waits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.java_connect.jars import ConnectJars
from bench.procs import ProcessSet
from bench.scenarios.failover import FailoverError, KillLog, pick_victim, task_counts
from bench.systems.cluster import Placement, WorkerCluster, placements
from bench.systems.java import JavaConnect
from bench.systems.kconnect import Kconnect


def status(name: str, connector_port: int, *task_ports: int, state: str = "RUNNING") -> dict[str, Any]:
    return {
        "name": name,
        "connector": {"state": state, "worker_id": f"127.0.0.1:{connector_port}"},
        "tasks": [{"id": i, "state": state, "worker_id": f"127.0.0.1:{p}"} for i, p in enumerate(task_ports)],
        "type": "source",
    }


def cluster(tmp_path: Path) -> WorkerCluster:
    made = WorkerCluster.create(Kconnect(), ProcessSet(), "127.0.0.1:9092", tmp_path / "c", size=3, replication=1)
    for member, port in zip(made.members, (8001, 8002, 8003), strict=True):
        member.port = port
    return made


def test_a_status_places_the_connector_instance_and_each_task() -> None:
    assert placements(status("c", 8001, 8002, 8003)) == [
        Placement("c", None, "RUNNING", "127.0.0.1:8001"),
        Placement("c", 0, "RUNNING", "127.0.0.1:8002"),
        Placement("c", 1, "RUNNING", "127.0.0.1:8003"),
    ]


def test_workers_are_recognised_by_port_whatever_host_the_status_names(tmp_path: Path) -> None:
    member = cluster(tmp_path).members[0]
    assert member.is_worker("127.0.0.1:8001")
    assert member.is_worker("localhost:8001")
    assert not member.is_worker("127.0.0.1:18001")


def test_the_victim_is_the_worker_with_most_tasks_and_ties_are_taken_in_turn(tmp_path: Path) -> None:
    made = cluster(tmp_path)
    found = placements(status("a", 8003, 8001, 8002)) + placements(status("b", 8003, 8001))
    assert task_counts(made, found) == {"kconnect-1": 2, "kconnect-2": 1, "kconnect-3": 0}
    assert pick_victim(made, found, turn=5).port == 8001
    even = placements(status("a", 8003, 8001)) + placements(status("b", 8001, 8002))
    assert [pick_victim(made, even, turn).port for turn in range(3)] == [8001, 8002, 8001]


def test_a_cluster_without_tasks_has_no_victim(tmp_path: Path) -> None:
    with pytest.raises(FailoverError):
        pick_victim(cluster(tmp_path), placements(status("a", 8001)), 0)


def test_kills_give_p50_and_p99_with_every_wait_kept() -> None:
    log = KillLog(bound=60.0, waits=[10.0, 12.0, 11.0], moved=[2, 2, 4], poll_rounds_ms=[10.0, 30.0])
    row = log.row("kconnect")
    assert row.metrics["p50_s"].samples == (11.0,)
    assert row.metrics["p99_s"].samples == pytest.approx((11.98,))
    assert not row.metrics["p99_s"].at_least
    assert row.metrics["each_kill_s"].samples == (10.0, 12.0, 11.0)
    assert row.details["recovered_within_bound"] == 3
    assert row.details["moved_per_kill"] == pytest.approx(2.7)
    assert row.details["mean_poll_round_ms"] == 20.0


def test_a_kill_that_did_not_recover_within_the_bound_is_reported_as_more_than_the_bound() -> None:
    row = KillLog(bound=30.0, waits=[None], moved=[4]).row("Java")
    assert row.metrics["p50_s"].samples == (30.0,)
    assert row.metrics["p50_s"].at_least
    assert row.details["recovered_within_bound"] == 0
    assert row.details["max_recovered_s"] == "none"


def test_no_kill_is_no_row() -> None:
    with pytest.raises(FailoverError):
        KillLog(bound=30.0).row("kconnect")


def test_the_spared_member_is_never_the_victim(tmp_path: Path) -> None:
    made = cluster(tmp_path)
    found = placements(status("a", 8003, 8001, 8001)) + placements(status("b", 8003, 8002))
    assert pick_victim(made, found, turn=0, spare=made.members[0]).port == 8002


def test_java_names_its_group_leader_in_the_last_assignment_it_logged(tmp_path: Path) -> None:
    java = JavaConnect(ConnectJars(tmp_path / "libs", tmp_path / "plugins"), "4.3.1")
    assert java.group_leader_port(tmp_path) is None
    line = (
        "[2026-11-22 00:48:44,624] INFO [Worker clientId=connect-127.0.0.1:{me}, groupId=g] Joined group at "
        "generation {gen} with protocol version 2 and got assignment: Assignment{{error=0, "
        "leader='connect-127.0.0.1:{leader}-0650', leaderUrl='http://127.0.0.1:{leader}/', offset=19, "
        "connectorIds=[], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0}} with rebalance delay: 0\n"
    )
    (tmp_path / "connect.log").write_text(
        line.format(me=41579, gen=1, leader=41579) + line.format(me=41579, gen=2, leader=33213)
    )
    assert java.group_leader_port(tmp_path) == 33213
    assert Kconnect().group_leader_port(tmp_path) is None


def test_kills_say_how_often_they_hit_the_group_leader() -> None:
    log = KillLog(bound=60.0, waits=[10.0, 11.0], moved=[2, 2], leader_kills=[True, False])
    assert log.row("Java").details["group_leader_killed"] == "1 of 2"
    assert KillLog(bound=60.0, waits=[10.0], moved=[2]).row("kconnect").details["group_leader_killed"] == "n/a"
