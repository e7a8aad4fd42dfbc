"""`Coordinator`: the distributed herder's own thread, which makes this worker run what its slots hold.

Inputs arrive as events from other threads and are handled here one step at a time (`_step`), each by a
part of its own:
- slots assigned, revoked or lost (membership thread), and newer claims of slots this worker holds:
  `SlotClaims` (`slot_claims.py`), then reconcile;
- a config-log change or a new placement (log reader threads): reconcile;
- a connector asking for new task configs (connector threads): regenerate and commit them if changed
  (`task_configs.py`);
- restart requests (config log records): `RestartRequests` (`restart_requests.py`) restarts what runs here;
- when the next step is due: `Wakeups` (`wakeups.py`).

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

The owner of slot 0 is also the balancer (`PlacementPublisher`, `placement_publisher.py`, over the pure
`balancer.py`): it publishes placements into the slots log, stamped with the config-log offset they were
decided at, each after deleting the statuses nothing in the config log backs any more (`status_sweep.py`).
The owner of a deleted connector does not delete its statuses itself: that could race with a new
incarnation of the same name.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Mapping

from connect.api.errors import ConnectError
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import ChangeKind, ClusterConfigState, ConfigChange
from workers.distributed.coordinator_settings import Identity, Timing
from workers.distributed.local_work import LocalWork
from workers.distributed.placement import Unit, connector_unit, is_connector
from workers.distributed.placement_publisher import PlacementPublisher
from workers.distributed.ports import ConfigLogPort, SlotLogPort, StatusPort
from workers.distributed.restart_requests import RestartRequests
from workers.distributed.slot_claims import SlotClaims
from workers.distributed.slot_log import Placement
from workers.distributed.task_configs import Fencer, TaskConfigs
from workers.distributed.wakeups import Wakeups
from workers.distributed.wanted import Wanted, fingerprint, removal_offset, startable, wanted_here

log = logging.getLogger(__name__)

IDLE_WAKE_S = 1.0
ERROR_BACKOFF_S = 1.0
WORKER_RECORD_PREFIX = "kconnect-worker-"


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
        self._work = work
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._generations = work.generations
        self._wakeups = Wakeups()
        self._claims = SlotClaims(identity, timing, config_log, slot_log, work, self._wakeups)
        self._restarts = RestartRequests(config_log, status, work)
        self._publisher = PlacementPublisher(timing, config_log, slot_log, status, self._wakeups)
        self._task_configs = TaskConfigs(config_log, work, registry, timing.write_timeout, fence)
        # Coordinator thread only.
        self._dirty = True
        self._applied_reported = -1  # the offset of the latest placement this worker said it applied
        self._handoff_since: dict[Unit, float] = {}
        self.reconciled = threading.Event()

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        self._restarts.start(self._config.snapshot())
        self._config.add_listener(self.config_changed)
        self._slots.add_listener(self.slots_changed)
        self._thread = threading.Thread(target=self._run, name="herder-coordinator", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stopping.set()
        self._wakeups.now()
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
        if run is None or not self._claims.holds(run.slot):
            raise ConnectError(f"Task {task} is no longer assigned to this worker")
        if run.fingerprint != fingerprint(self._config.snapshot(), task):
            raise ConnectError(f"The configs of task {task} changed since it was started here")

    def claimed_slots(self) -> dict[int, int]:
        return self._claims.epochs()

    # -- events (other threads) ------------------------------------------------------------------

    def slots_assigned(self, slots: frozenset[int]) -> None:
        self._claims.assigned(slots)
        self._wakeups.now()

    def slots_revoked(self, slots: frozenset[int]) -> None:
        self._claims.release(slots, "revoked")

    def slots_lost(self, slots: frozenset[int]) -> None:
        self._claims.release(slots, "lost")

    def config_changed(self, change: ConfigChange) -> None:
        if change.kind in (ChangeKind.RESTART_REQUEST, ChangeKind.TASK_RESTART_REQUEST):
            self._restarts.posted()
        elif change.kind is ChangeKind.EXTENSION:
            return  # worker registrations and other kconnect records change nothing here
        self._dirty = True
        self._wakeups.now()

    def slots_changed(self) -> None:
        self._dirty = True
        self._wakeups.now()

    def request_reconfiguration(self, name: str) -> None:
        """A connector asked for its task configs to be regenerated (any thread)."""
        self._task_configs.request(name)
        self._wakeups.now()

    # -- the coordinator thread ------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wakeups.wait(IDLE_WAKE_S)
            if self._stopping.is_set():
                return
            try:
                self._step()
            except Exception:
                log.exception("Herder step failed; retrying in %.1f s", ERROR_BACKOFF_S)
                self._dirty = True
                self._wakeups.at(time.monotonic() + ERROR_BACKOFF_S)

    def _step(self) -> None:
        if self._claims.claim_assigned():
            self._dirty = True
        self._claims.drop_superseded()
        if self._restarts.run_posted():
            self._dirty = True
        overdue = time.monotonic() - self._timing.handoff_timeout
        if self._dirty or any(since <= overdue for since in self._handoff_since.values()):
            self._dirty = False
            self._reconcile()
        retry_at = self._task_configs.run_due()
        if retry_at is not None:
            self._wakeups.at(retry_at)
        self._balance()

    def _balance(self) -> None:
        epoch = self._claims.epoch_of(0)
        if epoch is not None and self._publisher.run(epoch):
            self._dirty = True
            self._wakeups.now()

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
            wanted = wanted_here(snapshot, placement.slots, self._claims.held())
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
                self._wakeups.at(time.monotonic() + (ERROR_BACKOFF_S if bump_failed else 0.0))
                ready = []
            # ... and newer than the unit's last removal, so that its statuses tell it from the old incarnation.
            behind = [u for u in ready if self.generation <= removal_offset(snapshot, u)]
            if behind:
                self._dirty = True
                self._wakeups.at(time.monotonic())
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
                self._claims.count(),
            )
        self.reconciled.set()

    def _needs_start(self) -> bool:
        snapshot = self._config.snapshot()
        placement = self._slots.placement()
        with self._work.lock:
            wanted = wanted_here(snapshot, placement.slots, self._claims.held())
            return any(self._work.get(unit) is None and startable(snapshot, placement, unit) for unit in wanted)

    def _bump_generation(self) -> None:
        key = WORKER_RECORD_PREFIX + self.identity.worker_id
        record = {"url": self.identity.url, "ts": int(time.time() * 1000)}
        self._generations.advance(self._config.put_extension(key, record, timeout=self._timing.write_timeout))
        # Another worker may have claimed one of our slots and registered while this record was being
        # written: its generation is then lower than ours, so what we start there would win over it in the
        # status topic. Every such claim was written before our record landed: read them, drop those slots.
        self._slots.read_to_end(self._timing.sync_timeout)
        self._claims.drop_superseded()

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
            self._wakeups.at(min(self._handoff_since.values()) + self._timing.handoff_timeout)
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
            self._wakeups.at(time.monotonic() + ERROR_BACKOFF_S)
            return
        self._applied_reported = placement.offset

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
