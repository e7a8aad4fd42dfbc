"""Source topic creation (KIP-158) without Kafka: which group's settings a topic gets, how the `topic.creation.*`
keys are validated, and how source task runners and the Worker create topics through an admin client."""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from connect.api import ConfigDef, ConfigError, ConnectError, RetriableError, SourceConnector, SourceRecord, SourceTask
from connect.converters import JsonConverter, SimpleHeaderConverter, StringConverter
from connect.runtime.config.connector import (
    TopicCreationRules,
    topic_creation_rules,
    uses_topic_creation,
)
from connect.runtime.config.connector.keys import TransactionBoundary
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import TopicSpec
from connect.runtime.offsets import OffsetStorageReader
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.tasks.topic_creation import TopicCreation
from connect.runtime.tasks.worker_eos_source_task import WorkerEosSourceTask
from connect.runtime.tasks.worker_source_task import WorkerSourceTask
from connect.runtime.validation import invalid_config_message, validate_connector_config
from connect.runtime.worker import Worker
from tests.support.pipelines import record_pipeline
from tests.support.transaction_fakes import OFFSETS_TOPIC, FakeTransactionalProducer, FakeTransactionLog
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeClients, FakeProducer

TASK = ConnectorTaskId("src", 0)
SIZES = {"topic.creation.default.replication.factor": "3", "topic.creation.default.partitions": "6"}
GROUPS = {
    **SIZES,
    "topic.creation.groups": "compacted,audit",
    "topic.creation.compacted.include": r"state-.*, .*\.changelog",
    "topic.creation.compacted.exclude": "state-old.*",
    "topic.creation.compacted.partitions": "1",
    "topic.creation.compacted.cleanup.policy": "compact",
    "topic.creation.audit.include": ".*",
    "topic.creation.audit.exclude": "tmp-.*",
    "topic.creation.audit.replication.factor": "-1",
    "topic.creation.audit.retention.ms": "-1",
    "topic.creation.default.compression.type": "lz4",
}


def group_of(rules: TopicCreationRules, topic: str) -> str:
    return rules.group_for(topic).name


# -- which group a topic gets -----------------------------------------------------------------------


def test_any_topic_creation_key_asks_for_topic_creation() -> None:
    assert not uses_topic_creation({"name": "src", "topic": "t"})
    assert uses_topic_creation({"topic.creation.groups": ""})
    assert uses_topic_creation(SIZES)


def test_a_topic_gets_the_first_listed_group_that_includes_and_does_not_exclude_it() -> None:
    rules = topic_creation_rules(GROUPS)
    assert group_of(rules, "state-users") == "compacted"
    assert group_of(rules, "orders.changelog") == "compacted"
    # Excluded by `compacted`: the next group in the listed order takes it.
    assert group_of(rules, "state-old-users") == "audit"
    # Excluded by every listed group: the default group, which takes everything.
    assert group_of(rules, "tmp-scratch") == "default"


def test_patterns_match_the_whole_topic_name() -> None:
    rules = topic_creation_rules({**SIZES, "topic.creation.groups": "g", "topic.creation.g.include": "orders"})
    assert group_of(rules, "orders") == "g"
    assert group_of(rules, "orders-eu") == "default"
    assert group_of(rules, "eu-orders") == "default"


def test_groups_take_the_default_sizes_unless_set_and_keep_their_own_topic_configs() -> None:
    rules = topic_creation_rules(GROUPS)
    compacted, audit = rules.groups
    assert (compacted.replication_factor, compacted.partitions) == (3, 1)
    assert (audit.replication_factor, audit.partitions) == (-1, 6)
    assert (rules.default.replication_factor, rules.default.partitions) == (3, 6)
    assert compacted.topic_configs == {"cleanup.policy": "compact"}
    assert audit.topic_configs == {"retention.ms": "-1"}
    assert rules.default.topic_configs == {"compression.type": "lz4"}


