"""Placement: which slot each connector instance and task lives in, chosen so that workers carry equal loads.

A worker runs what is placed in the slots it owns (`membership.py`), so balancing work means choosing
slots. `place` is a pure function of the units to run, the current slot owners and the previous
placement; the balancer (the owner of slot 0, `balancer.py`) calls it and publishes the result. It is
unit-tested without Kafka.

Guarantees, for connector instances and tasks separately (Kafka's assignor balances them apart too):
- balanced: every worker that owns a slot ends with ⌊n/w⌋ or ⌈n/w⌉ units of the kind;
- minimal movement: a unit keeps its slot unless its slot has no known owner or its worker carries more
  than its share; only the excess moves. The workers that keep a larger share are the ones that already
  have the most, so a balanced placement is returned unchanged;
- deterministic: the same inputs give the same output (ties break on worker ids, slot numbers and unit
  order), whatever the iteration order of the inputs;
- spread: a unit that must move goes to the least-loaded worker (below its share), into that worker's
  slot with the fewest units (ties broken by a stable hash of unit and slot, not by slot number), so
  that when a worker dies, or a joining worker takes a block of its slots, its units scatter along with
  the slots instead of landing together.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping

from connect.runtime.domain.states import ConnectorTaskId

CONNECTOR_TASK = -1
"""The task number of a connector's own instance, as in Kafka Connect's assignments."""

Unit = ConnectorTaskId


def connector_unit(name: str) -> Unit:
    return ConnectorTaskId(name, CONNECTOR_TASK)


def is_connector(unit: Unit) -> bool:
    return unit.task == CONNECTOR_TASK


def place(units: Iterable[Unit], owners: Mapping[int, str], previous: Mapping[Unit, int]) -> dict[Unit, int]:
    """A slot for every unit in `units`, given `owners` (slot → worker id) and the `previous` placement.

    With no owners at all nothing can be placed: units keep their previous slot, if they had one.
    """
    wanted = sorted(set(units))
    if not owners:
        return {unit: previous[unit] for unit in wanted if unit in previous}
    result: dict[Unit, int] = {}
    for kind in (True, False):
        result.update(_place_kind([u for u in wanted if is_connector(u) == kind], owners, previous))
    return result


def _place_kind(units: list[Unit], owners: Mapping[int, str], previous: Mapping[Unit, int]) -> dict[Unit, int]:
    workers = sorted(set(owners.values()))
    slots_of: dict[str, list[int]] = defaultdict(list)
    for slot in sorted(owners):
        slots_of[owners[slot]].append(slot)

    kept: dict[str, list[Unit]] = {w: [] for w in workers}
    unplaced: list[Unit] = []
    for unit in units:
        kept_slot = previous.get(unit)
        if kept_slot is not None and kept_slot in owners:
            kept[owners[kept_slot]].append(unit)
        else:
            unplaced.append(unit)

    quota = _quotas(len(units), {w: len(kept[w]) for w in workers})
    placement: dict[Unit, int] = {}
    per_slot: dict[int, int] = defaultdict(int)
    room: dict[str, int] = {}
    for worker in workers:
        staying, moving = _trim(kept[worker], quota[worker], previous)
        unplaced.extend(moving)
        room[worker] = quota[worker] - len(staying)
        for unit in staying:
            placement[unit] = previous[unit]
            per_slot[previous[unit]] += 1

    for unit in sorted(unplaced):
        worker = min((w for w in workers if room[w] > 0), key=lambda w: (-room[w], w))
        slot = min(slots_of[worker], key=lambda s: (per_slot[s], _scatter(unit, s)))
        placement[unit] = slot
        per_slot[slot] += 1
        room[worker] -= 1
    return placement


def _scatter(unit: Unit, slot: int) -> bytes:
    # A stable pseudo-random order of a worker's slots per unit: consecutive units do not pile into
    # its lowest slots, which a joining worker may take as one block.
    return hashlib.blake2b(f"{unit.connector}\0{unit.task}\0{slot}".encode(), digest_size=8).digest()


def _quotas(total: int, counts: Mapping[str, int]) -> dict[str, int]:
    """⌊total/w⌋ each, plus one for the `total % w` workers that already carry the most (ties: worker id)."""
    workers = sorted(counts)
    base, extra = divmod(total, len(workers))
    larger = set(sorted(workers, key=lambda w: (-counts[w], w))[:extra])
    return {w: base + (1 if w in larger else 0) for w in workers}


def _trim(units: list[Unit], share: int, previous: Mapping[Unit, int]) -> tuple[list[Unit], list[Unit]]:
    """Split a worker's units into those that stay and the excess over `share`.

    The excess leaves from the fullest slots first (last units first), keeping the rest spread out.
    """
    if len(units) <= share:
        return units, []
    by_slot: dict[int, list[Unit]] = defaultdict(list)
    for unit in sorted(units):
        by_slot[previous[unit]].append(unit)
    moving: list[Unit] = []
    for _ in range(len(units) - share):
        fullest = max(by_slot, key=lambda s: (len(by_slot[s]), -s))
        moving.append(by_slot[fullest].pop())
    staying = sorted(u for group in by_slot.values() for u in group)
    return staying, moving


def worker_loads(placement: Mapping[Unit, int], owners: Mapping[int, str], *, connectors: bool) -> dict[str, int]:
    """How many units of one kind each worker that owns a slot carries under `placement`."""
    loads = dict.fromkeys(set(owners.values()), 0)
    for unit, slot in placement.items():
        if is_connector(unit) == connectors and slot in owners:
            loads[owners[slot]] += 1
    return loads


def is_balanced(placement: Mapping[Unit, int], owners: Mapping[int, str]) -> bool:
    """Every unit sits in an owned slot and each kind's per-worker counts differ by at most one."""
    if any(slot not in owners for slot in placement.values()):
        return False
    for connectors in (True, False):
        loads = worker_loads(placement, owners, connectors=connectors).values()
        if loads and max(loads) - min(loads) > 1:
            return False
    return True
