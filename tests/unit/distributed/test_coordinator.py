"""The coordinator against fakes of the logs, the status store and the Worker: it runs exactly what the
placement puts in the slots it claimed, restarts what changed, hands moved units over cleanly, drops the
slots another worker claimed since, and (as owner of slot 0) places new work."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from connect.api.errors import ConnectError
from connect.runtime.domain.info import InstanceStatus, RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.domain.status import StatusListener
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores import ClusterConfigState, ConfigChange, ConfigLogState, StatusEntry, StoredStatuses
from connect.runtime.stores import config_records as records
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connectors.datagen.connector import DatagenConnector
from tests.support.waiting import wait_until
from workers.distributed.coordinator import Coordinator
from workers.distributed.coordinator_settings import Identity, Timing
from workers.distributed.generations import Generations
from workers.distributed.local_work import LocalWork
from workers.distributed.placement import Unit, connector_unit
from workers.distributed.slot_log import (
    APPLIED_KEY_PREFIX,
    CLAIM_KEY,
    PLACEMENT_KEY,
    Claim,
    Placement,
    SlotLogState,
    encode_applied,
    encode_claim,
)
from workers.distributed.slot_log import encode_placement as placement_value

ME = "me:1"
OTHER = "other:2"
SLOTS = 4
DATAGEN = {"connector.class": "DatagenConnector", "kafka.topic": "t", "tasks.max": "2", "name": "gen"}


class FakeConfigLog:
    def __init__(self) -> None:
        self._state = ConfigLogState()
        self._offset = 0
        self._listeners: list[Callable[[ConfigChange], None]] = []
        self.task_config_writes: list[tuple[str, int, int]] = []
        self.extension_offsets: list[int] = []

    def add_listener(self, listener: Callable[[ConfigChange], None]) -> None:
        self._listeners.append(listener)

    def snapshot(self) -> ClusterConfigState:
        return self._state.snapshot()

    def read_to_end(self, timeout: float) -> None:
        pass

    def write(self, key: bytes, value: bytes | None) -> int:
        offset = self._offset
        self._offset += 1
        for change in self._state.apply(key, value, offset):
            for listener in self._listeners:
                listener(change)
        return offset

    def put_extension(self, key: str, value: Mapping[str, Any] | None, *, timeout: float = 30.0) -> int:
        self.extension_offsets.append(self._offset)
        return self.write(records.extension_key(key), None if value is None else records.extension_value(value))

    def put_task_configs(
        self, name: str, configs: Sequence[Mapping[str, str]], epoch: int, *, timeout: float = 30.0
    ) -> int:
        self.task_config_writes.append((name, len(configs), epoch))
        for index, config in enumerate(configs):
            self.write(records.task_key(ConnectorTaskId(name, index)), records.properties_value(config, epoch))
        return self.write(records.commit_key(name), records.commit_value(len(configs), epoch))

    def put_task_count_record(self, name: str, count: int, *, timeout: float = 30.0) -> int:
        self.task_config_writes.append((f"tasks-fencing-{name}", count, -1))
        return self.write(records.task_count_key(name), records.task_count_value(count))

    def put_connector(self, name: str, config: Mapping[str, str]) -> None:
        self.write(records.connector_key(name), records.properties_value(config))

    def remove_connector(self, name: str) -> int:
        return self.write(records.connector_key(name), None)


class FakeSlotLog:
    def __init__(self) -> None:
        self.state = SlotLogState()
        self._offsets = dict.fromkeys(range(SLOTS), 0)
        self.on_change: Callable[[], None] = lambda: None
        # Other workers apply each placement at once, unless a test plays one that is slow to stop.
        self.others_apply = True

    def add_listener(self, listener: Callable[[], None]) -> None:
        self.on_change = listener

    @property
    def slot_count(self) -> int:
        return SLOTS

    def read_to_end(self, timeout: float) -> None:
        pass

    def claims(self) -> dict[int, Claim]:
        return dict(self.state.claims)

    def owners(self) -> dict[int, str]:
        return {s: c.worker for s, c in self.state.claims.items()}

    def claims_changed_at(self) -> float:
        return self.state.claims_changed_at

    def placement(self) -> Placement:
        return self.state.placement

    def applied(self) -> dict[str, int]:
        return dict(self.state.applied)

    def report_applied(self, worker: str, placement_offset: int, timeout: float) -> None:
        self.append(0, APPLIED_KEY_PREFIX + worker.encode(), encode_applied(worker, placement_offset))

    def append(self, partition: int, key: bytes, value: bytes) -> int:
        offset = self._offsets[partition]
        self._offsets[partition] += 1
        self.state.apply(key, value, partition, offset)
        self.on_change()
        return offset

    def claim(
        self, slots: Iterable[int], worker: str, url: str, timeout: float, *, liveness: str = ""
    ) -> dict[int, int]:
        return {slot: self.append(slot, CLAIM_KEY, encode_claim(worker, url, liveness)) for slot in slots}

    def publish_placement(
        self, epoch: int, slots: Mapping[Unit, int], timeout: float, *, config_offset: int = -1
    ) -> int:
        offset = self.append(0, PLACEMENT_KEY, placement_value(epoch, slots, config_offset))
        if self.others_apply:
            for worker in set(self.owners().values()) - {ME}:
                self.report_applied(worker, offset, timeout)
        return offset

    def place(self, slots: Mapping[Unit, int], config_offset: int = -1) -> None:
        """A placement published by whoever owns slot 0 now."""
        owner = self.state.claims.get(0)
        self.publish_placement(owner.epoch if owner else 0, slots, 1.0, config_offset=config_offset)


class FakeWorker:
    def __init__(self, status: StatusListener) -> None:
        self._status = status
        self.lock = threading.Lock()
        self.connectors: dict[str, Mapping[str, str]] = {}
        self.tasks: dict[ConnectorTaskId, Mapping[str, str]] = {}
        self.started: list[str] = []
        self.target_states: dict[str, TargetState] = {}
        self.on_task_start: Callable[[ConnectorTaskId], None] = lambda task_id: None

    @property
    def status(self) -> StatusListener:
        return self._status

    def start_connector(
        self, name: str, config: Mapping[str, str], target_state: TargetState, on_reconfigure: Callable[[str], None]
    ) -> None:
        with self.lock:
            self.connectors[name] = dict(config)
            self.started.append(name)
        self._status.on_connector_startup(name)

    def start_task(
        self,
        task_id: ConnectorTaskId,
        connector_config: Mapping[str, str],
        task_config: Mapping[str, str],
        target_state: TargetState,
        *,
        ownership_check: Callable[[], None] | None = None,
    ) -> None:
        with self.lock:
            self.tasks[task_id] = dict(task_config)
            self.started.append(str(task_id))
        self.on_task_start(task_id)
        self._status.on_task_startup(task_id)

    def stop_tasks(self, task_ids: Iterable[ConnectorTaskId], await_stop: bool = True) -> None:
        for task in list(task_ids):
            with self.lock:
                self.tasks.pop(task, None)
            self._status.on_task_shutdown(task)

    def stop_connector(self, name: str) -> None:
        with self.lock:
            self.connectors.pop(name, None)
        self._status.on_connector_shutdown(name)

    def set_target_state(self, name: str, state: TargetState) -> None:
        self.target_states[name] = state

    def is_running(self, name_or_task: str | ConnectorTaskId) -> bool:
        return name_or_task in self.connectors or name_or_task in self.tasks

    def connector_task_configs(self, name: str, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.connectors[name], "task.number": str(i)} for i in range(max_tasks)]

    def running(self) -> set[str]:
        with self.lock:
            return set(self.connectors) | {str(t) for t in self.tasks}


class Statuses(MemoryStatusStore):
    def __init__(self, worker_id: str) -> None:
        super().__init__(worker_id)
        self.tombstoned: list[str | ConnectorTaskId] = []

    def task_on(self, task: ConnectorTaskId, state: State, worker: str) -> None:
        """A status as another worker would have written it."""
        with self._lock:
            self._tasks[task] = InstanceStatus(state, worker)

    def connector_on(self, connector: str, state: State, worker: str) -> None:
        with self._lock:
            self._connectors[connector] = InstanceStatus(state, worker)

    def stored(self) -> StoredStatuses:
        with self._lock:
            return StoredStatuses(
                {c: StatusEntry(s, 0) for c, s in self._connectors.items()},
                {t: StatusEntry(s, 0) for t, s in self._tasks.items()},
                {},
            )

    def tombstone(
        self,
        *,
        connectors: Collection[str] = (),
        tasks: Collection[ConnectorTaskId] = (),
        topics: Collection[tuple[str, str]] = (),
        timeout: float,
    ) -> None:
        with self._lock:
            for connector in connectors:
                self._connectors.pop(connector, None)
                self.tombstoned.append(connector)
            for task in tasks:
                self._tasks.pop(task, None)
                self.tombstoned.append(task)


class Harness:
    def __init__(
        self, fence: Callable[[str, int, Mapping[str, str]], None] | None = None, handoff_timeout: float = 30.0
    ) -> None:
        self.config = FakeConfigLog()
        self.slots = FakeSlotLog()
        self.status = Statuses(ME)
        self.worker = FakeWorker(self.status)
        self.work = LocalWork(self.worker, Generations())
        self.coordinator = Coordinator(
            Identity(ME, "http://me:1/"),
            Timing(
                sync_timeout=1.0,
                write_timeout=1.0,
                balance_delay=1000.0,
                handoff_timeout=handoff_timeout,
                reclaim_after=0.5,
            ),
            config_log=self.config,
            slot_log=self.slots,
            status=self.status,
            work=self.work,
            registry=PluginRegistry.of(DatagenConnector),
            fence=fence,
        )

    def other_claims(self, *slots: int) -> None:
        for slot in slots:
            self.slots.append(slot, CLAIM_KEY, encode_claim(OTHER, "http://other:2/"))
        if self.slots.others_apply:  # a worker that claims slots reconciles the placement
            self.slots.report_applied(OTHER, self.slots.placement().offset, 1.0)
        self.coordinator.slots_changed()


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness()
    h.coordinator.start()
    yield h
    h.coordinator.stop()


def task(n: int) -> ConnectorTaskId:
    return ConnectorTaskId("gen", n)


def test_claimed_slots_run_what_is_placed_in_them_and_nothing_else(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}, {"n": "1"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 0, task(0): 1, task(1): 2})

    harness.coordinator.slots_assigned(frozenset({0, 1}))

    wait_until(lambda: harness.worker.running() == {"gen", "gen-0"}, 5.0, "gen and gen-0 to run here")
    assert set(harness.coordinator.claimed_slots()) == {0, 1}
    assert harness.slots.claims()[0].worker == ME


def test_a_new_task_config_generation_restarts_the_task(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 1})
    harness.coordinator.slots_assigned(frozenset({0, 1}))
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "gen-0 to run")

    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)

    wait_until(lambda: harness.worker.started.count("gen-0") == 2, 5.0, "gen-0 to start again")
    assert harness.worker.running() == {"gen-0"}


def test_the_connector_here_writes_its_task_configs_with_its_ownership_epoch(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.slots.place({connector_unit("gen"): 1})

    harness.coordinator.slots_assigned(frozenset({0, 1}))

    wait_until(lambda: harness.config.task_config_writes, 5.0, "task configs to be written")
    name, count, epoch = harness.config.task_config_writes[0]
    assert (name, count) == ("gen", 2)
    # The worker's registration written just before it started the connector.
    assert epoch == harness.config.extension_offsets[0]
    # The same configs again: nothing is rewritten.
    harness.coordinator.request_reconfiguration("gen")
    time.sleep(0.2)
    assert len(harness.config.task_config_writes) == 1


def test_revoked_slots_are_stopped_before_the_callback_returns(harness: Harness) -> None:
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}, {"n": "1"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 0, task(0): 1, task(1): 2})
    harness.coordinator.slots_assigned(frozenset(range(SLOTS)))
    wait_until(lambda: harness.worker.running() == {"gen", "gen-0", "gen-1"}, 5.0, "everything to run")

    harness.coordinator.slots_revoked(frozenset({1, 2}))

    assert harness.worker.running() == {"gen"}
    assert harness.status.task_status(task(0)).state is State.UNASSIGNED  # type: ignore[union-attr]


def test_a_slot_claimed_by_another_worker_since_is_given_up(harness: Harness) -> None:
    harness.other_claims(2)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}, {"n": "1"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 3, task(1): 1})
    harness.coordinator.slots_assigned(frozenset({0, 1, 3}))
    wait_until(lambda: harness.worker.running() == {"gen-0", "gen-1"}, 5.0, "both tasks to run")

    harness.other_claims(3)

    wait_until(lambda: harness.worker.running() == {"gen-1"}, 5.0, "gen-0 to stop")
    assert 3 not in harness.coordinator.claimed_slots()
    harness.coordinator.slots_lost(frozenset({3}))  # the group's word follows
    time.sleep(0.8)  # longer than reclaim_after: a slot the group took away is not claimed again
    assert harness.slots.claims()[3].worker == OTHER
    assert harness.worker.running() == {"gen-1"}


def test_a_slot_the_group_still_gives_this_worker_after_a_stray_claim_is_claimed_again(harness: Harness) -> None:
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 3})
    harness.other_claims(2)
    harness.coordinator.slots_assigned(frozenset({0, 1, 3}))
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "gen-0 to run")

    harness.other_claims(3)  # a late claim: the group never took slot 3 from this worker
    wait_until(lambda: "gen-0" not in harness.worker.running(), 5.0, "gen-0 to stop at once")

    wait_until(lambda: harness.slots.claims()[3].worker == ME, 5.0, "slot 3 claimed again after reclaim_after")
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "gen-0 to run again")


def test_a_unit_moved_here_waits_until_its_former_worker_applied_the_move(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 3})
    harness.coordinator.slots_assigned(frozenset({0, 1}))
    wait_until(lambda: harness.coordinator.claimed_slots().keys() == {0, 1}, 5.0, "slots 0 and 1 claimed")

    # The other worker is still starting gen-0 (an exactly-once task fencing its producer reports nothing
    # for seconds), so no status tells this worker anything: only the other's word that it applied the move.
    harness.slots.others_apply = False
    harness.slots.place({connector_unit("gen"): 2, task(0): 1})
    wait_until(lambda: harness.slots.applied().get(ME) == harness.slots.placement().offset, 5.0, "this worker to apply")
    assert "gen-0" not in harness.worker.running()

    harness.slots.report_applied(OTHER, harness.slots.placement().offset, 1.0)
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "gen-0 to start here once stopped there")


def test_a_worker_that_never_confirms_a_move_is_waited_for_only_up_to_the_handoff_timeout() -> None:
    h = Harness(handoff_timeout=0.5)
    h.coordinator.start()
    try:
        h.other_claims(2, 3)
        h.config.put_connector("gen", DATAGEN)
        h.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
        h.slots.others_apply = False
        h.slots.place({connector_unit("gen"): 2, task(0): 1})
        h.coordinator.slots_assigned(frozenset({0, 1}))
        wait_until(lambda: h.coordinator.claimed_slots().keys() == {0, 1}, 5.0, "slots 0 and 1 claimed")
        assert "gen-0" not in h.worker.running()
        wait_until(lambda: h.worker.running() == {"gen-0"}, 5.0, "gen-0 to start after the hand-off timeout")
    finally:
        h.coordinator.stop()


def test_a_restart_request_restarts_only_the_failed_instances_here(harness: Harness) -> None:
    harness.other_claims(3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}, {"n": "1"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 3, task(0): 1, task(1): 2})
    harness.coordinator.slots_assigned(frozenset({0, 1, 2}))
    wait_until(lambda: harness.worker.running() == {"gen-0", "gen-1"}, 5.0, "the local tasks to run")
    harness.status.on_task_failure(task(1), "boom")

    harness.config.write(
        records.restart_key("gen"), records.restart_value(RestartRequest("gen", only_failed=True, include_tasks=True))
    )

    wait_until(lambda: harness.worker.started.count("gen-1") == 2, 5.0, "gen-1 to restart")
    assert harness.worker.started.count("gen-0") == 1
    assert harness.status.task_status(task(1)).state is State.RUNNING  # type: ignore[union-attr]


def test_the_owner_of_slot_zero_places_new_work_and_a_pause_reaches_the_tasks(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.coordinator.slots_assigned(frozenset({0, 1}))
    wait_until(lambda: harness.coordinator.claimed_slots().keys() == {0, 1}, 5.0, "slots 0 and 1 claimed")

    harness.config.put_connector("gen", DATAGEN)

    wait_until(lambda: len(harness.slots.placement().slots) == 3, 5.0, "the connector and its 2 tasks to be placed")
    placed = harness.slots.placement().slots
    owners = harness.slots.owners()
    assert sorted(owners[placed[task(n)]] for n in (0, 1)) == [ME, OTHER]
    wait_until(lambda: len(harness.worker.running()) == 2, 5.0, "this worker's share to run")

    harness.config.write(records.target_state_key("gen"), records.target_state_value(TargetState.PAUSED))
    wait_until(lambda: harness.worker.target_states.get("gen") is TargetState.PAUSED, 5.0, "the pause")


def test_an_exactly_once_connector_fences_the_previous_generation_before_committing_a_new_one() -> None:
    config_writes: list[tuple[str, int, int]] = []
    fenced: list[tuple[str, int, int]] = []
    eos = Harness(fence=lambda name, count, _: fenced.append((name, count, len(config_writes))))
    config_writes = eos.config.task_config_writes
    eos.coordinator.start()
    try:
        eos.other_claims(2, 3)
        eos.config.put_connector("gen", DATAGEN)
        eos.config.put_task_count_record("gen", 3)  # an earlier generation ran 3 tasks
        config_writes.clear()
        eos.slots.place({connector_unit("gen"): 1})

        eos.coordinator.slots_assigned(frozenset({0, 1}))

        wait_until(lambda: len(config_writes) == 2, 5.0, "the task configs and the new count")
        assert fenced == [("gen", 3, 0)]  # before anything of the new generation was written
        assert config_writes[1] == ("tasks-fencing-gen", 2, -1)
        assert eos.config.snapshot().task_count_records["gen"] == 2
    finally:
        eos.coordinator.stop()


def test_a_task_may_start_exactly_once_only_while_it_is_still_ours(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 1})
    harness.coordinator.slots_assigned(frozenset({0, 1}))
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "gen-0 to run")

    harness.coordinator.check_ownership(task(0))
    with pytest.raises(ConnectError, match="no longer assigned"):
        harness.coordinator.check_ownership(task(1))
    harness.coordinator.slots_revoked(frozenset({1}))
    with pytest.raises(ConnectError, match="no longer assigned"):
        harness.coordinator.check_ownership(task(0))


def test_statuses_carry_the_generation_their_unit_was_started_under(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 1})
    harness.coordinator.slots_assigned(frozenset({0, 1}))
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "gen-0 to run")
    first = harness.coordinator.generation

    harness.config.put_connector("more", {**DATAGEN, "name": "more"})
    harness.slots.place({connector_unit("gen"): 2, task(0): 1, connector_unit("more"): 0})
    wait_until(lambda: "more" in harness.worker.running(), 5.0, "the second connector to run")

    assert first < (harness.coordinator.generation_of("more", None) or -1) <= harness.coordinator.generation
    assert harness.coordinator.generation_of("gen", 0) == first
    harness.coordinator.slots_revoked(frozenset({1}))
    # What gen-0 writes while and just after it stops still carries the generation it ran under.
    assert harness.coordinator.generation_of("gen", 0) == first
    assert harness.coordinator.generation_of("never", 3) is None


def test_the_owner_of_slot_zero_deletes_the_statuses_of_a_connector_deleted_while_its_worker_was_away(
    harness: Harness,
) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}, {"n": "1"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 3, task(1): 2})
    harness.status.connector_on("gen", State.RUNNING, OTHER)
    for n in (0, 1):
        harness.status.task_on(task(n), State.RUNNING, OTHER)
    harness.coordinator.slots_assigned(frozenset({0, 1}))
    wait_until(lambda: harness.coordinator.claimed_slots().keys() == {0, 1}, 5.0, "slots 0 and 1 claimed")
    time.sleep(0.2)
    assert harness.status.tombstoned == []  # backed by the config log: left alone

    harness.config.remove_connector("gen")  # OTHER, which ran it, is gone and writes nothing

    wait_until(lambda: sorted(map(str, harness.status.tombstoned)) == ["gen", "gen-0", "gen-1"], 5.0, "the tombstones")
    assert harness.status.all() == []
    # The placement without it is published once the tombstones are acknowledged: just after them.
    wait_until(lambda: connector_unit("gen") not in harness.slots.placement().slots, 5.0, "a placement without it")


def test_a_task_dropped_by_a_smaller_task_set_loses_its_status(harness: Harness) -> None:
    harness.other_claims(2, 3)
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}, {"n": "1"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 2, task(0): 3, task(1): 2})
    for n in (0, 1):
        harness.status.task_on(task(n), State.RUNNING, OTHER)
    harness.coordinator.slots_assigned(frozenset({0, 1}))

    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)

    wait_until(lambda: harness.status.tombstoned == [task(1)], 5.0, "gen-1's tombstone")
    assert harness.status.task_status(task(0)) is not None


def test_a_recreated_connector_is_a_new_incarnation_started_from_a_placement_decided_after_the_deletion(
    harness: Harness,
) -> None:
    harness.coordinator.slots_assigned(frozenset(range(SLOTS)))
    harness.config.put_connector("gen", DATAGEN)
    wait_until(lambda: harness.worker.running() == {"gen", "gen-0", "gen-1"}, 5.0, "gen and its tasks to run here")
    placed = dict(harness.slots.placement().slots)

    generated = [{**DATAGEN, "task.number": str(n)} for n in (0, 1)]
    with harness.work.lock:  # the coordinator reads the deletion and the re-creation at once
        deleted_at = harness.config.remove_connector("gen")
        harness.config.put_connector("gen", DATAGEN)  # the very same config, and the same tasks
        harness.config.put_task_configs("gen", generated, epoch=0)

    wait_until(lambda: harness.worker.started.count("gen") == 2, 5.0, "the new incarnation's connector instance")
    wait_until(lambda: harness.worker.running() == {"gen", "gen-0", "gen-1"}, 5.0, "its tasks")
    assert harness.slots.placement().config_offset > deleted_at
    assert harness.slots.placement().slots == placed  # decided anew, in the same place
    for unit in ("gen", "gen-0", "gen-1"):
        assert harness.worker.started.count(unit) == 2
    assert harness.coordinator.generation_of("gen", None) > deleted_at  # its statuses tell it from the old one
    assert harness.coordinator.generation_of("gen", 1) > deleted_at


def test_a_placement_decided_before_a_deletion_starts_nothing_of_the_recreated_connector(harness: Harness) -> None:
    harness.other_claims(0, 3)  # another worker balances
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
    harness.slots.place({connector_unit("gen"): 3, task(0): 1}, config_offset=harness.config.snapshot().offset)
    harness.coordinator.slots_assigned(frozenset({1, 2}))
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "gen-0 to run")

    harness.config.remove_connector("gen")
    harness.config.put_connector("gen", DATAGEN)
    harness.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
    wait_until(lambda: harness.worker.running() == set(), 5.0, "the old gen-0 to stop")
    time.sleep(0.3)
    assert harness.worker.running() == set()  # the old placement says nothing about the new gen-0

    harness.slots.place({connector_unit("gen"): 3, task(0): 1}, config_offset=harness.config.snapshot().offset)
    wait_until(lambda: harness.worker.running() == {"gen-0"}, 5.0, "the new gen-0 to start")


def test_a_slot_claimed_by_another_worker_while_this_one_registers_is_not_run_under_that_registration() -> None:
    # The group gives slot 3 to the other worker, which claims it and registers, while this worker's own
    # registration write is still under way (slow: say the config partition's leader just died). This
    # worker's generation then comes out above the new owner's: whatever it started in slot 3 under it
    # would win over the new owner's statuses (KAFKA-12525's rule) and leave the task UNASSIGNED there.
    h = Harness()
    starts: list[tuple[str, int]] = []
    h.worker.on_task_start = lambda task_id: starts.append((str(task_id), h.coordinator.generation))
    h.coordinator.start()
    try:
        h.other_claims(2)
        h.config.put_connector("gen", DATAGEN)
        h.config.put_task_configs("gen", [{"n": "0"}], epoch=0)
        h.slots.place({connector_unit("gen"): 1, task(0): 3})
        registering = h.config.put_extension
        racing: list[int] = []

        def racing_registration(key: str, value: Mapping[str, Any] | None, *, timeout: float = 30.0) -> int:
            if racing:
                return registering(key, value, timeout=timeout)
            h.slots.append(3, CLAIM_KEY, encode_claim(OTHER, "http://other:2/"))
            registering("kconnect-worker-" + OTHER, {"url": "x"})
            racing.append(registering(key, value, timeout=timeout))
            return racing[0]

        h.config.put_extension = racing_registration  # type: ignore[method-assign]
        h.coordinator.slots_assigned(frozenset({0, 1, 3}))

        wait_until(lambda: "gen" in h.worker.running(), 5.0, "the connector in slot 1 to run")
        # Slot 3 is claimed again after reclaim_after (the group never took it back), under a newer
        # registration that follows the other worker's claim; never under the one that raced with it.
        assert ("gen-0", racing[0]) not in starts, starts
    finally:
        h.coordinator.stop()
