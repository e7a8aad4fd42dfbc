"""The Worker with real plug-ins and fake Kafka clients: connector and task lifecycles and statuses."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from connect.api import (
    ConfigDef,
    ConfigError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceConnector,
    SourceRecord,
    SourceRecordBatch,
    SourceTask,
    TopicPartition,
)
from connect.api.errors import NotFoundError
from connect.converters import JsonConverter, SimpleHeaderConverter, StringConverter
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.info import ConnectorType
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.task_process import ProcessWorkerTask
from connect.runtime.worker import TooManyTasksError, Worker
from connect.transforms.filter import Filter
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeClients

EVENTS: list[str] = []


class ClosingConverter(StringConverter):
    """Records in EVENTS that it was closed."""

    def close(self) -> None:
        EVENTS.append("converter closed")


class CountingSourceTask(SourceTask):
    """Emits `count` records (or fails in poll if `fail` is set), then idles."""

    def start(self, props: Mapping[str, str]) -> None:
        self.props = props
        self.next = int(props.get("first", "0"))
        self.count = int(props.get("count", "3"))
        stored = self.context.offset_reader.offset({"task": props["task"]})
        if stored is not None:
            self.next = int(stored["n"]) + 1
        self.idle = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self.props.get("fail"):
            raise RuntimeError(self.props["fail"])
        if self.next >= self.count:
            self.idle.wait(0.01)
            return None
        record = SourceRecord({"task": self.props["task"]}, {"n": self.next}, "out", value={"n": self.next})
        self.next += 1
        return [record]

    def stop(self) -> None:
        self.idle.set()


class CountingSource(SourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        EVENTS.append(f"start:{props['name']}")
        if props.get("fail.start"):
            raise RuntimeError("cannot reach the source system")
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return CountingSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        n = int(self.props.get("generate.tasks", max_tasks))
        return [{"task": str(i), **{k: v for k, v in self.props.items() if k in ("count", "fail")}} for i in range(n)]

    def stop(self) -> None:
        EVENTS.append("stop")

    def config(self) -> ConfigDef:
        return ConfigDef()


class BatchCountingSourceTask(CountingSourceTask):
    def poll_batches(self) -> list[SourceRecordBatch] | None:
        records = self.poll()
        return SourceRecordBatch.of_records(records) if records else None


class BatchCountingSource(CountingSource):
    def task_class(self) -> type[SourceTask]:
        return BatchCountingSourceTask


class BatchCommittingSourceTask(BatchCountingSourceTask):
    def commit_batch(self, batch: SourceRecordBatch, offsets: Sequence[int]) -> None:
        pass


class BatchCommittingSource(CountingSource):
    def task_class(self) -> type[SourceTask]:
        return BatchCommittingSourceTask


class CollectingSinkTask(SinkTask):
    received: list[SinkRecord]

    def start(self, props: Mapping[str, str]) -> None:
        self.props = props
        self.received = []

    def put(self, records: Sequence[SinkRecord]) -> None:
        self.received.extend(records)

    def stop(self) -> None:
        pass


class CollectingSink(SinkConnector):
    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SinkTask]:
        return CollectingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{} for _ in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()


class Fixture:
    def __init__(self, **worker_props: str) -> None:
        EVENTS.clear()
        props = {
            "key.converter": "StringConverter",
            "value.converter": "JsonConverter",
            "value.converter.schemas.enable": "false",
            "offset.flush.interval.ms": "20",
            "task.shutdown.graceful.timeout.ms": "2000",
            **worker_props,
        }
        self.status = MemoryStatusStore("w1:8083")
        self.store = MemoryOffsetStore()
        config = WorkerConfig.from_props(props)
        self.clients = FakeClients(partitions=[TopicPartition("in", 0)], policy=config.client_config_override_policy)
        self.worker = Worker(
            worker_id="w1:8083",
            config=config,
            plugins=PluginRegistry.of(
                CountingSource,
                BatchCountingSource,
                BatchCommittingSource,
                Filter,
                CollectingSink,
                StringConverter,
                JsonConverter,
                SimpleHeaderConverter,
                ClosingConverter,
            ),
            offset_store=self.store,
            status=self.status,
            clients=self.clients,
        )
        self.worker.start()
        self.reconfigure_requests: list[str] = []

    def start_source(
        self, name: str = "src", target: TargetState = TargetState.STARTED, extra: Mapping[str, str] | None = None
    ) -> None:
        extra = extra or {}
        config = {"name": name, "connector.class": "CountingSource", "tasks.max": "2", **extra}
        self.worker.start_connector(name, config, target, self.reconfigure_requests.append)

    def start_source_tasks(self, name: str = "src", **extra: str) -> list[ConnectorTaskId]:
        config = {"name": name, "connector.class": "CountingSource", "tasks.max": "2", **extra}
        ids = []
        for i, task_config in enumerate(self.worker.connector_task_configs(name, 2)):
            task_id = ConnectorTaskId(name, i)
            self.worker.start_task(task_id, config, task_config, TargetState.STARTED)
            ids.append(task_id)
        return ids

    def task_state(self, task_id: ConnectorTaskId) -> State | None:
        status = self.status.task_status(task_id)
        return None if status is None else status.state

    def connector_state(self, name: str = "src") -> State | None:
        status = self.status.connector_status(name)
        return None if status is None else status.state


@pytest.fixture
def fx() -> Any:
    fixture = Fixture()
    yield fixture
    fixture.worker.stop()


def test_a_started_connector_is_running_and_its_task_configs_name_the_task_class(fx: Fixture) -> None:
    fx.start_source(extra={"count": "5"})
    assert fx.connector_state() is State.RUNNING
    assert fx.worker.is_running("src")
    configs = fx.worker.connector_task_configs("src", 2)
    assert configs == [
        {"task": "0", "count": "5", "task.class": f"{__name__}.CountingSourceTask"},
        {"task": "1", "count": "5", "task.class": f"{__name__}.CountingSourceTask"},
    ]
    assert fx.worker.connector_names() == {"src"}


def test_an_unknown_connector_class_is_a_config_error(fx: Fixture) -> None:
    with pytest.raises(ConfigError):
        fx.worker.start_connector("x", {"name": "x", "connector.class": "Nope"}, TargetState.STARTED, print)


def test_a_connector_that_fails_to_start_is_failed_with_its_trace(fx: Fixture) -> None:
    fx.start_source(extra={"fail.start": "yes"})
    status = fx.status.connector_status("src")
    assert status is not None and status.state is State.FAILED
    assert status.trace is not None and "cannot reach the source system" in status.trace
    assert not fx.worker.is_running("src")


def test_too_many_task_configs_fail_the_connector(fx: Fixture) -> None:
    fx.start_source(extra={"generate.tasks": "3"})
    with pytest.raises(TooManyTasksError, match="has generated 3 tasks, which is greater than 2"):
        fx.worker.connector_task_configs("src", 2)
    assert fx.connector_state() is State.FAILED


def test_task_configs_of_an_unknown_connector_is_not_found(fx: Fixture) -> None:
    with pytest.raises(NotFoundError):
        fx.worker.connector_task_configs("ghost", 1)


def test_connectors_started_paused_or_stopped_are_not_started(fx: Fixture) -> None:
    fx.start_source("p", TargetState.PAUSED)
    fx.start_source("s", TargetState.STOPPED)
    assert fx.connector_state("p") is State.PAUSED
    assert fx.connector_state("s") is State.STOPPED
    assert EVENTS == []
    fx.worker.set_target_state("p", TargetState.STARTED)
    assert fx.connector_state("p") is State.RUNNING
    assert EVENTS == ["start:p"]


def test_topic_use_is_reported_with_the_task_that_used_it(fx: Fixture, monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[tuple[ConnectorTaskId, str]] = []
    monkeypatch.setattr(fx.status, "on_topic_used", lambda task, topic: used.append((task, topic)))
    fx.start_source(extra={"count": "1"})
    fx.start_source_tasks(count="1")
    wait_until(lambda: len(used) == 2, what="both tasks' first record")
    assert sorted(used) == [(ConnectorTaskId("src", 0), "out"), (ConnectorTaskId("src", 1), "out")]


def test_source_tasks_produce_and_store_offsets(fx: Fixture) -> None:
    fx.start_source(extra={"count": "3"})
    ids = fx.start_source_tasks(count="3")
    wait_until(lambda: all(fx.task_state(t) is State.RUNNING for t in ids), what="tasks RUNNING")
    wait_until(lambda: len(fx.store.snapshot()) == 2, what="offsets of both tasks")
    produced = fx.clients.producers[ids[0]]
    wait_until(lambda: len(produced.sent) == 3, what="three records")
    assert [p.value for p in produced.sent] == [b'{"n":0}', b'{"n":1}', b'{"n":2}']
    assert fx.worker.active_topics("src") == {"out"}
    assert fx.status.active_topics("src") == {"out"}
    assert fx.store.snapshot()[b'["src",{"task":"0"}]'] == b'{"n":2}'


def start_and_build(fx: Fixture, *configs: dict[str, str]) -> None:
    """Start task 0 of each connector config; return once each task's producer was made."""
    for config in configs:
        task = ConnectorTaskId(config["name"], 0)
        fx.worker.start_task(task, config, {"task": "0", "count": "1"}, TargetState.STARTED)
        wait_until(lambda task=task: task in fx.clients.producers, what=f"{task} built")  # type: ignore[misc]


