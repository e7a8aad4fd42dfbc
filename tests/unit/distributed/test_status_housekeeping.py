"""Statuses of deleted work: the balancer's sweep deletes what the config log no longer backs (once, unless
written again), and readers do not show what an earlier incarnation of a re-created connector left."""

from __future__ import annotations

from collections.abc import Collection

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State, tasks_by_connector
from connect.runtime.stores import ClusterConfigState, ConfigLogState, StatusEntry, StoredStatuses, TopicStatus
from connect.runtime.stores import config_records as records
from workers.distributed.current_statuses import CurrentStatuses
from workers.distributed.status_sweep import Orphans, StatusSweep, orphans

OLD, NEW = "old:1", "new:2"


class ConfigLog:
    def __init__(self) -> None:
        self.state = ConfigLogState()
        self.offset = 0

    def write(self, key: bytes, value: bytes | None) -> int:
        offset = self.offset
        self.state.apply(key, value, offset)
        self.offset += 1
        return offset

    def connector(self, name: str, tasks: int) -> int:
        offset = self.write(records.connector_key(name), records.properties_value({"connector.class": "X"}))
        for n in range(tasks):
            self.write(records.task_key(ConnectorTaskId(name, n)), records.properties_value({"n": str(n)}))
        self.write(records.commit_key(name), records.commit_value(tasks))
        return offset

    def delete(self, name: str) -> int:
        return self.write(records.connector_key(name), None)

    def snapshot(self) -> ClusterConfigState:
        return self.state.snapshot()


class Store:
    """The status store as the sweep and the readers see it: entries by key, tombstones acknowledged at once."""

    def __init__(self) -> None:
        self.connectors: dict[str, StatusEntry] = {}
        self.tasks: dict[ConnectorTaskId, StatusEntry] = {}
        self.topics: dict[tuple[str, str], TopicStatus] = {}
        self.deleted: list[object] = []

    def status(self, key: str | ConnectorTaskId, state: State, generation: int, worker: str = OLD) -> None:
        entry = StatusEntry(InstanceStatus(state, worker), generation)
        if isinstance(key, str):
            self.connectors[key] = entry
        else:
            self.tasks[key] = entry

    def topic(self, topic: str, connector: str) -> None:
        self.topics[(topic, connector)] = TopicStatus(topic, connector, 0, 1)

    def stored(self) -> StoredStatuses:
        return StoredStatuses(dict(self.connectors), dict(self.tasks), dict(self.topics))

    def tombstone(
        self,
        *,
        connectors: Collection[str] = (),
        tasks: Collection[ConnectorTaskId] = (),
        topics: Collection[tuple[str, str]] = (),
        timeout: float,
    ) -> None:
        self.deleted.extend([*connectors, *tasks, *topics])

    def read_back(self) -> None:
        for key in self.deleted:
            if isinstance(key, str):
                self.connectors.pop(key, None)
            elif isinstance(key, ConnectorTaskId):
                self.tasks.pop(key, None)
            else:
                assert isinstance(key, tuple)
                self.topics.pop(key, None)

    # what CurrentStatuses reads

    def connector_entries(self, connector: str) -> tuple[StatusEntry | None, dict[int, StatusEntry]]:
        return self.connectors.get(connector), {t.task: e for t, e in self.tasks.items() if t.connector == connector}

    def all_entries(self) -> tuple[dict[str, StatusEntry], dict[str, dict[int, StatusEntry]]]:
        return dict(self.connectors), tasks_by_connector(self.tasks)

    def task_entry(self, task: ConnectorTaskId) -> StatusEntry | None:
        return self.tasks.get(task)

    def active_topics(self, connector: str) -> set[str]:
        return {topic for topic, c in self.topics if c == connector}

    def reset_active_topics(self, connector: str) -> None:
        raise AssertionError("not used here")


def task(name: str, n: int) -> ConnectorTaskId:
    return ConnectorTaskId(name, n)


def test_orphans_are_the_statuses_the_config_log_does_not_back() -> None:
    log, store = ConfigLog(), Store()
    log.connector("kept", tasks=2)
    log.connector("shrunk", tasks=1)
    for name, tasks in (("kept", 2), ("shrunk", 3), ("deleted", 2)):
        store.status(name, State.RUNNING, 1)
        for n in range(tasks):
            store.status(task(name, n), State.RUNNING, 1)
        store.topic("t", name)

    assert orphans(log.snapshot(), store.stored()) == Orphans(
        connectors=("deleted",),
        tasks=(task("deleted", 0), task("deleted", 1), task("shrunk", 1), task("shrunk", 2)),
        topics=(("t", "deleted"),),
    )


