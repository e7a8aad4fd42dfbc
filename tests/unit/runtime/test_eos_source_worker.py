"""Choosing the exactly-once runner, its transactional id and producer settings, and the fencing helpers."""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

from connect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask
from connect.api.connector import ConnectorTransactionBoundaries, ExactlyOnceSupport
from connect.api.errors import IllegalWorkerStateError
from connect.converters import SimpleHeaderConverter, StringConverter
from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.kafka import (
    KafkaClients,
    KafkaTransactionalProducer,
    ProducerFencedError,
    TransactionalProducer,
    producer_fenced,
)
from connect.runtime.offsets import OffsetStore
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.tasks.contexts import TransactionRequest, WorkerTransactionContext
from connect.runtime.tasks.transactions import fencing_required, transactional_id, transactional_ids
from connect.runtime.tasks.worker_eos_source_task import WorkerEosSourceTask
from connect.runtime.tasks.worker_source_task import WorkerSourceTask
from connect.runtime.worker import Worker
from tests.support.transaction_fakes import FakeTransactionalProducer, FakeTransactionLog
from tests.support.waiting import wait_until
from tests.support.worker_fakes import FakeClients

NAME = "eos"
TASK = ConnectorTaskId(NAME, 0)


class OneBatchTask(SourceTask):
    def start(self, props: Mapping[str, str]) -> None:
        self.sent = False
        self.idle = threading.Event()

    def poll(self) -> list[SourceRecord] | None:
        if self.sent:
            self.idle.wait(0.01)
            return None
        self.sent = True
        return [SourceRecord({"p": 0}, {"n": n}, "out", value=f"r{n}") for n in range(3)]

    def stop(self) -> None:
        self.idle.set()


class ClaimingSource(SourceConnector):
    """Answers the KIP-618 questions from its config: `claims.eos` and `claims.boundaries` (yes/no/unset)."""

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return OneBatchTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{} for _ in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef()

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        answer = props.get("claims.eos")
        return (
            None
            if answer is None
            else ExactlyOnceSupport.SUPPORTED
            if answer == "yes"
            else ExactlyOnceSupport.UNSUPPORTED
        )

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        yes = props.get("claims.boundaries") == "yes"
        return ConnectorTransactionBoundaries.SUPPORTED if yes else ConnectorTransactionBoundaries.UNSUPPORTED


@dataclass
class TransactionalFakeClients(FakeClients):
    log: FakeTransactionLog = field(default_factory=FakeTransactionLog)
    transactional: dict[ConnectorTaskId, FakeTransactionalProducer] = field(default_factory=dict)

    def transactional_producer(
        self,
        task: ConnectorTaskId,
        connector_config: Mapping[str, str],
        transactional_id: str,
        *,
        failure_reports_only: bool = False,
    ) -> TransactionalProducer:
        producer = FakeTransactionalProducer(self.log, transactional_id, failure_reports_only=failure_reports_only)
        self.transactional[task] = producer
        return producer


class Setup:
    def __init__(
        self, worker_props: Mapping[str, str] | None = None, *, store: OffsetStore | None = None, check: Any = None
    ) -> None:
        props = {"key.converter": "StringConverter", "value.converter": "StringConverter", **(worker_props or {})}
        self.clients = TransactionalFakeClients()
        self.status = MemoryStatusStore("w1")
        self.worker = Worker(
            worker_id="w1",
            config=WorkerConfig.from_props(props),
            plugins=PluginRegistry.of(ClaimingSource, StringConverter, SimpleHeaderConverter),
            offset_store=store if store is not None else self.clients.log.offsets,
            status=self.status,
            clients=self.clients,
        )
        self.check = check

    def start_task(self, **connector_props: str) -> None:
        config = {"name": NAME, "connector.class": "ClaimingSource", **connector_props}
        check = None if self.check is None else functools.partial(self.check, TASK)
        self.worker.start_task(TASK, config, {}, TargetState.STARTED, ownership_check=check)

    def state(self) -> State | None:
        status = self.status.task_status(TASK)
        return None if status is None else status.state

    def trace(self) -> str:
        status = self.status.task_status(TASK)
        return (status.trace or "") if status is not None else ""