def test_only_tasks_that_send_columns_get_a_producer_for_batch_calls(fx: Fixture) -> None:
    batch_config = {"name": "b", "connector.class": "BatchCountingSource", "tasks.max": "1"}
    transformed = {**batch_config, "name": "t", "transforms": "f", "transforms.f.type": "Filter"}
    records = {**batch_config, "name": "r", "connector.class": "CountingSource"}
    start_and_build(fx, batch_config, transformed, records)
    assert fx.clients.batch_calls == {
        ConnectorTaskId("b", 0): True,
        ConnectorTaskId("t", 0): False,  # transforms need records
        ConnectorTaskId("r", 0): False,  # records one by one
    }


def test_tasks_that_take_each_batchs_offsets_and_tolerate_no_failure_get_a_gap_less_producer(fx: Fixture) -> None:
    committing = {"name": "c", "connector.class": "BatchCommittingSource", "tasks.max": "1"}
    tolerant = {**committing, "name": "t", "errors.tolerance": "all"}
    counting = {**committing, "name": "b", "connector.class": "BatchCountingSource"}
    start_and_build(fx, committing, tolerant, counting)
    assert fx.clients.gapless == {
        ConnectorTaskId("c", 0): True,
        ConnectorTaskId("t", 0): False,  # a tolerated failure must stay one record's, not end the producer
        ConnectorTaskId("b", 0): False,  # no offsets wanted: failure reports only
    }