def test_the_default_group_ignores_include_exclude_and_a_listing_of_its_own() -> None:
    rules = topic_creation_rules(
        {
            **SIZES,
            "topic.creation.groups": "default",
            "topic.creation.default.include": "only-this",
            "topic.creation.default.exclude": ".*",
        }
    )
    assert rules.groups == ()
    assert rules.default.matches("anything") and group_of(rules, "anything") == "default"
    assert rules.default.topic_configs == {}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"topic.creation.groups": "g", "topic.creation.g.include": "x"},
            'Missing required configuration "topic.creation.default.replication.factor" which has no default value.',
        ),
        (
            {"topic.creation.default.replication.factor": "1"},
            'Missing required configuration "topic.creation.default.partitions" which has no default value.',
        ),
        (
            {**SIZES, "topic.creation.default.partitions": "0"},
            "Invalid value 0 for configuration topic.creation.default.partitions: Number of partitions must be "
            "positive, or -1 to use the broker's default",
        ),
        (
            {**SIZES, "topic.creation.default.replication.factor": "0"},
            "Invalid value 0 for configuration topic.creation.default.replication.factor: Replication factor must be "
            "positive and not larger than the number of brokers in the Kafka cluster, or -1 to use the broker's "
            "default",
        ),
        (
            {**SIZES, "topic.creation.default.replication.factor": "-2"},
            "Invalid value -2 for configuration topic.creation.default.replication.factor: Replication factor must "
            "be positive and not larger than the number of brokers in the Kafka cluster, or -1 to use the broker's "
            "default",
        ),
        (
            {**SIZES, "topic.creation.groups": "g", "topic.creation.g.partitions": "2"},
            'Missing required configuration "topic.creation.g.include" which has no default value.',
        ),
        (
            {**SIZES, "topic.creation.groups": "g", "topic.creation.g.include": " "},
            "Invalid value [] for configuration topic.creation.g.include: Topic creation group 'g' needs at least "
            "one regular expression to include topics",
        ),
        (
            {**SIZES, "topic.creation.groups": "g", "topic.creation.g.include": "(unclosed"},
            "Invalid value [(unclosed] for configuration topic.creation.g.include: Syntax error in regular "
            "expression: missing ), unterminated subpattern at position 0",
        ),
    ],
)
def test_invalid_settings_are_config_errors(config: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        topic_creation_rules(config)
    assert str(caught.value) == message


# -- validation -----------------------------------------------------------------------------------------


class OrdersSource(SourceConnector):
    """Writes to the topic `topic` names."""

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def stop(self) -> None:
        pass

    def task_class(self) -> type[SourceTask]:
        return OrdersTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"topic": self.props["topic"]}]

    def config(self) -> ConfigDef:
        return ConfigDef()


class OrdersTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.sent = False
        self.idle = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self.sent:
            self.idle.wait(0.01)
            return None
        self.sent = True
        return [SourceRecord({"p": 0}, {"n": 0}, self.topic, value={"n": 0})]

    def stop(self) -> None:
        self.idle.set()


REGISTRY = PluginRegistry.of(OrdersSource, StringConverter, JsonConverter, SimpleHeaderConverter)
SOURCE = {"name": "orders", "connector.class": "OrdersSource", "topic": "orders"}


def errors_of(config: Mapping[str, str | None], **kw: Any) -> dict[str, list[str]]:
    infos = validate_connector_config(config, REGISTRY, **kw)
    return {info.value.name: info.value.errors for info in infos.configs if info.value and info.value.errors}