DISTRIBUTED_EOS = {"group.id": "cluster", "exactly.once.source.support": "enabled"}


def test_an_enabled_worker_runs_source_tasks_in_transactions_with_kip618_transactional_ids() -> None:
    setup = Setup(DISTRIBUTED_EOS)
    setup.start_task()
    wait_until(lambda: setup.clients.log.data() == ["r0", "r1", "r2"], what="committed batch")
    assert isinstance(setup.worker.task(TASK), WorkerEosSourceTask)
    assert setup.clients.transactional[TASK].transactional_id == "cluster-eos-0"
    assert setup.clients.producers == {}  # no at-least-once producer was built
    assert setup.state() is State.RUNNING
    setup.worker.stop_tasks([TASK])


@pytest.mark.parametrize("support", ["disabled", "preparing"])
def test_a_worker_without_enabled_support_runs_the_at_least_once_runner(support: str) -> None:
    setup = Setup({**DISTRIBUTED_EOS, "exactly.once.source.support": support})
    setup.start_task()
    wait_until(lambda: setup.state() is State.RUNNING, what="RUNNING")
    runner = setup.worker.task(TASK)
    assert isinstance(runner, WorkerSourceTask) and not isinstance(runner, WorkerEosSourceTask)
    assert setup.clients.transactional == {}
    setup.worker.stop_tasks([TASK])


def test_enabled_support_without_the_kafka_offset_store_is_not_exactly_once() -> None:
    setup = Setup(DISTRIBUTED_EOS, store=MemoryOffsetStore())
    assert not setup.worker.exactly_once_source
    setup.start_task()
    wait_until(lambda: setup.state() is State.RUNNING, what="RUNNING")
    assert not isinstance(setup.worker.task(TASK), WorkerEosSourceTask)
    setup.worker.stop_tasks([TASK])


def test_required_exactly_once_fails_the_task_on_a_standalone_worker() -> None:
    setup = Setup(store=MemoryOffsetStore())
    setup.start_task(**{"exactly.once.support": "required", "claims.eos": "yes"})
    assert setup.state() is State.FAILED
    assert "ConfigError" in setup.trace() and "standalone mode has no exactly-once source support" in setup.trace()
    assert setup.worker.task(TASK) is None


@pytest.mark.parametrize("claim", ["no", None])
def test_required_exactly_once_needs_the_connector_to_say_it_is_supported(claim: str | None) -> None:
    setup = Setup(DISTRIBUTED_EOS)
    setup.start_task(**{"exactly.once.support": "required", **({"claims.eos": claim} if claim else {})})
    assert setup.state() is State.FAILED
    assert "exactly.once.support=required" in setup.trace()
    assert setup.clients.transactional == {}


def test_required_exactly_once_runs_when_the_connector_supports_it() -> None:
    setup = Setup(DISTRIBUTED_EOS)
    setup.start_task(**{"exactly.once.support": "required", "claims.eos": "yes"})
    wait_until(lambda: setup.clients.log.data() == ["r0", "r1", "r2"], what="committed batch")
    setup.worker.stop_tasks([TASK])


def test_connector_boundaries_need_the_connector_to_define_them() -> None:
    setup = Setup(DISTRIBUTED_EOS)
    setup.start_task(**{"transaction.boundary": "connector"})
    assert setup.state() is State.FAILED
    assert "transaction.boundary=connector" in setup.trace()
    setup = Setup(DISTRIBUTED_EOS)
    setup.start_task(**{"transaction.boundary": "connector", "claims.boundaries": "yes"})
    wait_until(lambda: setup.state() is State.RUNNING, what="RUNNING")
    runner = setup.worker.task(TASK)
    assert isinstance(runner, WorkerEosSourceTask) and runner.transaction_context is not None
    setup.worker.stop_tasks([TASK])


