"""Failover bookkeeping: where statuses place work, which worker a fault hits, percentiles of cut-off waits,
what a pause disturbed, and when markers reach the sinks' files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.java_connect.jars import ConnectJars
from bench.procs import ProcessSet
from bench.scenarios.failover_faults import Fault, FaultLog, disturbed_by
from bench.scenarios.failover_placement import FailoverError, balanced, pick_victim, task_counts
from bench.scenarios.failover_sinks import MarkerWatch, OutputFile, task_consumers_settled
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


def test_balance_needs_tasks_and_connector_instances_each_within_one_of_even(tmp_path: Path) -> None:
    made = cluster(tmp_path)
    even = placements(status("a", 8001, 8001, 8002)) + placements(status("b", 8002, 8003, 8003))
    assert task_counts(made, even, connectors=True) == {"kconnect-1": 1, "kconnect-2": 1, "kconnect-3": 0}
    assert balanced(made, even)
    tasks_off = placements(status("a", 8001, 8001, 8001)) + placements(status("b", 8002, 8003, 8003))
    assert not balanced(made, tasks_off)
    connectors_off = placements(status("a", 8001, 8001, 8002)) + placements(status("b", 8001, 8003, 8003))
    assert not balanced(made, connectors_off)


def test_a_cluster_without_tasks_has_no_victim(tmp_path: Path) -> None:
    with pytest.raises(FailoverError):
        pick_victim(cluster(tmp_path), placements(status("a", 8001)), 0)


def test_trials_give_p50_and_p99_of_work_and_data_with_every_wait_kept() -> None:
    log = FaultLog(
        bound=60.0,
        waits=[10.0, 12.0, 11.0],
        data_waits=[20.0, 22.0, 21.0],
        moved=[2, 2, 4],
        poll_rounds_ms=[10.0, 30.0],
    )
    row = log.row("kconnect")
    assert row.metrics["p50_s"].samples == (11.0,)
    assert row.metrics["p99_s"].samples == pytest.approx((11.98,))
    assert not row.metrics["p99_s"].at_least
    assert row.metrics["each_trial_s"].samples == (10.0, 12.0, 11.0)
    assert row.metrics["data_p50_s"].samples == (21.0,)
    assert row.metrics["data_each_trial_s"].samples == (20.0, 22.0, 21.0)
    assert row.details["recovered_within_bound"] == 3
    assert row.details["moved_per_trial"] == pytest.approx(2.7)
    assert row.details["mean_poll_round_ms"] == 20.0


def test_a_wait_not_over_within_the_bound_is_reported_as_more_than_the_bound() -> None:
    row = FaultLog(bound=30.0, waits=[None], data_waits=[5.0], moved=[4]).row("Java")
    assert row.metrics["p50_s"].samples == (30.0,)
    assert row.metrics["p50_s"].at_least
    assert not row.metrics["data_p50_s"].at_least
    assert row.details["recovered_within_bound"] == 0
    assert row.details["data_within_bound"] == 1
    assert row.details["max_recovered_s"] == "none"


def test_no_trial_is_no_row() -> None:
    with pytest.raises(FailoverError):
        FaultLog(bound=30.0).row("kconnect")
    with pytest.raises(FailoverError):
        FaultLog(bound=30.0).pause_row("kconnect")


def test_a_pause_row_counts_what_was_disturbed_and_in_how_many_trials() -> None:
    row = FaultLog(bound=11.5, disturbed=[0, 3, 0, 1], data_waits=[1.6, 1.7, None, 1.6]).pause_row("Java")
    assert row.metrics["disturbed"].samples == (4.0,)
    assert row.metrics["trials_disturbed"].samples == (2.0,)
    assert row.metrics["data_p99_s"].at_least
    assert row.details["trials"] == 4


def test_work_not_running_where_it_ran_or_gone_is_disturbed_and_nothing_else() -> None:
    before = placements(status("a", 8001, 8001, 8002)) + placements(status("b", 8003, 8003))
    same = placements(status("a", 8001, 8001, 8002)) + placements(status("b", 8003, 8003))
    assert disturbed_by(before, same) == set()
    moved = placements(status("a", 8001, 8002, 8002))
    restarting = placements(status("b", 8003, 8003, state="UNASSIGNED"))
    assert disturbed_by(before, moved + restarting) == {("a", 0), ("b", None), ("b", 0)}


def test_only_the_pause_leaves_the_work_where_it_is() -> None:
    assert [fault.moves_work for fault in Fault] == [True, True, True, False]


def test_markers_count_once_their_whole_line_is_in_any_output(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    watch = MarkerWatch([OutputFile(first), OutputFile(second)])
    watch.expect(["m-1", "m-2"])
    assert not watch.arrived()  # no file yet
    first.write_text("old\nm-")
    assert not watch.arrived()
    with first.open("a") as out:
        out.write("1\n")
    second.write_text("m-2")  # not yet a whole line
    assert not watch.arrived()
    assert watch.missing == {"m-2"}
    with second.open("a") as out:
        out.write("\n")
    assert watch.arrived()


def test_new_markers_let_go_of_those_a_trial_gave_up_on(tmp_path: Path) -> None:
    output = tmp_path / "a.txt"
    watch = MarkerWatch([OutputFile(output)])
    watch.expect(["lost"])
    watch.expect(["m-2"])
    output.write_text("m-2\n")
    assert watch.arrived()


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


def test_trials_say_how_often_they_hit_the_group_leader() -> None:
    log = FaultLog(bound=60.0, waits=[10.0, 11.0], data_waits=[1.0, 1.0], moved=[2, 2], leader_kills=[True, False])
    assert log.row("Java").details["group_leader_hit"] == "1 of 2"
    kconnect = FaultLog(bound=60.0, waits=[10.0], data_waits=[1.0], moved=[2]).row("kconnect")
    assert kconnect.details["group_leader_hit"] == "n/a"


def test_a_sink_group_is_settled_with_one_consumer_per_task_each_holding_partitions() -> None:
    settled = [(f"connector-consumer-s-{task}", 2) for task in range(3)]
    assert task_consumers_settled("s", settled)
    assert not task_consumers_settled("s", settled[:2])  # a task's consumer still joining
    assert not task_consumers_settled("s", [*settled[:2], ("connector-consumer-s-2", 0)])  # joined, nothing yet
    # a dead instance's consumer, still a member until its session expires, beside its successor
    assert not task_consumers_settled("s", [*settled, ("connector-consumer-s-2", 0)])