def test_validate_shows_the_topic_creation_groups_a_config_uses() -> None:
    infos = validate_connector_config({**SOURCE, **GROUPS}, REGISTRY)
    assert infos.error_count == 0
    assert infos.groups[-3:] == ["Topic Creation: default", "Topic Creation: compacted", "Topic Creation: audit"]
    entries = {info.definition.name: info for info in infos.configs if info.definition}
    default_rf = entries["topic.creation.default.replication.factor"]
    assert default_rf.definition is not None and default_rf.value is not None
    assert (default_rf.definition.type, default_rf.definition.required, default_rf.definition.group) == (
        "SHORT",
        True,
        "Topic Creation: default",
    )
    assert default_rf.value.value == "3"
    assert entries["topic.creation.default.partitions"].definition.type == "INT"  # type: ignore[union-attr]
    # A group's unset sizes show the default group's values as their defaults.
    audit_partitions = entries["topic.creation.audit.partitions"]
    assert audit_partitions.definition is not None and audit_partitions.definition.default_value == "6"
    assert [name for name in entries if name.startswith("topic.creation.compacted.")] == [
        "topic.creation.compacted.include",
        "topic.creation.compacted.exclude",
        "topic.creation.compacted.replication.factor",
        "topic.creation.compacted.partitions",
    ]


def test_validate_adds_nothing_for_a_config_without_topic_creation_keys() -> None:
    infos = validate_connector_config(SOURCE, REGISTRY)
    names = [info.definition.name for info in infos.configs if info.definition]
    assert [name for name in names if name.startswith("topic.creation.")] == ["topic.creation.groups"]  # as Kafka
    assert not any(group.startswith("Topic Creation:") for group in infos.groups)


def test_validate_reports_invalid_topic_creation_settings_and_create_is_refused() -> None:
    config = {
        **SOURCE,
        "topic.creation.groups": "compacted",
        "topic.creation.default.partitions": "0",
        "topic.creation.compacted.replication.factor": "0",
    }
    assert errors_of(config) == {
        "topic.creation.default.replication.factor": [
            'Missing required configuration "topic.creation.default.replication.factor" which has no default value.'
        ],
        "topic.creation.default.partitions": [
            "Invalid value 0 for configuration topic.creation.default.partitions: Number of partitions must be "
            "positive, or -1 to use the broker's default"
        ],
        "topic.creation.compacted.include": [
            'Missing required configuration "topic.creation.compacted.include" which has no default value.'
        ],
        "topic.creation.compacted.replication.factor": [
            "Invalid value 0 for configuration topic.creation.compacted.replication.factor: Replication factor must "
            "be positive and not larger than the number of brokers in the Kafka cluster, or -1 to use the broker's "
            "default"
        ],
    }
    message = invalid_config_message(validate_connector_config(config, REGISTRY))
    assert message is not None
    assert message.startswith("Connector configuration is invalid and contains the following 4 error(s):")


def test_validate_ignores_topic_creation_keys_when_the_worker_does_not_create_topics() -> None:
    config = {**SOURCE, "topic.creation.default.partitions": "0"}
    assert "topic.creation.default.partitions" in errors_of(config)
    assert errors_of(config, topic_creation_enabled=False) == {}


# -- source task runners ----------------------------------------------------------------------------------


class ScriptedAdmin:
    """An admin client over a dict of topics; `failures` are raised by the next calls, in order."""

    def __init__(self, existing: Iterable[str] = ()) -> None:
        self.topics: dict[str, TopicSpec] = {name: TopicSpec(name) for name in existing}
        self.described: list[str] = []
        self.created: list[TopicSpec] = []
        self.failures: list[BaseException] = []
        self.fail_always: BaseException | None = None
        self.created_elsewhere: set[str] = set()  # another task creates these between describe and create
        self.closed = False

    def _maybe_fail(self) -> None:
        if self.fail_always is not None:
            raise self.fail_always
        if self.failures:
            raise self.failures.pop(0)

    def partition_count(self, topic: str, timeout: float = 10.0) -> int | None:
        self.described.append(topic)
        self._maybe_fail()
        spec = self.topics.get(topic)
        return None if spec is None else spec.partitions

    def create_topics(self, topics: Iterable[TopicSpec], timeout: float = 30.0) -> set[str]:
        self._maybe_fail()
        made = set()
        for spec in topics:
            self.created.append(spec)
            if spec.name in self.created_elsewhere:
                self.topics.setdefault(spec.name, TopicSpec(spec.name))
            if spec.name not in self.topics:
                self.topics[spec.name] = spec
                made.add(spec.name)
        return made

    def close(self) -> None:
        self.closed = True


