"""`PlacementPublisher`: the balancer's duty of the owner of slot 0, one step at a time.

Each step first deletes the statuses nothing in the config log backs any more (`status_sweep.py`: a
placement published after this may start a new incarnation of what it deletes), then asks `balancer.decide`
whether to publish a placement, and publishes it stamped with the config-log offset it was decided at and
fenced by slot 0's claim epoch. Units re-created in place get the same placement decided anew, so that
they may start. Coordinator thread.
"""

from __future__ import annotations

import logging
import time

from workers.distributed.balancer import decide
from workers.distributed.coordinator_settings import Timing
from workers.distributed.ports import ConfigLogPort, SlotLogPort, StatusPort
from workers.distributed.status_sweep import StatusSweep
from workers.distributed.wakeups import Wakeups
from workers.distributed.wanted import cluster_units, exists, needs_restamp

log = logging.getLogger(__name__)


class PlacementPublisher:
    def __init__(
        self, timing: Timing, config_log: ConfigLogPort, slot_log: SlotLogPort, status: StatusPort, wakeups: Wakeups
    ) -> None:
        self._timing = timing
        self._config = config_log
        self._slots = slot_log
        self._sweep = StatusSweep(status, timing.write_timeout)
        self._wakeups = wakeups

    def run(self, epoch: int) -> bool:
        """One balancing step as the owner of slot 0 under claim `epoch`; True if it published a placement."""
        snapshot = self._config.snapshot()
        self._sweep.run(snapshot, tenure=epoch)
        current = self._slots.placement()
        decision = decide(
            cluster_units(snapshot),
            self._slots.owners(),
            self._slots.slot_count,
            current.slots,
            now=time.monotonic(),
            owners_changed_at=self._slots.claims_changed_at(),
            delay=self._timing.balance_delay,
        )
        if decision.retry_at is not None:
            self._wakeups.at(decision.retry_at)
        slots = decision.placement
        if slots is None and needs_restamp(snapshot, current):
            slots = {unit: slot for unit, slot in current.slots.items() if exists(snapshot, unit)}
        if slots is None:
            return False
        self._slots.publish_placement(epoch, slots, self._timing.write_timeout, config_offset=snapshot.offset)
        log.info("Published a placement of %d unit(s)", len(slots))
        return True
