"""What should run where: the units of the config log, and those placed in the slots this worker owns.

Pure functions over a `ClusterConfigState` snapshot and a placement (unit-tested without Kafka):
- `cluster_units`: every connector instance (whatever its target state: a STOPPED connector's instance
  reports STOPPED) and every task with a committed config; what the balancer places;
- `wanted_here`: the units placed in this worker's slots, each with the fingerprint of what it runs:
  a connector instance restarts when its config changes; a task restarts when a new set of task
  configs is committed for its connector (a new generation), even an identical one, because the
  connector wrote it after its own config changed (Kafka's rule);
- `removal_offset` / `startable`: a unit whose connector was deleted (or task dropped) at config-log
  offset r is a new incarnation afterwards; it starts only from a placement decided after r (so that
  the balancer's status housekeeping of the old incarnation is done first, `status_sweep.py`), and an
  instance started before r is the old incarnation's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from connect.runtime.stores import ClusterConfigState
from workers.distributed.placement import Unit, connector_unit, is_connector
from workers.distributed.slot_log import Placement


@dataclass(frozen=True)
class Wanted:
    slot: int
    fingerprint: object


def cluster_units(snapshot: ClusterConfigState) -> list[Unit]:
    units: list[Unit] = []
    for name in snapshot.connectors():
        units.append(connector_unit(name))
        units.extend(snapshot.tasks(name))
    return units


def exists(snapshot: ClusterConfigState, unit: Unit) -> bool:
    if is_connector(unit):
        return snapshot.contains(unit.connector)
    return snapshot.contains(unit.connector) and snapshot.task_config(unit) is not None


def removal_offset(snapshot: ClusterConfigState, unit: Unit) -> int:
    """Where the unit was last removed from the config log (-1: never)."""
    return snapshot.removal_offset(unit.connector, None if is_connector(unit) else unit.task)


def startable(snapshot: ClusterConfigState, placement: Placement, unit: Unit) -> bool:
    """Whether `placement` was decided after the unit's last removal, so the unit may start from it."""
    removed = removal_offset(snapshot, unit)
    return removed < 0 or placement.config_offset > removed


def needs_restamp(snapshot: ClusterConfigState, placement: Placement) -> bool:
    """Whether a unit that exists is held back by `placement` being older than its removal."""
    return any(exists(snapshot, u) and not startable(snapshot, placement, u) for u in placement.slots)


def fingerprint(snapshot: ClusterConfigState, unit: Unit) -> object:
    if is_connector(unit):
        return frozenset((snapshot.connector_config(unit.connector) or {}).items())
    task_config = snapshot.task_config(unit) or {}
    return (frozenset(task_config.items()), snapshot.task_config_generation(unit.connector))


def wanted_here(
    snapshot: ClusterConfigState, placement: Mapping[Unit, int], slots: Collection[int]
) -> dict[Unit, Wanted]:
    """The units placed in `slots` that exist in `snapshot`."""
    return {
        unit: Wanted(slot, fingerprint(snapshot, unit))
        for unit, slot in placement.items()
        if slot in slots and exists(snapshot, unit)
    }