class ScriptedTask(SourceTask):
    def __init__(self) -> None:
        self.script: queue.Queue[list[SourceRecord]] = queue.Queue()

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        try:
            return self.script.get(timeout=0.01)
        except queue.Empty:
            return None

    def stop(self) -> None:
        pass


def rec(line: int, topic: str, value: str = "v") -> SourceRecord:
    return SourceRecord({"file": "a"}, {"line": line}, topic, value=value)


class Runner:
    def __init__(self, admin: ScriptedAdmin, rules: TopicCreationRules | None = None) -> None:
        self.admin = admin
        self.task = ScriptedTask()
        self.status = MemoryStatusStore("worker-1")
        self.store = MemoryOffsetStore()
        self.producer = FakeProducer(failure_reports_only=True)
        self.runner = WorkerSourceTask(
            TASK,
            self.task,
            {},
            self.status,
            TargetState.STARTED,
            producer=self.producer,
            pipeline=record_pipeline(TASK),
            offset_store=self.store,
            offset_flush_interval_ms=60_000,
            offset_flush_timeout_ms=50,
            topic_creation=TopicCreation(rules or topic_creation_rules(GROUPS), admin),
        )

    def state(self) -> State | None:
        status = self.status.task_status(TASK)
        return None if status is None else status.state

    def offset(self) -> Any:
        return OffsetStorageReader("src", self.store).offset({"file": "a"})


def test_the_first_record_to_a_new_topic_creates_it_with_its_groups_settings() -> None:
    r = Runner(ScriptedAdmin())
    r.runner.send_batch([rec(1, "state-users"), rec(2, "tmp-scratch")])
    assert r.admin.created == [
        TopicSpec("state-users", 1, 3, {"cleanup.policy": "compact"}),
        TopicSpec("tmp-scratch", 6, 3, {"compression.type": "lz4"}),
    ]
    r.producer.flush()
    assert [p.topic for p in r.producer.sent] == ["state-users", "tmp-scratch"]


def test_each_topic_is_looked_up_once_per_task_and_existing_ones_are_left_alone() -> None:
    r = Runner(ScriptedAdmin(existing=["orders"]))
    r.runner.send_batch([rec(1, "orders"), rec(2, "state-a"), rec(3, "orders")])
    r.runner.send_batch([rec(4, "state-a"), rec(5, "orders")])
    assert r.admin.described == ["orders", "state-a"]
    assert [spec.name for spec in r.admin.created] == ["state-a"]
    assert r.admin.topics["orders"] == TopicSpec("orders")  # untouched
    r.producer.flush()
    assert len(r.producer.sent) == 5


def test_a_topic_another_task_created_first_is_used_as_it_is() -> None:
    admin = ScriptedAdmin()
    admin.created_elsewhere.add("state-users")
    r = Runner(admin)
    r.runner.send_batch([rec(1, "state-users")])
    assert admin.topics["state-users"] == TopicSpec("state-users")
    assert r.runner.commit_offsets() and r.offset() == {"line": 1}


def test_kafka_not_answering_in_time_is_retried_until_the_topic_exists() -> None:
    admin = ScriptedAdmin()
    admin.failures = [RetriableError("describe timed out"), RetriableError("create timed out")]
    r = Runner(admin)
    r.runner.send_batch([rec(1, "state-users")])
    assert [spec.name for spec in admin.created] == ["state-users"]
    assert admin.described == ["state-users"] * 3  # a create that timed out may have worked: look again
    assert r.runner.commit_offsets() and r.offset() == {"line": 1}