def test_a_restarted_task_resumes_from_its_stored_offset(fx: Fixture) -> None:
    fx.start_source(extra={"count": "3"})
    [first, _] = fx.start_source_tasks(count="3")
    wait_until(lambda: fx.store.snapshot().get(b'["src",{"task":"0"}]') == b'{"n":2}', what="offset")
    fx.worker.stop_tasks([first])
    assert fx.task_state(first) is State.UNASSIGNED
    config = {"name": "src", "connector.class": "CountingSource", "tasks.max": "2"}
    fx.worker.start_task(first, config, {"task": "0", "count": "5"}, TargetState.STARTED)
    wait_until(lambda: len(fx.clients.producers[first].sent) == 2, what="records 3 and 4")
    assert [p.value for p in fx.clients.producers[first].sent] == [b'{"n":3}', b'{"n":4}']


def test_a_failing_task_is_failed_with_its_trace_and_the_others_keep_running(fx: Fixture) -> None:
    fx.start_source(extra={"count": "1000000"})
    config = {"name": "src", "connector.class": "CountingSource", "tasks.max": "2"}
    bad, good = ConnectorTaskId("src", 0), ConnectorTaskId("src", 1)
    fx.worker.start_task(bad, config, {"task": "0", "fail": "disk on fire"}, TargetState.STARTED)
    fx.worker.start_task(good, config, {"task": "1", "count": "1000000"}, TargetState.STARTED)
    wait_until(lambda: fx.task_state(bad) is State.FAILED, what="FAILED")
    status = fx.status.task_status(bad)
    assert status is not None and status.trace is not None and "RuntimeError: disk on fire" in status.trace
    sent = len(fx.clients.producers[good].sent)
    wait_until(lambda: len(fx.clients.producers[good].sent) > sent + 10, what="the other task producing")
    assert fx.worker.is_running(good) and not fx.worker.is_running(bad)
    assert fx.worker.task_ids() == {bad, good}


