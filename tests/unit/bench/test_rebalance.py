"""Rebalance bookkeeping: when a cluster counts as balanced, which tasks a join left alone, throughput per 0.5 s
window, the moves a restart caused (replayed from status records) and the group generations in a broker log."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from bench.scenarios.rebalance import restart_row
from bench.scenarios.rebalance_analysis import (
    Churn,
    Snapshot,
    StatusEvent,
    churn,
    first_running_after,
    is_balanced,
    last_generation,
    moved,
    parse_status,
    rebalance_starts,
    task_counts,
    throughput_ratio,
    unaffected,
    window_index,
    window_totals,
    worker_port,
)
from bench.scenarios.rebalance_session import Restart
from bench.scenarios.rebalance_watch import task_of_key


def expanded(tasks: dict[str, list[int]], state: str = "RUNNING", connector_port: int = 1) -> dict[str, Any]:
    """A `GET /connectors?expand=status` body: connector -> the port each of its tasks runs on."""
    return {
        name: {
            "status": {
                "name": name,
                "connector": {"state": state, "worker_id": f"127.0.0.1:{connector_port}"},
                "tasks": [{"id": i, "state": state, "worker_id": f"127.0.0.1:{p}"} for i, p in enumerate(ports)],
                "type": "source",
            }
        }
        for name, ports in tasks.items()
    }


def snapshot(tasks: dict[str, list[int]], at: float = 0.0, state: str = "RUNNING") -> Snapshot:
    return Snapshot.from_expanded(expanded(tasks, state), at)


def test_worker_ids_are_read_as_their_port() -> None:
    assert worker_port("127.0.0.1:8083") == 8083
    assert worker_port("localhost:9") == 9
    assert worker_port("") == -1


def test_a_snapshot_places_every_task_on_the_port_its_status_names() -> None:
    found = snapshot({"a": [1, 2], "b": [3]})
    assert found.owners() == {("a", 0): 1, ("a", 1): 2, ("b", 0): 3}
    assert task_counts(found, [1, 2, 3, 4]) == {1: 1, 2: 1, 3: 1, 4: 0}


def test_balanced_means_everything_running_and_every_worker_within_one_of_the_even_share() -> None:
    # 7 tasks on 3 workers: 2 or 3 each.
    even = snapshot({"a": [1, 1, 2, 2], "b": [3, 3, 1]})
    assert is_balanced(even, {1, 2, 3}, connectors=2, tasks=7)
    lopsided = snapshot({"a": [1, 1, 1, 1], "b": [3, 2, 2]})
    assert not is_balanced(lopsided, {1, 2, 3}, connectors=2, tasks=7)


def test_a_new_worker_without_its_share_leaves_the_cluster_unbalanced_even_if_the_others_are_even() -> None:
    three = snapshot({"a": [1, 2, 3], "b": [1, 2, 3]})
    assert is_balanced(three, {1, 2, 3}, connectors=2, tasks=6)
    assert not is_balanced(three, {1, 2, 3, 4}, connectors=2, tasks=6)


def test_not_balanced_while_a_task_is_not_running_is_missing_or_runs_on_a_worker_that_is_gone() -> None:
    assert not is_balanced(snapshot({"a": [1, 2]}, state="UNASSIGNED"), {1, 2}, connectors=1, tasks=2)
    assert not is_balanced(snapshot({"a": [1]}), {1, 2}, connectors=1, tasks=2)
    assert not is_balanced(snapshot({"a": [1, 9]}), {1, 2}, connectors=1, tasks=2)
    assert not is_balanced(snapshot({"a": [1, 2]}), {1, 2}, connectors=2, tasks=2)


def test_unaffected_tasks_ran_on_the_same_worker_in_every_snapshot() -> None:
    before = snapshot({"a": [1, 2, 3]})
    during = Snapshot.from_expanded(
        {
            "a": {
                "status": {
                    "connector": {"state": "RUNNING", "worker_id": "h:1"},
                    "tasks": [
                        {"id": 0, "state": "RUNNING", "worker_id": "h:1"},
                        {"id": 1, "state": "UNASSIGNED", "worker_id": "h:2"},
                        {"id": 2, "state": "RUNNING", "worker_id": "h:3"},
                    ],
                }
            }
        },
        1.0,
    )
    after = snapshot({"a": [1, 2, 4]}, at=2.0)
    assert unaffected([before, during, after]) == {("a", 0)}
    assert moved(before, after) == {("a", 2)}


def test_windows_are_half_seconds_of_the_wall_clock() -> None:
    assert window_index(10.0) == 20
    assert window_index(10.49) == 20
    assert window_index(10.5) == 21


def test_window_totals_sum_the_chosen_tasks_per_window_with_empty_windows_as_zero() -> None:
    counts = {("a", 0): {10: 5, 11: 5, 13: 2}, ("a", 1): {10: 5, 12: 4}, ("b", 0): {10: 100}}
    assert window_totals(counts, [("a", 0), ("a", 1), ("z", 9)], 10, 13) == [10, 5, 4, 2]


def test_the_throughput_ratio_compares_the_mean_window_and_the_worst_window_with_the_steady_mean() -> None:
    ratio = throughput_ratio(steady=[10, 10, 10, 10], during=[10, 5, 12])
    assert ratio.mean == pytest.approx(0.9)
    assert ratio.worst == pytest.approx(0.5)


def test_a_steady_window_without_records_cannot_give_a_ratio() -> None:
    with pytest.raises(ValueError):
        throughput_ratio(steady=[0, 0], during=[1])
    with pytest.raises(ValueError):
        throughput_ratio(steady=[5], during=[])


def test_status_records_of_tasks_are_read_and_others_skipped() -> None:
    value = orjson.dumps({"state": "RUNNING", "trace": None, "worker_id": "127.0.0.1:8083", "generation": 7})
    assert parse_status(b"status-task-my-conn-3", value, 42) == StatusEvent(42, ("my-conn", 3), "RUNNING", 8083)
    assert parse_status(b"status-connector-my-conn", value, 42) is None
    assert parse_status(b"status-task-my-conn-3", None, 42) is None  # a tombstone
    assert parse_status(b"status-task-my-conn-3", b"not json", 42) is None


def event(task: int, state: str, port: int, at: int = 0) -> StatusEvent:
    return StatusEvent(at, ("c", task), state, port)


def test_a_restart_that_hands_its_tasks_over_and_takes_them_back_touches_no_other_task() -> None:
    owners = {("c", 0): 1, ("c", 1): 2, ("c", 2): 3}
    events = [event(0, "UNASSIGNED", 1), event(0, "RUNNING", 2), event(0, "UNASSIGNED", 2), event(0, "RUNNING", 1)]
    found = churn(events, owners, restarted=1)
    assert found.moves == 2
    assert found.touched_elsewhere == {("c", 0)}
    assert found.collateral == frozenset()


def test_tasks_of_other_workers_moved_by_a_restart_are_collateral_even_without_their_stop_record() -> None:
    owners = {("c", 0): 1, ("c", 1): 2, ("c", 2): 3}
    # Task 1 moves from worker 2 to the restarted worker 1; the status store skipped worker 2's UNASSIGNED.
    found = churn([event(1, "RUNNING", 1)], owners, restarted=1)
    assert found.moves == 1
    assert found.collateral == {("c", 1)}


def test_a_task_stopped_and_started_again_on_its_own_worker_is_a_restart_in_place() -> None:
    owners = {("c", 0): 2}
    found = churn([event(0, "UNASSIGNED", 2), event(0, "RUNNING", 2)], owners, restarted=1)
    assert (found.moves, found.restarts_in_place) == (0, 1)
    assert found.collateral == {("c", 0)}


def test_the_restarted_workers_own_tasks_coming_back_to_it_are_neither_moves_nor_collateral() -> None:
    owners = {("c", 0): 1, ("c", 1): 2}
    found = churn([event(0, "UNASSIGNED", 1), event(0, "RUNNING", 1)], owners, restarted=1)
    assert (found.moves, found.restarts_in_place, found.touched_elsewhere) == (0, 0, frozenset())


def test_downtime_ends_with_the_first_running_record_after_the_signal() -> None:
    events = [event(0, "RUNNING", 1, at=50), event(0, "UNASSIGNED", 1, at=120), event(0, "RUNNING", 2, at=900)]
    assert first_running_after(events, {("c", 0), ("c", 1)}, since_ms=100) == {("c", 0): 900}


BROKER_LOG = """\
[2026-11-22 00:46:26,398] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=3] Preparing to rebalance \
group bench-a in state PreparingRebalance with old generation 1 (reason: Adding new member x). (org.apache.kafka.Foo)
[2026-11-22 00:46:28,287] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=3] Stabilized group bench-a \
generation 2 with 3 members. (org.apache.kafka.coordinator.group.GroupMetadataManager)
[2026-11-22 00:46:29,000] INFO [GroupCoordinator id=1] Stabilized group bench-ab generation 9 with 1 members. (x)
"""


def test_the_broker_log_gives_each_groups_generation_and_when_its_rebalances_began() -> None:
    assert last_generation(BROKER_LOG, "bench-a") == 2
    assert last_generation(BROKER_LOG, "bench-ab") == 9
    assert last_generation(BROKER_LOG, "other") == 0
    [started] = rebalance_starts(BROKER_LOG, "bench-a")
    assert started % 60 == pytest.approx(26.398)
    assert rebalance_starts(BROKER_LOG, "bench-ab") == []


def test_both_systems_source_keys_name_the_task() -> None:
    assert task_of_key(b"3-17") == 3  # kconnect's datagen
    assert task_of_key(b"3") == 3  # Java's VerifiableSource
    assert task_of_key(None) is None
    assert task_of_key(b"key") is None


def test_a_restart_row_bounds_the_downtime_of_tasks_that_never_came_back() -> None:
    quiet = Churn(moves=0, restarts_in_place=0, touched_elsewhere=frozenset(), collateral=frozenset())
    handed = Churn(moves=2, restarts_in_place=0, touched_elsewhere=frozenset({("c", 0)}), collateral=frozenset())
    restarts = [
        Restart(420.0, None, 2, quiet, rounds=1, placements=0, down_s=[300.0, None], leader=False),
        Restart(420.0, 12.0, 2, handed, rounds=3, placements=0, down_s=[1.5, 2.5], leader=False),
    ]
    row = restart_row("Java", restarts)
    assert row.metrics["settle_s"].samples == (420.0, 12.0)
    assert row.metrics["settle_s"].at_least
    assert row.metrics["its_tasks_down_s"].samples == (420.0, 2.5)
    assert row.metrics["task_moves"].samples == (0, 2)
    assert row.details["its_tasks_not_back_in_time"] == 1
    assert row.details["its_tasks_started_elsewhere"] == 0.5
