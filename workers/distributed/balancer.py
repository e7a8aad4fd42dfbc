"""When the balancer (the owner of slot 0) publishes a new placement, and which.

- New units (a connector created, its task configs committed) are placed at once: nothing runs
  until it is placed. Units that are already placed keep their slot in that case, unless ownership
  has been quiet for the balance delay.
- Removed units leave the placement at once.
- Moves for balance wait until slot ownership has been unchanged for `task.balance.delay.ms`, so a
  worker joining, leaving or restarting is answered with one move of the excess, not a move per
  cooperative round. Failover never waits for this: a dead worker's slots (and what is placed in
  them) move to the survivors through the group; balancing only evens out the counts afterwards.
- Nothing is published until every slot has a known owner (all claimed), so that `place` never
  mistakes an unclaimed slot for an unowned one.

Pure; the coordinator calls `decide` on its thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workers.distributed.placement import Unit, place


@dataclass(frozen=True)
class Decision:
    placement: dict[Unit, int] | None  # None: publish nothing now
    retry_at: float | None  # monotonic time to decide again, if a balance move is waiting for quiet


def decide(
    units: Sequence[Unit],
    owners: Mapping[int, str],
    slot_count: int,
    current: Mapping[Unit, int],
    *,
    now: float,
    owners_changed_at: float,
    delay: float,
) -> Decision:
    if slot_count <= 0 or len(owners) < slot_count:
        return Decision(None, None)
    proposal = place(units, owners, current)
    if proposal == dict(current):
        return Decision(None, None)
    quiet_since = now - owners_changed_at
    if quiet_since >= delay:
        return Decision(proposal, None)
    retry_at = owners_changed_at + delay
    if set(proposal) == set(current):
        return Decision(None, retry_at)  # only balance moves: wait for quiet
    # Units came or went: place the new ones now, keep the others where they are until quiet.
    kept = {
        unit: current[unit] if unit in current and current[unit] in owners else slot for unit, slot in proposal.items()
    }
    return Decision(kept if kept != dict(current) else None, retry_at)
