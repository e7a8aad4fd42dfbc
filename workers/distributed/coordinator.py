"""`Coordinator`: the distributed herder's own thread, which makes this worker run what its slots hold.

Inputs arrive as events from other threads and are handled here one step at a time:
- slots assigned (membership thread): claim them (the claim's offset is this worker's epoch for the
  slot), read the config and slots logs to their end (never start from stale config), reconcile;
- slots revoked or lost (membership thread): handled synchronously by `slots_revoked`/`slots_lost`,
  which stop what those slots hold before the callback returns, so the slot moves only once its work
  has stopped (revoked) or at once (lost: the group already gave it away);
- a config-log change or a new placement (log reader threads): reconcile;
- a connector asking for new task configs (connector threads): regenerate and commit them if changed
  (`task_configs.py`);
- restart requests (config log records): restart what runs here;
- a newer claim of a slot this worker thinks it owns: it is a zombie for that slot; stop its work (and
  claim it again if the group still gives it to this worker a session timeout later: the newer claim
  was then a late write of a worker that had lost the slot again at once).

Reconcile compares what runs here (`LocalWork`) with what the placement puts in the claimed slots
(`wanted.py`): stop what left or changed (or was started before its connector was deleted: an old
incarnation), start what is new, but only from a placement decided after the unit's last removal. A
worker that applied a placement (stopped what left its slots) says so in the slots log, and work starts
only once every other slot owner applied the current placement (or after the graceful stop timeout + 2 s,
for a worker that hangs): a balance move never runs a task twice, even while the former owner is still
starting the unit and has reported nothing. Before
starting anything the worker writes its registration record to the config log; that record's offset is
its new **generation**: it stamps statuses (a late status from a former owner never overrides a newer
one) and is the ownership epoch a connector instance writes its task configs with (a zombie instance's
writes are ignored). A unit's statuses carry the generation it was started under (`generations.py`;
the Worker's status listener stamps them, `stamped_status.py`).

The owner of slot 0 is also the balancer (`balancer.py`): it publishes placements into the slots log,
stamped with the config-log offset they were decided at, each after deleting the statuses nothing in the
config log backs any more (`status_sweep.py`). The owner of a deleted connector does not delete its
statuses itself: that could race with a new incarnation of the same name.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from connect.api.errors import ConnectError
from connect.runtime.domain.info import InstanceStatus, RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import ChangeKind, ClusterConfigState, ConfigChange
from workers.distributed.balancer import decide
from workers.distributed.local_work import LocalWork
from workers.distributed.placement import Unit, connector_unit, is_connector
from workers.distributed.ports import ConfigLogPort, SlotLogPort, StatusPort
from workers.distributed.slot_log import Placement
from workers.distributed.status_sweep import StatusSweep
from workers.distributed.task_configs import Fencer, TaskConfigs
from workers.distributed.wanted import (
    Wanted,
    cluster_units,
    exists,
    fingerprint,
    needs_restamp,
    removal_offset,
    startable,
    wanted_here,
)

log = logging.getLogger(__name__)

IDLE_WAKE_S = 1.0
ERROR_BACKOFF_S = 1.0
WORKER_RECORD_PREFIX = "kconnect-worker-"


@dataclass(frozen=True)
class Identity:
    worker_id: str
    url: str


@dataclass(frozen=True)
class Timing:
    sync_timeout: float  # worker.sync.timeout.ms: how long to wait for the logs to be read to their end
    write_timeout: float
    balance_delay: float
    handoff_timeout: float  # how long a moved unit waits for its former worker to stop it
    reclaim_after: float  # session timeout + heartbeat: a superseded slot the group still gives us is ours


class Coordinator:
    def __init__(
        self,
        identity: Identity,
        timing: Timing,
        *,
        config_log: ConfigLogPort,
        slot_log: SlotLogPort,
        status: StatusPort,
        work: LocalWork,
        registry: PluginRegistry,
        fence: Fencer | None = None,
    ) -> None:
        """`fence` is given when this worker runs source tasks exactly once (`task_configs.py`)."""
        self.identity = identity
        self._timing = timing
        self._config = config_log
        self._slots = slot_log
        self._status = status
        self._work = work
        self._registry = registry
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._generations = work.generations
        # Guarded by work.lock: which slots the group gave us, and our claim epoch of each claimed one.
        self._assigned: set[int] = set()
        self._claimed: dict[int, int] = {}
        self._to_claim: set[int] = set()
        self._superseded_at: dict[int, float] = {}
        # Coordinator thread only.
        self._dirty = True
        self._applied_reported = -1  # the offset of the latest placement this worker said it applied
        self._sweep = StatusSweep(status, timing.write_timeout)
        self._handoff_since: dict[Unit, float] = {}
        self._task_configs = TaskConfigs(config_log, work, registry, timing.write_timeout, fence)
        self._restarts_seen: dict[str, int] = {}
        self._task_restarts_seen: dict[ConnectorTaskId, int] = {}
        self._restarts_posted = False
        self._timers: list[float] = []
        self.reconciled = threading.Event()

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        snapshot = self._config.snapshot()
        # Restart requests written before this worker started are history: everything starts fresh.
        self._restarts_seen = {name: record.offset for name, record in snapshot.restart_requests.items()}
        self._task_restarts_seen = dict(snapshot.task_restart_requests)
        self._config.add_listener(self.config_changed)
        self._slots.add_listener(self.slots_changed)
        self._thread = threading.Thread(target=self._run, name="herder-coordinator", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def generation(self) -> int:
        """The offset of this worker's latest registration record (its status generation)."""
        return self._generations.current

    def generation_of(self, connector: str, task: int | None) -> int | None:
        """The generation the connector instance (`task` None) or task runs or last ran under here, if it
        did lately (any thread, lock-free)."""
        return self._generations.epoch_of(
            connector_unit(connector) if task is None else ConnectorTaskId(connector, task)
        )

    def check_ownership(self, task: ConnectorTaskId) -> None:
        """Raise unless `task` still runs here with the configs it was started with (any thread, lock-free:
        an exactly-once task calls this from its own thread before and after it fences its predecessor,
        while a revocation may hold the work lock waiting for that very thread)."""
        run = self._work.peek(task)
        if run is None or run.slot not in self._claimed:
            raise ConnectError(f"Task {task} is no longer assigned to this worker")
        if run.fingerprint != fingerprint(self._config.snapshot(), task):
            raise ConnectError(f"The configs of task {task} changed since it was started here")

    def claimed_slots(self) -> dict[int, int]:
        with self._work.lock:
            return dict(self._claimed)

    # -- events (other threads) ------------------------------------------------------------------

    def slots_assigned(self, slots: frozenset[int]) -> None:
        with self._work.lock:
            self._assigned |= slots
            self._to_claim |= slots
        self._wake.set()

    def slots_revoked(self, slots: frozenset[int]) -> None:
        self._release(slots, "revoked")

    def slots_lost(self, slots: frozenset[int]) -> None:
        self._release(slots, "lost")

    def config_changed(self, change: ConfigChange) -> None:
        if change.kind in (ChangeKind.RESTART_REQUEST, ChangeKind.TASK_RESTART_REQUEST):
            self._restarts_posted = True
        elif change.kind is ChangeKind.EXTENSION:
            return  # worker registrations and other kconnect records change nothing here
        self._dirty = True
        self._wake.set()

    def slots_changed(self) -> None:
        self._dirty = True
        self._wake.set()

    def request_reconfiguration(self, name: str) -> None:
        """A connector asked for its task configs to be regenerated (any thread)."""
        self._task_configs.request(name)
        self._wake.set()

    # -- the coordinator thread ------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            now = time.monotonic()
            due = min(self._timers, default=now + IDLE_WAKE_S)
            self._wake.wait(max(0.0, due - now))
            self._wake.clear()
            if self._stopping.is_set():
                return
            self._timers = [t for t in self._timers if t > time.monotonic()]
            try:
                self._step()
            except Exception:
                log.exception("Herder step failed; retrying in %.1f s", ERROR_BACKOFF_S)
                self._dirty = True
                self._timers.append(time.monotonic() + ERROR_BACKOFF_S)

    def _step(self) -> None:
        self._claim_assigned()
        self._drop_superseded()
        if self._restarts_posted:
            self._restarts_posted = False
            self._restart_requested()
        overdue = time.monotonic() - self._timing.handoff_timeout
        if self._dirty or any(since <= overdue for since in self._handoff_since.values()):
            self._dirty = False
            self._reconcile()
        retry_at = self._task_configs.run_due()
        if retry_at is not None:
            self._timers.append(retry_at)
        self._balance()

    # -- slots -----------------------------------------------------------------------------------

    def _claim_assigned(self) -> None:
        with self._work.lock:
            slots, self._to_claim = set(self._to_claim), set()
        if not slots:
            return
        try:
            epochs = self._slots.claim(slots, self.identity.worker_id, self.identity.url, self._timing.write_timeout)
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
        self._dirty = True

    def _drop_superseded(self) -> None:
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
            self._timers.append(min(self._superseded_at.values()) + self._timing.reclaim_after)
        if superseded:
            log.warning("Slots %s were claimed by another worker since: this worker lost them", sorted(superseded))
            self._release(frozenset(superseded), "superseded", keep_assigned=True)

    def _release(self, slots: Collection[int], why: str, *, keep_assigned: bool = False) -> None:
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

    # -- reconcile -------------------------------------------------------------------------------

    def _reconcile(self) -> None:
        fresh = bump_failed = False
        if self._needs_start():
            try:
                self._bump_generation()
                fresh = True
            except Exception:
                bump_failed = True
                # Without a new generation nothing starts; stopping what must stop goes on regardless.
                log.exception("Could not write this worker's registration record; starting nothing for now")
        snapshot = self._config.snapshot()
        placement = self._slots.placement()
        with self._work.lock:
            wanted = wanted_here(snapshot, placement.slots, set(self._claimed))
            running = self._work.running()
            to_stop = [
                unit
                for unit, run in running.items()
                if (want := wanted.get(unit)) is None
                or want.slot != run.slot
                or want.fingerprint != run.fingerprint
                or run.epoch < removal_offset(snapshot, unit)
            ]
            if to_stop:
                self._work.stop(to_stop)
            self._report_applied(placement)
            self._work.forget_stopped(time.monotonic() - self._timing.handoff_timeout)
            to_start = sorted(
                (u for u in wanted if self._work.get(u) is None and startable(snapshot, placement, u)),
                key=lambda u: (u.task >= 0, u),
            )
            ready = self._ready_after_handoff(to_start, wanted, placement)
            if ready and not fresh:
                # Starts need a generation newer than every status their former owners wrote: write one
                # first (at once if new work just appeared; after a pause if the write failed).
                self._dirty = True
                self._timers.append(time.monotonic() + (ERROR_BACKOFF_S if bump_failed else 0.0))
                ready = []
            # ... and newer than the unit's last removal, so that its statuses tell it from the old incarnation.
            behind = [u for u in ready if self.generation <= removal_offset(snapshot, u)]
            if behind:
                self._dirty = True
                self._timers.append(time.monotonic())
                ready = [u for u in ready if u not in behind]
            for unit in ready:
                self._start(snapshot, unit, wanted[unit].slot)
            for name in sorted(self._work.connector_names()):
                self._apply_target_state(name, snapshot.target_state(name))
        if ready or to_stop:
            log.info(
                "Reconciled: started %d, stopped %d; running %d unit(s) in %d slot(s)",
                len(ready),
                len(to_stop),
                len(self._work.running()),
                len(self._claimed),
            )
        self.reconciled.set()

    def _needs_start(self) -> bool:
        snapshot = self._config.snapshot()
        placement = self._slots.placement()
        with self._work.lock:
            wanted = wanted_here(snapshot, placement.slots, set(self._claimed))
            return any(self._work.get(unit) is None and startable(snapshot, placement, unit) for unit in wanted)

    def _bump_generation(self) -> None:
        key = WORKER_RECORD_PREFIX + self.identity.worker_id
        record = {"url": self.identity.url, "ts": int(time.time() * 1000)}
        self._generations.advance(self._config.put_extension(key, record, timeout=self._timing.write_timeout))

    def _ready_after_handoff(
        self, units: list[Unit], wanted: Mapping[Unit, Wanted], placement: Placement
    ) -> list[Unit]:
        """`units` may start once every other slot owner applied `placement`: each has then stopped what it
        ran outside its own slots in it, whether or not it had reported that instance yet. A worker that
        does not confirm (it hangs stopping a task, or died and its slots are not yet claimed again) is
        waited for up to the hand-off timeout."""
        applied = self._slots.applied()
        laggards = sorted(
            {
                worker
                for worker in self._slots.owners().values()
                if worker != self.identity.worker_id and applied.get(worker, -1) < placement.offset
            }
        )
        now = time.monotonic()
        if not laggards:
            self._handoff_since.clear()
            return units
        ready: list[Unit] = []
        for unit in units:
            since = self._handoff_since.setdefault(unit, now)
            if now - since >= self._timing.handoff_timeout:
                log.warning("%s starts here although %s did not confirm the placement in time", unit, laggards)
                ready.append(unit)
        self._handoff_since = {u: t for u, t in self._handoff_since.items() if u in wanted and u not in ready}
        if self._handoff_since:
            self._timers.append(min(self._handoff_since.values()) + self._timing.handoff_timeout)
        return ready

    def _report_applied(self, placement: Placement) -> None:
        """Tell the other workers this one stopped whatever `placement` moved away from its slots."""
        if placement.offset <= self._applied_reported:
            return
        try:
            self._slots.report_applied(self.identity.worker_id, placement.offset, self._timing.write_timeout)
        except Exception:
            log.exception("Could not report the applied placement; retrying in %.1f s", ERROR_BACKOFF_S)
            self._dirty = True
            self._timers.append(time.monotonic() + ERROR_BACKOFF_S)
            return
        self._applied_reported = placement.offset

    def _status_of(self, unit: Unit) -> InstanceStatus | None:
        if is_connector(unit):
            return self._status.connector_status(unit.connector)
        return self._status.task_status(unit)

    def _start(self, snapshot: ClusterConfigState, unit: Unit, slot: int) -> None:
        name = unit.connector
        config = snapshot.connector_config(name) or {}
        target = snapshot.target_state(name)
        generation = self.generation
        if is_connector(unit):
            self._work.start_connector(
                name, slot, config, target, fingerprint(snapshot, unit), generation, self.request_reconfiguration
            )
            if target is TargetState.STARTED:
                self.request_reconfiguration(name)
            return
        task_config = snapshot.task_config(unit) or {}
        check = functools.partial(self.check_ownership, unit)
        self._work.start_task(unit, slot, config, task_config, target, fingerprint(snapshot, unit), generation, check)

    def _apply_target_state(self, name: str, state: TargetState) -> None:
        previous = self._work.applied_target_state(name)
        if previous is state:
            return
        self._work.apply_target_state(name, state)
        if state is TargetState.STARTED and self._work.get(connector_unit(name)) is not None:
            self.request_reconfiguration(name)

    # -- restarts --------------------------------------------------------------------------------

    def _restart_requested(self) -> None:
        snapshot = self._config.snapshot()
        for name, record in snapshot.restart_requests.items():
            if record.offset > self._restarts_seen.get(name, -1):
                self._restarts_seen[name] = record.offset
                self._restart(record.request)
        for task, offset in snapshot.task_restart_requests.items():
            if offset > self._task_restarts_seen.get(task, -1):
                self._task_restarts_seen[task] = offset
                with self._work.lock:
                    if self._work.get(task) is not None:
                        self._work.report_restarting(task)
                        self._work.stop([task])
                        log.info("Restarting task %s", task)
        self._dirty = True

    def _restart(self, request: RestartRequest) -> None:
        name = request.connector
        with self._work.lock:
            here = [u for u in self._work.running() if u.connector == name]
            chosen: list[Unit] = []
            for unit in here:
                if is_connector(unit) or request.include_tasks:
                    status = self._status_of(unit)
                    if not request.only_failed or (status is not None and status.state is State.FAILED):
                        chosen.append(unit)
            for unit in chosen:
                self._work.report_restarting(unit)
            self._work.stop(chosen)
        if chosen:
            log.info("Restarting %s", ", ".join(str(u) if u.task >= 0 else name for u in chosen))

    # -- balancing -------------------------------------------------------------------------------

    def _balance(self) -> None:
        with self._work.lock:
            epoch = self._claimed.get(0)
        if epoch is None:
            return
        snapshot = self._config.snapshot()
        # Statuses first: a placement published after this may start a new incarnation of what it deletes.
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
            self._timers.append(decision.retry_at)
        slots = decision.placement
        if slots is None and needs_restamp(snapshot, current):
            # Units re-created in place: the same placement, decided anew, so that they may start.
            slots = {unit: slot for unit, slot in current.slots.items() if exists(snapshot, unit)}
        if slots is None:
            return
        self._slots.publish_placement(epoch, slots, self._timing.write_timeout, config_offset=snapshot.offset)
        log.info("Published a placement of %d unit(s)", len(slots))
        self._dirty = True
        self._wake.set()
