"""MemoryStatusStore: the states Kafka Connect's listener callbacks lead to."""

from __future__ import annotations

from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.stores.memory_status_store import MemoryStatusStore

T0 = ConnectorTaskId("c", 0)
T1 = ConnectorTaskId("c", 1)


def test_connector_transitions() -> None:
    store = MemoryStatusStore("w:8083")
    expected = [
        (store.on_connector_startup, State.RUNNING),
        (store.on_connector_pause, State.PAUSED),
        (store.on_connector_resume, State.RUNNING),
        (store.on_connector_stopped, State.STOPPED),
        (store.on_connector_restart, State.RESTARTING),
        (store.on_connector_shutdown, State.UNASSIGNED),
    ]
    for call, state in expected:
        call("c")
        assert store.connector_status("c") == InstanceStatus(state, "w:8083")
    store.on_connector_failure("c", "Traceback ...")
    assert store.connector_status("c") == InstanceStatus(State.FAILED, "w:8083", "Traceback ...")


def test_task_statuses_by_connector_and_deletion() -> None:
    store = MemoryStatusStore("w:8083")
    store.on_task_startup(T1)
    store.on_task_failure(T0, "boom")
    store.on_task_startup(ConnectorTaskId("other", 0))
    assert store.task_statuses("c") == {
        0: InstanceStatus(State.FAILED, "w:8083", "boom"),
        1: InstanceStatus(State.RUNNING, "w:8083"),
    }
    store.on_connector_startup("c")
    snapshot = store.connector_snapshot("c")
    assert snapshot.connector is not None and snapshot.connector.state is State.RUNNING
    assert list(snapshot.tasks) == [0, 1]
    assert [s.name for s in store.all()] == ["c", "other"]
    store.on_task_deletion(T1)
    assert list(store.task_statuses("c")) == [0]
    store.on_connector_deletion("c")
    assert store.connector_status("c") is None and store.task_statuses("c") == {}


def test_snapshots_read_every_connector_at_once_as_connector_snapshot_does() -> None:
    store = MemoryStatusStore("w:8083")
    for task in (ConnectorTaskId("b", 10), ConnectorTaskId("b", 2), T1, T0, ConnectorTaskId("tasks-only", 0)):
        store.on_task_startup(task)
    store.on_connector_startup("c")
    store.on_connector_pause("b")
    store.on_connector_startup("no-tasks")
    snapshots = store.snapshots()
    assert sorted(snapshots) == ["b", "c", "no-tasks", "tasks-only"]
    for name, snapshot in snapshots.items():
        assert snapshot == store.connector_snapshot(name)
    assert list(snapshots["b"].tasks) == [2, 10]


def test_topic_tracking_and_reset() -> None:
    store = MemoryStatusStore("w:8083")
    store.on_topic_used(T0, "a")
    store.on_topic_used(T1, "b")
    store.on_topic_used(T1, "a")
    assert store.active_topics("c") == {"a", "b"}
    store.reset_active_topics("c")
    assert store.active_topics("c") == set()
