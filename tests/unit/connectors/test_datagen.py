"""Datagen connector and task, driven directly with a small fake task context."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import pytest

import connectors.datagen.task as datagen_task
from connect.api import ConfigError, ConnectError, SourceRecord, Struct
from connect.api.data import BYTES_SCHEMA, STRING_SCHEMA
from connect.testing import FakeSourceTaskContext
from connectors.datagen.connector import DatagenConnector
from connectors.datagen.schemas import QUICKSTARTS
from connectors.datagen.task import DatagenTask


@pytest.fixture(autouse=True)
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished task idles 0.05 s per poll instead of 1 s, so draining tasks in tests stays quick."""
    monkeypatch.setattr(datagen_task, "_MAX_POLL_WAIT_S", 0.05)


def task_configs(max_tasks: int = 1, /, **props: str) -> list[dict[str, str]]:
    connector = DatagenConnector()
    connector.start({"kafka.topic": "gen", **props})
    return connector.task_configs(max_tasks)


def start_task(config: Mapping[str, str], stored: Mapping[int, Mapping[str, Any]] | None = None) -> DatagenTask:
    task = DatagenTask()
    task.initialize(
        FakeSourceTaskContext(offsets=[({"task": number}, offset) for number, offset in (stored or {}).items()])
    )
    task.start(config)
    return task


def drain(task: DatagenTask, limit: int = 100_000) -> list[SourceRecord]:
    """Every record the task makes until it has finished its share (poll returns None)."""
    records: list[SourceRecord] = []
    while (batch := task.poll()) is not None:
        records += batch
        assert len(records) <= limit, "the task does not stop"
    return records


def take(task: DatagenTask, count: int) -> list[SourceRecord]:
    records: list[SourceRecord] = []
    while len(records) < count:
        records += task.poll() or []
    return records[:count]


def comparable(record: SourceRecord) -> tuple[Any, ...]:
    """A record without its generation time (the only field that depends on the clock)."""
    value = record.value
    if isinstance(value, Struct):
        time_fields = {"viewtime", "ordertime"}
        value = tuple((k, v) for k, v in value.items() if k not in time_fields)
    return (record.key, record.source_partition, record.source_offset, record.value_schema, value)


def test_records_carry_task_and_sequence_in_key_offset_and_value() -> None:
    [config] = task_configs(quickstart="sequence", seed="1", **{"payload.size": "12"})
    before = time.time_ns() // 1_000_000
    records = take(start_task(config), 3)
    after = time.time_ns() // 1_000_000
    assert [r.key for r in records] == ["0-0", "0-1", "0-2"]
    assert [r.source_offset for r in records] == [{"seq": 0}, {"seq": 1}, {"seq": 2}]
    assert all(r.source_partition == {"task": 0} and r.topic == "gen" for r in records)
    assert all(r.key_schema == STRING_SCHEMA for r in records)
    assert all(r.timestamp is not None and before <= r.timestamp <= after for r in records)
    assert [(r.value.get("seq"), r.value.get("task")) for r in records] == [(0, 0), (1, 0), (2, 0)]
    assert all(len(r.value.get("payload")) == 12 for r in records)


@pytest.mark.parametrize("quickstart", ["users", "pageviews", "orders", "sequence"])
def test_struct_quickstarts_make_valid_structs(quickstart: str) -> None:
    [config] = task_configs(quickstart=quickstart, seed="3")
    for record in take(start_task(config), 50):
        value = record.value
        assert isinstance(value, Struct)
        assert value.schema is record.value_schema
        value.validate()
        for field in value.schema.fields:
            assert value.get(field.name) is not None, field.name
        assert f"{value.get('task')}-{value.get('seq')}" == record.key


def test_payload_quickstart_makes_raw_bytes_of_the_configured_size() -> None:
    for size in (0, 100, 1024):
        [config] = task_configs(quickstart="payload", **{"payload.size": str(size)})
        records = take(start_task(config), 2000)
        assert all(r.value_schema == BYTES_SCHEMA and isinstance(r.value, bytes) for r in records)
        assert {len(r.value) for r in records} == {size}
    distinct = {r.value for r in records}
    assert len(distinct) > 500, "payloads should vary from record to record"


def test_same_seed_gives_the_same_records_and_another_seed_does_not() -> None:
    for quickstart in QUICKSTARTS:
        [config] = task_configs(quickstart=quickstart, seed="42")
        first = [comparable(r) for r in take(start_task(config), 20)]
        again = [comparable(r) for r in take(start_task(config), 20)]
        assert first == again, quickstart
        [other] = task_configs(quickstart=quickstart, seed="43")
        assert [comparable(r) for r in take(start_task(other), 20)] != first, quickstart