def test_a_topic_that_cannot_be_created_fails_the_task_and_keeps_the_batch_uncommitted() -> None:
    admin = ScriptedAdmin()
    r = Runner(admin)
    r.runner.start_thread()
    wait_until(lambda: r.state() is State.RUNNING, what="RUNNING")
    r.task.script.put([rec(1, "orders")])
    wait_until(lambda: len(r.producer.sent) + len(r.producer.in_flight) == 1, what="the first batch sent")
    admin.failures = [ConnectError("Could not create topic state-x: Broker: Topic authorization failed")]
    r.task.script.put([rec(2, "orders"), rec(3, "state-x"), rec(4, "orders")])
    wait_until(lambda: r.state() is State.FAILED, what="FAILED")
    status = r.status.task_status(TASK)
    assert status is not None and status.trace is not None
    assert "TopicCreationError: Task failed to create new topic state-x" in status.trace
    assert "Topic authorization failed" in status.trace
    assert r.runner.await_stop(5)
    assert r.offset() == {"line": 1}  # not 4: records 3 and 4 were never sent
    assert admin.closed


def test_a_stop_while_kafka_does_not_answer_abandons_the_batch_without_failing_the_task() -> None:
    admin = ScriptedAdmin()
    admin.fail_always = RetriableError("Could not describe topic state-x: timed out")
    r = Runner(admin)
    r.runner.start_thread()
    wait_until(lambda: r.state() is State.RUNNING, what="RUNNING")
    r.task.script.put([rec(1, "state-x")])
    wait_until(lambda: len(admin.described) >= 2, what="a retry")
    r.runner.stop()
    assert r.runner.await_stop(5)
    assert r.state() is State.UNASSIGNED
    assert r.producer.sent == [] and r.producer.in_flight == []
    assert r.offset() is None
    assert admin.closed


def test_a_record_that_fails_conversion_keeps_its_whole_batch_uncommitted() -> None:
    class Refusing(StringConverter):
        def from_connect_data(self, topic: str, schema: Any, value: Any, headers: Any = ()) -> bytes | None:
            if value == "bad":
                raise ConnectError("cannot convert")
            return super().from_connect_data(topic, schema, value, headers)

    r = Runner(ScriptedAdmin(existing=["orders"]))
    refusing = Refusing()
    refusing.configure({}, False)
    r.runner.pipeline = dataclasses.replace(r.runner.pipeline, value_converter=refusing)
    r.runner.start_thread()
    r.task.script.put([rec(1, "orders"), rec(2, "orders", "bad"), rec(3, "orders")])
    wait_until(lambda: r.state() is State.FAILED, what="FAILED")
    assert r.runner.await_stop(5)
    assert r.offset() is None  # 2 and 3 were never sent: committing line 3 would lose them


# -- exactly-once source tasks ----------------------------------------------------------------------------


class EosRunner:
    def __init__(self, admin: ScriptedAdmin, boundary: TransactionBoundary = TransactionBoundary.POLL) -> None:
        self.admin = admin
        self.log = FakeTransactionLog()
        self.task = ScriptedTask()
        self.status = MemoryStatusStore("worker-1")
        self.producer = FakeTransactionalProducer(self.log, failure_reports_only=True)
        self.runner = WorkerEosSourceTask(
            TASK,
            self.task,
            {},
            self.status,
            TargetState.STARTED,
            producer=self.producer,
            pipeline=record_pipeline(TASK),
            offset_store=self.log.offsets,
            transaction_boundary=boundary,
            transaction_boundary_interval_ms=60_000,
            topic_creation=TopicCreation(topic_creation_rules(GROUPS), admin),
        )
        self.runner.start_thread()
        wait_until(lambda: self.state() is State.RUNNING, what="RUNNING")

    def state(self) -> State | None:
        status = self.status.task_status(TASK)
        return None if status is None else status.state


def test_an_exactly_once_task_creates_its_topic_before_the_first_record() -> None:
    r = EosRunner(ScriptedAdmin())
    r.task.script.put([rec(1, "state-users"), rec(2, "state-users")])
    wait_until(lambda: len(r.log.committed) == 1, what="a committed transaction")
    r.runner.stop()
    assert r.runner.await_stop(5)
    assert r.admin.created == [TopicSpec("state-users", 1, 3, {"cleanup.policy": "compact"})]
    assert [p.value for p in r.log.committed[0] if p.topic == "state-users"] == [b"v", b"v"]
    assert r.admin.closed