def test_pause_and_resume_reach_connector_and_tasks(fx: Fixture) -> None:
    fx.start_source(extra={"count": "1000000"})
    [t0, t1] = fx.start_source_tasks(count="1000000")
    wait_until(lambda: fx.task_state(t0) is State.RUNNING and fx.task_state(t1) is State.RUNNING, what="RUNNING")
    fx.worker.set_target_state("src", TargetState.PAUSED)
    assert fx.connector_state() is State.PAUSED
    wait_until(lambda: fx.task_state(t0) is State.PAUSED and fx.task_state(t1) is State.PAUSED, what="PAUSED")
    assert EVENTS == ["start:src", "stop"]
    fx.worker.set_target_state("src", TargetState.STARTED)
    assert fx.connector_state() is State.RUNNING
    wait_until(lambda: fx.task_state(t0) is State.RUNNING and fx.task_state(t1) is State.RUNNING, what="RUNNING")


def test_a_task_whose_config_cannot_be_built_is_failed(fx: Fixture) -> None:
    config = {"name": "src", "connector.class": "CountingSource", "value.converter": "NoSuchConverter"}
    task_id = ConnectorTaskId("src", 0)
    fx.worker.start_task(task_id, config, {"task": "0"}, TargetState.STARTED)
    status = fx.status.task_status(task_id)
    assert status is not None and status.state is State.FAILED
    assert status.trace is not None and "NoSuchConverter" in status.trace
    assert fx.worker.task_ids() == set()


def test_a_task_process_that_cannot_be_started_fails_its_task(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: ProcessWorkerTask) -> None:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(ProcessWorkerTask, "start_thread", refuse)
    fixture = Fixture(**{"task.isolation": "process"})
    try:
        task_id = ConnectorTaskId("src", 0)
        fixture.worker.start_task(
            task_id, {"name": "src", "connector.class": "CountingSource"}, {"task": "0"}, TargetState.STARTED
        )
        status = fixture.status.task_status(task_id)
        assert status is not None and status.state is State.FAILED
        assert status.trace is not None and "Resource temporarily unavailable" in status.trace
        assert fixture.worker.task_ids() == set()
    finally:
        fixture.worker.stop()


def test_client_overrides_forbidden_by_the_policy_fail_the_task() -> None:
    fixture = Fixture(**{"connector.client.config.override.policy": "None"})
    try:
        config = {"name": "src", "connector.class": "CountingSource", "producer.override.linger.ms": "100"}
        task_id = ConnectorTaskId("src", 0)
        fixture.worker.start_task(task_id, config, {"task": "0"}, TargetState.STARTED)
        status = fixture.status.task_status(task_id)
        assert status is not None and status.state is State.FAILED
        assert status.trace is not None and "producer.override.linger.ms" in status.trace
    finally:
        fixture.worker.stop()


def test_what_a_failed_task_build_had_made_is_closed_again() -> None:
    # The producer is refused after the converters were configured: they must not stay open.
    fixture = Fixture(**{"connector.client.config.override.policy": "None"})
    try:
        config = {
            "name": "src",
            "connector.class": "CountingSource",
            "key.converter": "ClosingConverter",
            "value.converter": "ClosingConverter",
            "producer.override.linger.ms": "100",
        }
        task_id = ConnectorTaskId("src", 0)
        fixture.worker.start_task(task_id, config, {"task": "0"}, TargetState.STARTED)
        status = fixture.status.task_status(task_id)
        assert status is not None and status.state is State.FAILED
        assert EVENTS.count("converter closed") == 2
    finally:
        fixture.worker.stop()