def test_the_sweep_deletes_once_and_again_only_what_was_written_again() -> None:
    log, store = ConfigLog(), Store()
    log.connector("gone", tasks=1)
    store.status("gone", State.RUNNING, 1)
    store.status(task("gone", 0), State.RUNNING, 1)
    sweep = StatusSweep(store, timeout=1.0)
    assert not sweep.run(log.snapshot(), tenure=0)

    log.delete("gone")
    assert sweep.run(log.snapshot(), tenure=0) == Orphans(("gone",), (task("gone", 0),))
    assert not sweep.run(log.snapshot(), tenure=0)  # the tombstones were not read back yet: not sent again

    # The old owner, slow to stop, writes once more after the tombstone: that is deleted too.
    store.read_back()
    store.status(task("gone", 0), State.UNASSIGNED, 1)
    assert sweep.run(log.snapshot(), tenure=0) == Orphans(tasks=(task("gone", 0),))


def test_a_recreated_connectors_topic_records_are_deleted_once_per_removal_seen_while_balancing() -> None:
    log, store = ConfigLog(), Store()
    log.connector("c", tasks=1)
    log.delete("gone")  # before this worker balanced: its predecessor's business
    log.connector("gone", tasks=1)
    store.topic("t", "c")
    store.topic("t", "gone")
    sweep = StatusSweep(store, timeout=1.0)
    assert not sweep.run(log.snapshot(), tenure=5)

    log.delete("c")
    log.connector("c", tasks=1)  # deleted and re-created between two steps: the statuses stay backed
    assert sweep.run(log.snapshot(), tenure=5) == Orphans(topics=(("t", "c"),))
    store.read_back()
    assert not sweep.run(log.snapshot(), tenure=5)


def test_statuses_older_than_a_units_removal_are_not_shown() -> None:
    log, store = ConfigLog(), Store()
    log.connector("c", tasks=2)
    store.status("c", State.RUNNING, 3)
    store.status(task("c", 0), State.RUNNING, 3)
    store.status(task("c", 1), State.FAILED, 3)
    deleted_at = log.delete("c")
    log.connector("c", tasks=2)
    store.status(task("c", 0), State.RUNNING, deleted_at + 5, NEW)  # the new incarnation's
    statuses = CurrentStatuses(store, log.snapshot)

    snapshot = statuses.connector_snapshot("c")

    assert snapshot.connector is None
    assert snapshot.tasks == {0: InstanceStatus(State.RUNNING, NEW)}
    assert statuses.connector_snapshots(log.snapshot()) == {"c": snapshot}
    assert statuses.task_status(task("c", 1)) is None
    assert statuses.task_status(task("c", 0)) == InstanceStatus(State.RUNNING, NEW)


def test_a_task_dropped_and_added_back_hides_its_old_status_until_it_writes_again() -> None:
    log, store = ConfigLog(), Store()
    log.connector("c", tasks=2)
    store.status(task("c", 1), State.RUNNING, 3)
    log.write(records.commit_key("c"), records.commit_value(0))  # stopped: no tasks
    statuses = CurrentStatuses(store, log.snapshot)
    assert log.snapshot().removal_offset("c", 1) > 3

    assert statuses.task_status(task("c", 1)) is None
    assert statuses.connector_snapshot("c").tasks == {}


def test_all_connectors_snapshots_are_each_connectors_snapshot() -> None:
    log, store = ConfigLog(), Store()
    log.connector("a", tasks=1)
    log.connector("b", tasks=2)
    store.status("a", State.RUNNING, 3)
    store.status(task("b", 1), State.FAILED, 3)
    store.status(task("a", 0), State.PAUSED, 3)
    store.status("gone", State.RUNNING, 3)  # no config: not shown
    statuses = CurrentStatuses(store, log.snapshot)

    snapshots = statuses.connector_snapshots(log.snapshot())

    assert snapshots == {name: statuses.connector_snapshot(name) for name in ("a", "b")}
