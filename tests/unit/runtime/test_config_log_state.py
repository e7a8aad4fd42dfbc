"""The config topic's state machine: records applied in log order, without Kafka."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from connect.runtime.domain.info import RestartRequest
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.stores import ChangeKind, ConfigLogState
from connect.runtime.stores import config_records as records


class Log:
    """A config topic being read: appends records at increasing offsets to a ConfigLogState."""

    def __init__(self) -> None:
        self.state = ConfigLogState()
        self.offset = 0
        self.changes: list[Any] = []

    def raw(self, key: bytes | None, value: bytes | None) -> int:
        offset = self.offset
        self.changes = self.state.apply(key, value, offset)
        self.offset += 1
        return offset

    def put(self, key: str, value: dict[str, Any] | None) -> int:
        return self.raw(key.encode(), None if value is None else orjson.dumps(value))

    def connector(self, name: str, config: dict[str, str] | None) -> int:
        return self.put(f"connector-{name}", None if config is None else {"properties": config})

    def task(self, name: str, index: int, config: dict[str, str], epoch: int | None = None) -> int:
        value: dict[str, Any] = {"properties": config}
        if epoch is not None:
            value["epoch"] = epoch
        return self.put(f"task-{name}-{index}", value)

    def commit(self, name: str, tasks: int, epoch: int | None = None) -> int:
        value: dict[str, Any] = {"tasks": tasks}
        if epoch is not None:
            value["epoch"] = epoch
        return self.put(f"commit-{name}", value)

    def task_set(self, name: str, configs: list[dict[str, str]], epoch: int | None = None) -> None:
        for index, config in enumerate(configs):
            self.task(name, index, config, epoch)
        self.commit(name, len(configs), epoch)


@pytest.fixture
def log() -> Log:
    return Log()


def test_connector_configs_follow_the_log_and_default_to_started(log: Log) -> None:
    log.connector("orders", {"connector.class": "A", "tasks.max": "1"})
    log.connector("orders", {"connector.class": "A", "tasks.max": "3"})
    log.connector("users", {"connector.class": "B"})

    snapshot = log.state.snapshot()
    assert snapshot.connectors() == ["orders", "users"]
    assert snapshot.connector_config("orders") == {"connector.class": "A", "tasks.max": "3"}
    assert snapshot.target_state("orders") is TargetState.STARTED
    assert snapshot.offset == 3


def test_connector_tombstone_removes_the_connector_and_its_tasks(log: Log) -> None:
    log.connector("orders", {"connector.class": "A"})
    log.task_set("orders", [{"t": "0"}, {"t": "1"}])
    log.put("restart-connector-orders", {"include-tasks": True, "only-failed": False})

    log.connector("orders", None)

    snapshot = log.state.snapshot()
    assert not snapshot.contains("orders")
    assert snapshot.tasks("orders") == []
    assert "orders" not in snapshot.restart_requests
    assert [c.kind for c in log.changes] == [ChangeKind.CONNECTOR_REMOVED]


def test_recreated_connector_starts_without_the_old_tasks(log: Log) -> None:
    log.connector("orders", {"v": "1"})
    log.task_set("orders", [{"t": "old"}])
    log.connector("orders", None)
    log.connector("orders", {"v": "2"})

    assert log.state.snapshot().tasks("orders") == []


def test_task_configs_apply_only_on_their_commit_record(log: Log) -> None:
    log.connector("orders", {"connector.class": "A"})
    log.task("orders", 0, {"file": "a"})
    log.task("orders", 1, {"file": "b"})

    before = log.state.snapshot()
    assert before.tasks("orders") == []
    assert log.changes == []

    log.commit("orders", 2)

    after = log.state.snapshot()
    assert after.tasks("orders") == [ConnectorTaskId("orders", 0), ConnectorTaskId("orders", 1)]
    assert after.task_config(ConnectorTaskId("orders", 1)) == {"file": "b"}
    assert after.applied_connector_configs["orders"] == {"connector.class": "A"}
    assert [c.kind for c in log.changes] == [ChangeKind.TASK_CONFIGS]
    assert before.tasks("orders") == [], "a snapshot taken earlier does not change"


def test_a_commit_replaces_the_whole_task_set(log: Log) -> None:
    log.connector("orders", {})
    log.task_set("orders", [{"t": "0"}, {"t": "1"}, {"t": "2"}])
    log.task_set("orders", [{"t": "new"}])

    snapshot = log.state.snapshot()
    assert snapshot.task_count("orders") == 1
    assert snapshot.task_config(ConnectorTaskId("orders", 0)) == {"t": "new"}
    assert snapshot.task_config(ConnectorTaskId("orders", 1)) is None


def test_commit_of_zero_tasks_clears_them(log: Log) -> None:
    log.connector("orders", {})
    log.task_set("orders", [{"t": "0"}])
    log.commit("orders", 0)

    snapshot = log.state.snapshot()
    assert snapshot.tasks("orders") == []
    assert not snapshot.is_inconsistent("orders")


def test_incomplete_task_set_marks_the_connector_inconsistent_until_a_complete_one(log: Log) -> None:
    log.connector("orders", {})
    log.task_set("orders", [{"t": "0"}, {"t": "1"}])
    # Compaction removed task-orders-0 of the next set, or its writer died half-way.
    log.task("orders", 1, {"t": "1b"})
    log.commit("orders", 2)

    snapshot = log.state.snapshot()
    assert snapshot.is_inconsistent("orders")
    assert snapshot.tasks("orders") == []

    log.task_set("orders", [{"t": "0c"}, {"t": "1c"}])
    snapshot = log.state.snapshot()
    assert not snapshot.is_inconsistent("orders")
    assert snapshot.task_config(ConnectorTaskId("orders", 0)) == {"t": "0c"}


def test_staged_task_configs_are_dropped_at_every_commit(log: Log) -> None:
    log.connector("orders", {})
    log.task("orders", 0, {"t": "0"})
    log.task("orders", 1, {"t": "1"})
    log.commit("orders", 1)  # applies task 0, drops the staged task 1
    log.commit("orders", 2)

    assert log.state.snapshot().is_inconsistent("orders")


def test_task_records_beyond_the_committed_count_are_ignored(log: Log) -> None:
    # Kafka's compaction example: a leftover task-2 record from an older, larger set.
    log.connector("orders", {})
    log.task("orders", 2, {"t": "stale"})
    log.task("orders", 0, {"t": "0"})
    log.task("orders", 1, {"t": "1"})
    log.commit("orders", 2)

    snapshot = log.state.snapshot()
    assert snapshot.task_count("orders") == 2
    assert not snapshot.is_inconsistent("orders")


def test_commit_for_a_connector_without_config_is_ignored(log: Log) -> None:
    log.task("gone", 0, {"t": "0"})
    log.commit("gone", 1)

    assert log.changes == []
    log.connector("gone", {})
    assert log.state.snapshot().tasks("gone") == []


def test_generation_counts_applied_commits_across_deletion(log: Log) -> None:
    log.connector("orders", {})
    assert log.state.snapshot().task_config_generation("orders") == -1
    log.task_set("orders", [{"t": "0"}])
    log.task_set("orders", [{"t": "1"}])
    assert log.state.snapshot().task_config_generation("orders") == 1
    log.connector("orders", None)
    log.connector("orders", {})
    log.task_set("orders", [{"t": "2"}])
    assert log.state.snapshot().task_config_generation("orders") == 2


def test_target_state_v2_wins_over_the_legacy_field(log: Log) -> None:
    log.connector("orders", {})
    log.put("target-state-orders", {"state": "PAUSED", "state.v2": "STOPPED"})
    assert log.state.snapshot().target_state("orders") is TargetState.STOPPED

    log.put("target-state-orders", {"state": "PAUSED"})  # written by a worker before KIP-875
    assert log.state.snapshot().target_state("orders") is TargetState.PAUSED

    log.put("target-state-orders", None)
    assert log.state.snapshot().target_state("orders") is TargetState.STARTED


def test_target_state_written_before_the_connector_record_applies_to_it(log: Log) -> None:
    log.raw(records.target_state_key("orders"), records.target_state_value(TargetState.PAUSED))
    log.connector("orders", {})

    assert log.state.snapshot().target_state("orders") is TargetState.PAUSED


def test_restart_requests_are_pending_with_their_offset_and_later_ones_supersede(log: Log) -> None:
    log.connector("orders", {})
    log.raw(records.restart_key("orders"), records.restart_value(RestartRequest("orders", only_failed=True)))
    offset = log.raw(records.restart_key("orders"), records.restart_value(RestartRequest("orders", include_tasks=True)))

    pending = log.state.snapshot().restart_requests["orders"]
    assert pending.offset == offset
    assert (pending.request.include_tasks, pending.request.only_failed) == (True, False)
    assert [c.kind for c in log.changes] == [ChangeKind.RESTART_REQUEST]

    log.raw(records.restart_key("orders"), None)
    assert log.state.snapshot().restart_requests == {}


def test_task_restart_requests_are_pending_until_cleared(log: Log) -> None:
    log.connector("my-conn", {})
    task = ConnectorTaskId("my-conn", 3)
    offset = log.raw(records.task_restart_key(task), records.task_restart_value(1))

    assert log.state.snapshot().task_restart_requests == {task: offset}
    assert log.changes[0].task == 3
    log.raw(records.task_restart_key(task), None)
    assert log.state.snapshot().task_restart_requests == {}


def test_stale_epoch_commit_is_ignored(log: Log) -> None:
    log.connector("orders", {})
    log.task_set("orders", [{"owner": "new"}], epoch=7)
    log.task_set("orders", [{"owner": "zombie"}], epoch=3)

    snapshot = log.state.snapshot()
    assert snapshot.task_config(ConnectorTaskId("orders", 0)) == {"owner": "new"}
    assert snapshot.task_config_epochs["orders"] == 7


def test_zombie_task_record_between_the_owners_records_and_commit_does_not_win(log: Log) -> None:
    log.connector("orders", {})
    log.task_set("orders", [{"owner": "first"}], epoch=1)
    log.task("orders", 0, {"owner": "new"}, epoch=5)
    log.task("orders", 0, {"owner": "zombie"}, epoch=1)
    log.commit("orders", 1, epoch=5)

    assert log.state.snapshot().task_config(ConnectorTaskId("orders", 0)) == {"owner": "new"}


def test_commit_applies_only_task_records_of_its_own_epoch(log: Log) -> None:
    log.connector("orders", {})
    log.task("orders", 0, {"t": "0"}, epoch=5)
    log.task("orders", 1, {"t": "1"}, epoch=4)
    log.commit("orders", 2, epoch=5)

    assert log.state.snapshot().is_inconsistent("orders")


def test_epochs_start_over_when_a_connector_is_recreated(log: Log) -> None:
    log.connector("orders", {})
    log.task_set("orders", [{"t": "0"}], epoch=9)
    log.connector("orders", None)
    log.connector("orders", {})
    log.task_set("orders", [{"t": "again"}], epoch=2)

    assert log.state.snapshot().task_config(ConnectorTaskId("orders", 0)) == {"t": "again"}


def test_records_written_by_the_encoders_are_kafka_connects_shapes(log: Log) -> None:
    assert orjson.loads(records.target_state_value(TargetState.STOPPED)) == {"state": "PAUSED", "state.v2": "STOPPED"}
    assert orjson.loads(records.target_state_value(TargetState.STARTED)) == {"state": "STARTED", "state.v2": "STARTED"}
    assert orjson.loads(records.properties_value({"a": "1"})) == {"properties": {"a": "1"}}
    assert orjson.loads(records.commit_value(2)) == {"tasks": 2}
    assert orjson.loads(records.restart_value(RestartRequest("c", only_failed=True))) == {
        "include-tasks": False,
        "only-failed": True,
    }
    assert records.task_key(ConnectorTaskId("my-conn", 12)) == b"task-my-conn-12"
    assert records.task_count_key("c") == b"tasks-fencing-c"


def test_dashes_in_connector_names_do_not_confuse_task_keys(log: Log) -> None:
    log.connector("a-b-1", {})
    log.task_set("a-b-1", [{"t": "0"}, {"t": "1"}])

    assert log.state.snapshot().tasks("a-b-1") == [ConnectorTaskId("a-b-1", 0), ConnectorTaskId("a-b-1", 1)]


def test_task_count_logger_and_extension_records(log: Log) -> None:
    log.raw(records.task_count_key("orders"), records.task_count_value(4))
    log.raw(records.logger_key("org.apache.kafka"), records.logger_value("DEBUG"))
    log.raw(records.extension_key("kconnect-worker-w1"), records.extension_value({"url": "http://w1:8083/"}))

    snapshot = log.state.snapshot()
    assert snapshot.task_count_records == {"orders": 4}
    assert snapshot.logger_levels == {"org.apache.kafka": "DEBUG"}
    assert snapshot.extensions == {"kconnect-worker-w1": {"url": "http://w1:8083/"}}
    assert [c.kind for c in log.changes] == [ChangeKind.EXTENSION]

    log.raw(b"kconnect-worker-w1", None)
    assert log.state.snapshot().extensions == {}


def test_extension_keys_must_carry_the_kconnect_prefix() -> None:
    with pytest.raises(ValueError):
        records.extension_key("placement")
    with pytest.raises(ValueError):
        records.extension_key("kconnect-restart-task-a-0")


def test_unreadable_records_are_skipped_but_counted_in_the_offset(log: Log) -> None:
    log.connector("orders", {"v": "1"})
    log.raw(b"connector-orders", b"not json")
    log.put("connector-orders", {"no": "properties"})
    log.raw(None, b"{}")
    log.put("something-else", {})
    log.put("session-key", {"key": "abc", "algorithm": "HmacSHA256", "creation-timestamp": 1})

    snapshot = log.state.snapshot()
    assert snapshot.connector_config("orders") == {"v": "1"}
    assert snapshot.offset == 6


def test_non_string_property_values_are_kept_as_text(log: Log) -> None:
    log.put("connector-orders", {"properties": {"tasks.max": 3, "flag": True, "name": "orders"}})

    assert log.state.snapshot().connector_config("orders") == {"tasks.max": "3", "flag": "true", "name": "orders"}


def test_cluster_logger_levels_keep_the_order_of_their_latest_records(log: Log) -> None:
    log.raw(records.logger_key("org"), records.logger_value("DEBUG"))
    log.raw(records.logger_key("org.apache"), records.logger_value("INFO"))
    log.raw(records.logger_key("org"), records.logger_value("WARN"))
    assert [c.kind for c in log.changes] == [ChangeKind.LOGGER_LEVEL]

    # Applied in this order, "org" (and so "org.apache") ends at WARN, as when the whole log is replayed.
    assert list(log.state.snapshot().logger_levels.items()) == [("org.apache", "INFO"), ("org", "WARN")]


def test_removals_of_connectors_and_tasks_are_remembered_by_offset(log: Log) -> None:
    log.connector("orders", {"v": "1"})
    log.task_set("orders", [{"t": "0"}, {"t": "1"}, {"t": "2"}])
    assert log.state.snapshot().removal_offset("orders") == -1
    assert log.state.snapshot().removal_offset("orders", 2) == -1

    shrunk_at = log.offset + 2  # two task records, then the commit
    log.task_set("orders", [{"t": "0"}, {"t": "1"}])
    snapshot = log.state.snapshot()
    assert (snapshot.removal_offset("orders", 1), snapshot.removal_offset("orders", 2)) == (-1, shrunk_at)

    stopped_at = log.commit("orders", 0)
    assert [log.state.snapshot().removal_offset("orders", n) for n in range(3)] == [stopped_at, stopped_at, shrunk_at]

    deleted_at = log.connector("orders", None)
    log.connector("orders", {"v": "2"})
    snapshot = log.state.snapshot()
    assert snapshot.removal_offset("orders") == deleted_at
    assert [snapshot.removal_offset("orders", n) for n in range(4)] == [deleted_at] * 4
    assert snapshot.removal_offset("never-deleted") == -1


def test_an_incomplete_task_set_removes_the_tasks_it_had(log: Log) -> None:
    log.connector("orders", {"v": "1"})
    log.task_set("orders", [{"t": "0"}])
    incomplete_at = log.commit("orders", 2)

    assert log.state.snapshot().removal_offset("orders", 0) == incomplete_at