def test_max_records_is_split_exactly_across_tasks() -> None:
    configs = task_configs(3, **{"max.records": "10"})
    per_task = [drain(start_task(config)) for config in configs]
    assert [len(records) for records in per_task] == [4, 3, 3]
    for task, records in enumerate(per_task):
        assert [r.key for r in records] == [f"{task}-{seq}" for seq in range(len(records))]
    assert len({r.key for records in per_task for r in records}) == 10


def test_no_more_tasks_than_records() -> None:
    assert [c["datagen.task.id"] for c in task_configs(5, **{"max.records": "2"})] == ["0", "1"]
    assert len(task_configs(4)) == 4


def test_a_task_respects_batch_size_and_stops_at_its_share() -> None:
    [config] = task_configs(**{"max.records": "25", "batch.size": "10"})
    task = start_task(config)
    assert [len(task.poll() or []) for _ in range(3)] == [10, 10, 5]
    assert task.poll() is None


def test_a_restarted_task_continues_after_its_stored_offset() -> None:
    [config] = task_configs(quickstart="users", seed="9", **{"max.records": "10"})
    uninterrupted = drain(start_task(config))
    resumed = drain(start_task(config, stored={0: {"seq": 5}}))
    assert [r.source_offset for r in resumed] == [{"seq": s} for s in range(6, 10)]
    assert [comparable(r) for r in resumed] == [comparable(r) for r in uninterrupted[6:]]


def test_a_task_with_its_whole_share_stored_makes_nothing() -> None:
    [config] = task_configs(**{"max.records": "3"})
    assert drain(start_task(config, stored={0: {"seq": 2}})) == []


def test_a_stored_offset_of_the_wrong_type_fails_the_task() -> None:
    [config] = task_configs()
    with pytest.raises(ConnectError, match="non-integer"):
        start_task(config, stored={0: {"seq": "5"}})


def test_rate_limit_is_respected_and_split_across_tasks() -> None:
    configs = task_configs(2, **{"records.per.second": "400"})
    assert [float(c["datagen.task.records.per.second"]) for c in configs] == [200.0, 200.0]
    task = start_task(configs[0])
    polls = 0
    count = 0
    started = time.monotonic()
    deadline = started + 0.5
    while time.monotonic() < deadline:
        count += len(task.poll() or [])
        polls += 1
    elapsed = time.monotonic() - started
    assert 0.7 * 200 * elapsed <= count <= 1.3 * 200 * elapsed + 2
    assert polls <= count + 5, "an empty poll should wait for the next record, not spin"


def test_stop_ends_a_rate_limited_poll_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datagen_task, "_MAX_POLL_WAIT_S", 1.0)
    [config] = task_configs(**{"records.per.second": "0.2"})
    task = start_task(config)
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(task.poll()))
    thread.start()
    thread.join(0.1)
    assert thread.is_alive(), "the poll should be waiting for the next record"
    started = time.monotonic()
    task.stop()
    thread.join(5)
    assert not thread.is_alive()
    assert time.monotonic() - started < 0.5
    assert result == [None]


def test_connector_validation_reports_bad_keys() -> None:
    errors = {v.name: v.error_messages for v in DatagenConnector().validate({"quickstart": "nope"})}
    assert errors["kafka.topic"] == ['Missing required configuration "kafka.topic" which has no default value.']
    assert errors["quickstart"] and "users" in errors["quickstart"][0]
    listed = {v.name: v.error_messages for v in DatagenConnector().validate({"kafka.topic": "a,b"})}
    assert "single topic" in listed["kafka.topic"][0]
    with pytest.raises(ConfigError):
        DatagenConnector().start({"kafka.topic": "t", "max.records": "-2"})


def test_connector_validates_offsets_to_alter() -> None:
    connector = DatagenConnector()
    assert connector.alter_offsets({}, [({"task": 0}, {"seq": 7}), ({"task": 1}, None)])
    for partition, offset in [({"task": 0}, {"seq": -1}), ({"task": 0}, {"position": 1}), ({"file": 0}, None)]:
        with pytest.raises(ConnectError):
            connector.alter_offsets({}, [(partition, offset)])


def test_poll_batches_gives_one_batch_per_poll_with_the_last_sequence_as_its_offset() -> None:
    [config] = task_configs(quickstart="sequence", seed="1", **{"batch.size": "4", "max.records": "6"})
    task = start_task(config)
    first = task.poll_batches()
    assert first is not None and len(first) == 1
    (batch,) = first
    assert (batch.topic, batch.source_partition, batch.last_source_offset) == ("gen", {"task": 0}, {"seq": 3})
    assert list(batch.keys or []) == ["0-0", "0-1", "0-2", "0-3"]
    assert [r.source_offset for r in batch] == [{"seq": s} for s in range(4)]
    (rest,) = task.poll_batches() or []
    assert rest.last_source_offset == {"seq": 5} and len(rest) == 2