def test_the_herders_check_runs_on_the_task_thread_for_its_task() -> None:
    seen: list[tuple[ConnectorTaskId, str]] = []

    def check(task: ConnectorTaskId) -> None:
        seen.append((task, threading.current_thread().name))

    setup = Setup(DISTRIBUTED_EOS, check=check)
    setup.start_task()
    wait_until(lambda: setup.state() is State.RUNNING, what="RUNNING")
    assert seen == [(TASK, f"task-{TASK}")] * 2
    setup.worker.stop_tasks([TASK])


# -- transactional ids, fencing, producer settings ------------------------------------------------------


def test_transactional_ids_follow_kip618() -> None:
    assert transactional_id("connect-cluster", ConnectorTaskId("orders", 3)) == "connect-cluster-orders-3"
    assert transactional_ids("g", "c", 3) == ["g-c-0", "g-c-1", "g-c-2"]


@pytest.mark.parametrize(
    ("previous", "new", "needed"),
    [(None, 5, False), (1, 1, False), (1, 2, True), (3, 1, True), (3, 3, True)],
)
def test_a_fencing_round_is_needed_unless_first_start_or_a_single_task_throughout(
    previous: int | None, new: int, needed: bool
) -> None:
    assert fencing_required(previous, new) is needed


def test_transactional_producer_settings() -> None:
    clients = KafkaClients(
        producer_props={
            "bootstrap.servers": "b:9092",
            "transaction.timeout.ms": "30000",
            "enable.idempotence": "false",
        },
        consumer_props={},
        admin_props={},
    )
    config = clients.transactional_producer_config(
        TASK, {"producer.override.transactional.id": "mine", "producer.override.acks": "1"}, "cluster-eos-0"
    )
    assert config["transactional.id"] == "cluster-eos-0"
    assert config["enable.idempotence"] == "true"
    assert config["acks"] == "all"
    assert config["client.id"] == "connector-producer-eos-0"
    assert config["transaction.timeout.ms"] == "30000"
    # Connect's default message.timeout.ms (MAX_INT) is refused by librdkafka above the transaction timeout.
    assert int(config["message.timeout.ms"]) <= 30000
    producer = clients.transactional_producer(TASK, {}, "cluster-eos-0", failure_reports_only=True)
    assert isinstance(producer, KafkaTransactionalProducer)
    assert (producer.transactional_id, producer.transaction_timeout_ms) == ("cluster-eos-0", 30000)


def test_fencing_is_recognised_however_it_surfaces() -> None:
    fenced = KafkaException(KafkaError(KafkaError._FENCED, "fenced by a newer instance", fatal=True))
    assert producer_fenced(fenced)
    assert producer_fenced(ProducerFencedError("x"))
    # As the error handler raises it: a ToleranceExceededError while handling the produce error.
    try:
        try:
            raise fenced
        except KafkaException:
            raise RuntimeError("tolerance exceeded")  # noqa: B904
    except RuntimeError as wrapped:
        assert producer_fenced(wrapped)
    assert not producer_fenced(KafkaException(KafkaError(KafkaError._TIMED_OUT, "slow")))


def test_transaction_requests_name_the_very_record_object() -> None:
    context = WorkerTransactionContext()
    record = SourceRecord({"p": 0}, {"n": 1}, "out", value={"unhashable": ["value"]})
    twin = SourceRecord({"p": 0}, {"n": 1}, "out", value={"unhashable": ["value"]})
    context.commit_transaction(record)
    assert context.take_record_request(twin) is None
    assert context.take_record_request(record) is TransactionRequest.COMMIT
    assert context.take_record_request(record) is None
    context.abort_transaction()
    assert context.take_batch_request() is TransactionRequest.ABORT
    assert context.take_batch_request() is None
    context.commit_transaction()
    context.abort_transaction()
    with pytest.raises(IllegalWorkerStateError, match="both commit and abort of same batch"):
        context.take_batch_request()
