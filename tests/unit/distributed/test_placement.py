"""The placement function: balanced ±1 per worker, minimal movement, deterministic, spread over slots."""

from __future__ import annotations

import random
from collections import Counter

from connect.runtime.domain.states import ConnectorTaskId
from workers.distributed.placement import (
    connector_unit,
    is_balanced,
    is_connector,
    place,
    worker_loads,
)

SLOTS = 64


def owners_round_robin(workers: list[str], slots: int = SLOTS) -> dict[int, str]:
    return {s: workers[s % len(workers)] for s in range(slots)}


def units(connectors: dict[str, int]) -> list[ConnectorTaskId]:
    result = []
    for name, tasks in connectors.items():
        result.append(connector_unit(name))
        result.extend(ConnectorTaskId(name, i) for i in range(tasks))
    return result


def moved(before: dict[ConnectorTaskId, int], after: dict[ConnectorTaskId, int]) -> set[ConnectorTaskId]:
    return {u for u in after if u in before and before[u] != after[u]}


def minimal_moves(wanted: list[ConnectorTaskId], owners: dict[int, str], previous: dict[ConnectorTaskId, int]) -> int:
    """Computed independently: units in unowned slots, plus each worker's excess over its best share."""
    total = 0
    workers = sorted(set(owners.values()))
    for kind in (True, False):
        of_kind = [u for u in wanted if is_connector(u) == kind and u in previous]
        total += sum(1 for u in of_kind if previous[u] not in owners)
        counts = sorted((sum(1 for u in of_kind if owners.get(previous[u]) == w) for w in workers), reverse=True)
        base, extra = divmod(len([u for u in wanted if is_connector(u) == kind]), len(workers))
        total += sum(max(0, count - (base + 1 if i < extra else base)) for i, count in enumerate(counts))
    return total


def test_two_connectors_of_six_tasks_spread_evenly_over_three_workers() -> None:
    owners = owners_round_robin(["w1", "w2", "w3"])
    placement = place(units({"a": 6, "b": 6}), owners, {})

    assert worker_loads(placement, owners, connectors=False) == {"w1": 4, "w2": 4, "w3": 4}
    assert sorted(worker_loads(placement, owners, connectors=True).values()) == [0, 1, 1]
    assert is_balanced(placement, owners)


def test_a_workers_units_use_different_slots() -> None:
    owners = owners_round_robin(["w1", "w2"])
    placement = place(units({"a": 10}), owners, {})

    tasks = [slot for unit, slot in placement.items() if not is_connector(unit)]
    assert len(set(tasks)) == len(tasks)


def test_a_balanced_placement_is_returned_unchanged() -> None:
    owners = owners_round_robin(["w1", "w2", "w3"])
    wanted = units({"a": 7, "b": 3})
    first = place(wanted, owners, {})

    assert place(wanted, owners, first) == first


def test_a_worker_leaving_moves_only_what_the_survivors_need() -> None:
    owners = owners_round_robin(["w1", "w2", "w3"])
    wanted = units({"a": 6, "b": 6})
    before = place(wanted, owners, {})
    # w3's slots go to the survivors as cooperative-sticky would hand them out: alternately.
    survivors = dict(owners)
    for i, slot in enumerate(s for s, w in sorted(owners.items()) if w == "w3"):
        survivors[slot] = "w1" if i % 2 == 0 else "w2"

    after = place(wanted, survivors, before)

    assert is_balanced(after, survivors)
    assert len(moved(before, after)) == minimal_moves(wanted, survivors, before)


def test_a_joining_worker_takes_only_its_share() -> None:
    owners = owners_round_robin(["w1", "w2"])
    wanted = units({"a": 6, "b": 6})
    before = place(wanted, owners, {})
    joined = {s: ("w3" if s % 3 == 0 else w) for s, w in owners.items()}

    after = place(wanted, joined, before)

    assert worker_loads(after, joined, connectors=False) == {"w1": 4, "w2": 4, "w3": 4}
    assert len(moved(before, after)) == minimal_moves(wanted, joined, before)


def test_new_tasks_go_to_the_least_loaded_workers_without_moving_others() -> None:
    owners = owners_round_robin(["w1", "w2", "w3"])
    before = place(units({"a": 4}), owners, {})
    after = place(units({"a": 4, "b": 2}), owners, before)

    assert moved(before, after) == set()
    assert is_balanced(after, owners)


def test_removed_units_disappear_from_the_placement() -> None:
    owners = owners_round_robin(["w1", "w2"])
    before = place(units({"a": 3, "b": 3}), owners, {})

    after = place(units({"a": 3}), owners, before)

    assert {u.connector for u in after} == {"a"}


def test_the_result_does_not_depend_on_input_order() -> None:
    rng = random.Random(7)
    workers = ["w1", "w2", "w3", "w4"]
    owners = {s: rng.choice(workers) for s in range(SLOTS)}
    wanted = units({"a": 9, "b": 5, "c": 1})
    previous = {u: rng.randrange(SLOTS) for u in wanted if rng.random() < 0.6}
    expected = place(wanted, owners, previous)

    for _ in range(5):
        shuffled_units = list(wanted)
        rng.shuffle(shuffled_units)
        shuffled_owners = dict(rng.sample(sorted(owners.items()), len(owners)))
        shuffled_previous = dict(rng.sample(sorted(previous.items()), len(previous)))
        assert place(shuffled_units, shuffled_owners, shuffled_previous) == expected


def test_without_owners_units_keep_their_previous_slot() -> None:
    task = ConnectorTaskId("a", 0)
    assert place([task, ConnectorTaskId("a", 1)], {}, {task: 5}) == {task: 5}


def test_random_scenarios_are_balanced_minimal_and_stable() -> None:
    rng = random.Random(2024)
    for _ in range(300):
        workers = [f"w{i}" for i in range(rng.randint(1, 6))]
        slots = rng.choice([1, 4, 16, 64])
        owners = {s: rng.choice(workers) for s in range(slots)}
        wanted = units({f"c{i}": rng.randint(0, 12) for i in range(rng.randint(1, 5))})
        previous = {u: rng.randrange(slots + 4) for u in wanted if rng.random() < 0.7}

        after = place(wanted, owners, previous)

        assert set(after) == set(wanted)
        live = {w for w in owners.values()}
        for connectors in (True, False):
            loads = Counter({w: 0 for w in live}) + Counter(worker_loads(after, owners, connectors=connectors))
            counts = [loads[w] for w in live]
            assert max(counts) - min(counts) <= 1
        assert all(slot in owners for slot in after.values())
        assert len(moved(previous, after)) == minimal_moves(wanted, owners, previous)
        assert place(wanted, owners, after) == after