def test_sink_tasks_get_topics_and_their_dead_letter_queue_is_created(fx: Fixture) -> None:
    config = {
        "name": "snk",
        "connector.class": "CollectingSink",
        "topics": "in",
        "tasks.max": "1",
        "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": "snk-dlq",
    }
    fx.worker.start_connector("snk", config, TargetState.STARTED, print)
    [task_config] = fx.worker.connector_task_configs("snk", 1)
    assert task_config["topics"] == "in"
    task_id = ConnectorTaskId("snk", 0)
    fx.worker.start_task(task_id, config, task_config, TargetState.STARTED)
    wait_until(lambda: task_id in fx.clients.consumers, what="consumer")
    consumer = fx.clients.consumers[task_id]
    consumer.append("in", 0, b'{"a": 1}')
    consumer.append("in", 0, b"not json")
    wait_until(lambda: consumer.committed_offsets.get(TopicPartition("in", 0)) == 2, what="commit past the bad one")
    assert consumer.subscription == (["in"], None)
    assert [spec.name for spec in fx.clients.fake_admin.created] == ["snk-dlq"]
    assert [p.value for p in fx.clients.dlq_producers[task_id].sent] == [b"not json"]
    assert fx.worker.active_topics("snk") == {"in"}


def test_connector_type_comes_from_the_class(fx: Fixture) -> None:
    assert fx.worker.connector_type({"connector.class": "CountingSource"}) is ConnectorType.SOURCE
    assert fx.worker.connector_type({"connector.class": "CollectingSink"}) is ConnectorType.SINK
    assert fx.worker.connector_type({}) is ConnectorType.UNKNOWN


def test_stop_stops_everything_and_reports_unassigned() -> None:
    fixture = Fixture()
    fixture.start_source(extra={"count": "10"})
    ids = fixture.start_source_tasks(count="10")
    wait_until(lambda: all(fixture.task_state(t) is State.RUNNING for t in ids), what="RUNNING")
    fixture.worker.stop()
    assert fixture.worker.task_ids() == set() and fixture.worker.connector_names() == set()
    assert all(fixture.task_state(t) is State.UNASSIGNED for t in ids)
    assert fixture.connector_state() is State.UNASSIGNED
    assert EVENTS[-1] == "stop"


def test_connector_context_requests_reach_the_herder_callback(fx: Fixture) -> None:
    fx.start_source()
    connector = fx.worker._connector("src").connector
    connector.context.request_task_reconfiguration()
    assert fx.reconfigure_requests == ["src"]
    connector.context.raise_error(RuntimeError("lost the lease"))
    status = fx.status.connector_status("src")
    assert status is not None and status.state is State.FAILED
    assert status.trace is not None and "lost the lease" in status.trace


def test_source_connectors_can_read_offsets(fx: Fixture) -> None:
    fx.store.set({b'["src",{"task":"0"}]': b'{"n":7}'})
    fx.start_source()
    connector = fx.worker._connector("src").connector
    assert isinstance(connector, SourceConnector)
    assert connector.context.offset_reader.offset({"task": "0"}) == {"n": 7}


def test_a_connectors_own_converter_uses_the_connectors_sub_configs(fx: Fixture) -> None:
    # The worker's JsonConverter has schemas disabled; the connector names its own with schemas on.
    overrides = {"value.converter": "JsonConverter", "value.converter.schemas.enable": "true"}
    fx.start_source(extra={"count": "1", **overrides})
    [task_id, _] = fx.start_source_tasks(count="1", **overrides)
    wait_until(lambda: len(fx.clients.producers[task_id].sent) == 1, what="one record")
    value = fx.clients.producers[task_id].sent[0].value
    assert value is not None and value.startswith(b'{"schema":') and b'"payload":{"n":0}' in value