def test_an_exactly_once_task_stopped_while_kafka_does_not_answer_commits_nothing() -> None:
    admin = ScriptedAdmin(existing=["orders"])
    r = EosRunner(admin, TransactionBoundary.INTERVAL)
    r.task.script.put([rec(1, "orders")])
    wait_until(lambda: len(r.producer.transaction or []) == 1, what="a record in the open transaction")
    admin.fail_always = RetriableError("Could not describe topic state-x: timed out")
    r.task.script.put([rec(2, "state-x")])
    wait_until(lambda: "state-x" in admin.described, what="a describe of the new topic")
    r.runner.stop()
    assert r.runner.await_stop(5)
    assert r.state() is State.UNASSIGNED
    assert r.log.committed == []
    assert [[p.value for p in txn if p.topic != OFFSETS_TOPIC] for txn in r.log.aborted] == [[b"v"]]


# -- the Worker ---------------------------------------------------------------------------------------------


class WorkerFixture:
    def __init__(self, **worker_props: str) -> None:
        config = WorkerConfig.from_props(
            {
                "key.converter": "StringConverter",
                "value.converter": "JsonConverter",
                "value.converter.schemas.enable": "false",
                **worker_props,
            }
        )
        self.status = MemoryStatusStore("w1:8083")
        self.clients = FakeClients()
        self.worker = Worker(
            worker_id="w1:8083",
            config=config,
            plugins=REGISTRY,
            offset_store=MemoryOffsetStore(),
            status=self.status,
            clients=self.clients,
        )
        self.worker.start()

    def run(self, config: Mapping[str, str]) -> ConnectorTaskId:
        name = config["name"]
        self.worker.start_connector(name, config, TargetState.STARTED, lambda _: None)
        task_id = ConnectorTaskId(name, 0)
        (task_config,) = self.worker.connector_task_configs(name, 1)
        self.worker.start_task(task_id, config, task_config, TargetState.STARTED)
        return task_id

    def sent_topics(self, task_id: ConnectorTaskId) -> list[str]:
        producer = self.clients.producers[task_id]
        producer.flush()
        return [p.topic for p in producer.sent]


@pytest.fixture
def worker_fixture() -> Any:
    fixtures: list[WorkerFixture] = []

    def make(**props: str) -> WorkerFixture:
        fixtures.append(WorkerFixture(**props))
        return fixtures[-1]

    yield make
    for fixture in fixtures:
        fixture.worker.stop()


def test_the_worker_gives_source_tasks_topic_creation_when_the_config_asks(worker_fixture: Any) -> None:
    fx = worker_fixture()
    task_id = fx.run({**SOURCE, "topic": "state-orders", **GROUPS})
    wait_until(lambda: fx.sent_topics(task_id) == ["state-orders"], what="the record")
    assert fx.clients.fake_admin.created == [TopicSpec("state-orders", 1, 3, {"cleanup.policy": "compact"})]


def test_a_worker_with_topic_creation_disabled_leaves_topics_to_the_broker(worker_fixture: Any) -> None:
    fx = worker_fixture(**{"topic.creation.enable": "false"})
    task_id = fx.run({**SOURCE, "topic": "state-orders", **GROUPS})
    wait_until(lambda: fx.sent_topics(task_id) == ["state-orders"], what="the record")
    assert fx.clients.fake_admin.created == []


def test_invalid_topic_creation_settings_fail_the_task(worker_fixture: Any) -> None:
    fx = worker_fixture()
    task_id = fx.run({**SOURCE, "topic.creation.default.replication.factor": "1"})
    status = fx.status.task_status(task_id)
    assert status is not None and status.state is State.FAILED and status.trace is not None
    assert 'Missing required configuration "topic.creation.default.partitions"' in status.trace
