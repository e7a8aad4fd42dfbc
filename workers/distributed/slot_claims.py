"""`SlotClaims`: which slots the group gave this worker and which it claimed, with each claim's epoch.

A slot the group assigns is claimed in the slots log; the claim's offset is this worker's epoch for the
slot, and the config and slots logs are read to their end before anything of it starts (never from stale
config). A slot revoked or lost stops what it holds before the membership callback returns, so it moves
only once its work has stopped (revoked) or at once (lost: the group already gave it away). A newer
claim of a slot this worker holds makes it a zombie for that slot: its work stops, and the slot is
claimed again if the group still gives it to this worker a session timeout later (the newer claim was
then a late write of a worker that had lost the slot again at once).

Locking: the sets live under the work lock (`LocalWork.lock`), which the membership thread's callbacks
and the coordinator thread share; `holds` is lock-free for ownership checks from task threads.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection

from workers.distributed.coordinator_settings import Identity, Timing
from workers.distributed.local_work import LocalWork
from workers.distributed.ports import ConfigLogPort, SlotLogPort
from workers.distributed.wakeups import Wakeups

log = logging.getLogger(__name__)


class SlotClaims:
    def __init__(
        self,
        identity: Identity,
        timing: Timing,
        config_log: ConfigLogPort,
        slot_log: SlotLogPort,
        work: LocalWork,
        wakeups: Wakeups,
    ) -> None:
        self._identity = identity
        self._timing = timing
        self._config = config_log
        self._slots = slot_log
        self._work = work
        self._wakeups = wakeups
        self._assigned: set[int] = set()
        self._claimed: dict[int, int] = {}
        self._to_claim: set[int] = set()
        self._superseded_at: dict[int, float] = {}

    # -- reads -----------------------------------------------------------------------------------

    def epochs(self) -> dict[int, int]:
        """Each claimed slot's epoch (a copy; any thread)."""
        with self._work.lock:
            return dict(self._claimed)

    def held(self) -> set[int]:
        """The claimed slots (the caller holds the work lock)."""
        return set(self._claimed)

    def holds(self, slot: int) -> bool:
        """Whether `slot` is claimed now (any thread, lock-free)."""
        return slot in self._claimed

    def count(self) -> int:
        """How many slots are claimed now (any thread, lock-free)."""
        return len(self._claimed)

    def epoch_of(self, slot: int) -> int | None:
        with self._work.lock:
            return self._claimed.get(slot)

    # -- the group's decisions (membership thread) -------------------------------------------------

    def assigned(self, slots: frozenset[int]) -> None:
        """Slots to claim at the coordinator's next step."""
        with self._work.lock:
            self._assigned |= slots
            self._to_claim |= slots

    def release(self, slots: Collection[int], why: str, *, keep_assigned: bool = False) -> None:
        """Stop what `slots` hold, before returning; `keep_assigned`: the group still gives them to us."""
        started = time.monotonic()
        with self._work.lock:
            waited = time.monotonic() - started
            if waited > 0.5:
                log.info("Waited %.2f s for the herder to finish its step before releasing slots", waited)
            if not keep_assigned:
                self._assigned -= set(slots)
            self._to_claim -= set(slots)
            for slot in slots:
                self._claimed.pop(slot, None)
            units = self._work.units_in(slots)
            self._work.stop(units)
        if units:
            log.info("Stopped %d unit(s) of %s slots in %.2f s", len(units), why, time.monotonic() - started)

    # -- the coordinator thread --------------------------------------------------------------------

    def claim_assigned(self) -> bool:
        """Claim the slots assigned since the last step, then read the logs to their end; True if any."""
        with self._work.lock:
            slots, self._to_claim = set(self._to_claim), set()
        if not slots:
            return False
        identity = self._identity
        try:
            epochs = self._slots.claim(
                slots, identity.worker_id, identity.url, self._timing.write_timeout, liveness=identity.liveness
            )
            # The catch-up barrier: whatever was written before we owned these slots is applied first.
            self._config.read_to_end(self._timing.sync_timeout)
            self._slots.read_to_end(self._timing.sync_timeout)
        except Exception:
            with self._work.lock:
                self._to_claim |= slots & self._assigned
            raise
        with self._work.lock:
            for slot, epoch in epochs.items():
                if slot in self._assigned:
                    self._claimed[slot] = epoch
        log.info("Claimed %d slot(s); this worker owns %d", len(epochs), len(self._claimed))
        return True

    def drop_superseded(self) -> None:
        """Release the slots another worker claimed since (their work stops); reclaim later if still ours."""
        claims = self._slots.claims()
        now = time.monotonic()
        with self._work.lock:
            superseded = {
                slot
                for slot, epoch in self._claimed.items()
                if (claim := claims.get(slot)) is not None and claim.epoch > epoch
            }
            # A newer claim may also be a late write of a worker that lost the slot again at once. If the
            # group has not taken the slot from us a session timeout later, it is ours: claim it anew.
            self._superseded_at = {s: t for s, t in self._superseded_at.items() if s in self._assigned}
            for slot, since in list(self._superseded_at.items()):
                if now - since >= self._timing.reclaim_after:
                    del self._superseded_at[slot]
                    self._to_claim.add(slot)
                    log.info("Slot %d is still assigned to this worker: claiming it again", slot)
            for slot in superseded:
                self._superseded_at[slot] = now
        if self._superseded_at:
            self._wakeups.at(min(self._superseded_at.values()) + self._timing.reclaim_after)
        if superseded:
            log.warning("Slots %s were claimed by another worker since: this worker lost them", sorted(superseded))
            self.release(frozenset(superseded), "superseded", keep_assigned=True)
