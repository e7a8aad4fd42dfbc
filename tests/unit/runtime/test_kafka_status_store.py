"""KafkaStatusStore's writes without Kafka: a write that fails with a retriable error is sent again (as Kafka's
`KafkaStatusBackingStore.send` does) unless the store wrote the same key since, a newer owner's status
replaced it, or the store stopped; other failures are logged and dropped."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from typing import Any

import pytest

from connect.api.errors import ConnectError, RetriableError
from connect.runtime.domain.info import InstanceStatus
from connect.runtime.domain.states import ConnectorTaskId, State
from connect.runtime.kafka import KafkaClients
from connect.runtime.stores import KafkaStatusStore, StatusEntry, kafka_log
from connect.runtime.stores import status_records as records
from tests.support.waiting import wait_until

T0 = ConnectorTaskId("orders", 0)
KEY = records.task_key(T0)
BACKOFF_S = 0.05
# Long enough for several back-offs: a write that was to be sent again would have been by then.
SETTLE_S = 0.4


class FakeLog:
    """The status topic as `KafkaLog` offers it: each send takes the next outcome in `failures` (none left:
    Kafka takes the record, and the reader hands it back to the store at once), or stays in flight while
    `holding`."""

    def __init__(self, topic: str, clients: KafkaClients, *, on_record: Callable[..., None], **_: Any) -> None:
        self._on_record = on_record
        self.failures: list[ConnectError] = []
        self.holding = False
        self.sent: list[tuple[bytes, bytes | None]] = []
        self.in_flight: list[tuple[bytes, bytes | None, Future[tuple[int, int]]]] = []
        self.offset = 0

    def start(self, timeout: float) -> None:
        pass

    def stop(self) -> None:
        pass

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[tuple[int, int]]:
        self.sent.append((key, value))
        future: Future[tuple[int, int]] = Future()
        future.set_running_or_notify_cancel()
        if self.holding:
            self.in_flight.append((key, value, future))
        elif self.failures:
            future.set_exception(self.failures.pop(0))
        else:
            self.take(key, value, future)
        return future

    def take(self, key: bytes, value: bytes | None, future: Future[tuple[int, int]]) -> None:
        self.read_back(key, value)
        future.set_result((0, self.offset - 1))

    def read_back(self, key: bytes, value: bytes | None) -> None:
        """A record in the topic (this store's or another worker's) reaches the store's reader."""
        self._on_record(key, value, 0, self.offset)
        self.offset += 1

    def states_sent(self) -> list[State | None]:
        return [_state(value) for key, value in self.sent if key == KEY]


def _state(value: bytes | None) -> State | None:
    entry = records.parse_status(value) if value is not None else None
    return entry.status.state if entry is not None else None


@pytest.fixture
def logs(monkeypatch: pytest.MonkeyPatch) -> list[FakeLog]:
    created: list[FakeLog] = []

    def make(*args: Any, **kwargs: Any) -> FakeLog:
        created.append(FakeLog(*args, **kwargs))
        return created[-1]

    monkeypatch.setattr(kafka_log, "KafkaLog", make)
    return created


@pytest.fixture
def make_store(logs: list[FakeLog]) -> Iterator[Callable[..., tuple[KafkaStatusStore, FakeLog]]]:
    stores: list[KafkaStatusStore] = []

    def make(worker: str = "w1:8083", **kwargs: Any) -> tuple[KafkaStatusStore, FakeLog]:
        clients = KafkaClients(producer_props={}, consumer_props={}, admin_props={}, internal_props={})
        store = KafkaStatusStore("status", clients, worker, retry_backoff=BACKOFF_S, **kwargs)
        store.start(1.0)
        stores.append(store)
        return store, logs[-1]

    yield make
    for store in stores:
        store.stop()


def retriable() -> RetriableError:
    return RetriableError("Could not write to the status log (status): Broker: Not enough in-sync replicas")


def test_a_write_that_failed_with_a_retriable_error_is_sent_again_until_kafka_takes_it(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]],
) -> None:
    store, log = make_store()
    log.failures = [retriable(), retriable()]
    store.on_task_startup(T0)
    wait_until(lambda: store.task_status(T0), 5, "the status to be written after all")
    assert store.task_status(T0) == InstanceStatus(State.RUNNING, "w1:8083")
    assert log.states_sent() == [State.RUNNING] * 3


def test_the_statuses_a_distributed_worker_stamps_are_sent_again_too(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]],
) -> None:
    store, log = make_store()
    log.failures = [retriable()]
    store.put_task(T0, StatusEntry(InstanceStatus(State.RUNNING, "w1:8083"), 7))
    store.put_connector("orders", StatusEntry(InstanceStatus(State.RUNNING, "w1:8083"), 7))
    wait_until(lambda: store.task_entry(T0), 5, "the task's status to be written after all")
    assert store.task_entry(T0) == StatusEntry(InstanceStatus(State.RUNNING, "w1:8083"), 7)
    assert store.connector_status("orders") == InstanceStatus(State.RUNNING, "w1:8083")


def test_a_newer_write_of_the_same_key_drops_the_retry_of_the_older_one(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]],
) -> None:
    store, log = make_store()
    log.failures = [retriable()]
    store.on_task_startup(T0)
    store.on_task_pause(T0)
    time.sleep(SETTLE_S)
    assert log.states_sent() == [State.RUNNING, State.PAUSED]
    assert store.task_status(T0) == InstanceStatus(State.PAUSED, "w1:8083")


def test_a_write_that_fails_after_a_newer_one_was_sent_is_not_sent_again(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]],
) -> None:
    store, log = make_store()
    log.holding = True
    store.on_task_startup(T0)
    store.on_task_pause(T0)
    (_, _, running), (key, paused, paused_future) = log.in_flight
    log.take(key, paused, paused_future)
    running.set_exception(retriable())
    time.sleep(SETTLE_S)
    assert log.states_sent() == [State.RUNNING, State.PAUSED]
    assert store.task_status(T0) == InstanceStatus(State.PAUSED, "w1:8083")


def test_a_deletion_drops_the_retry_of_an_older_write(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]],
) -> None:
    store, log = make_store()
    log.failures = [retriable()]
    store.on_task_startup(T0)
    store.tombstone(tasks=[T0], timeout=1.0)
    time.sleep(SETTLE_S)
    assert log.states_sent() == [State.RUNNING, None]
    assert store.task_status(T0) is None


def test_a_retry_is_dropped_once_a_newer_owner_wrote_the_status(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]],
) -> None:
    store, log = make_store(generation=3)
    log.failures = [retriable()]
    store.on_task_startup(T0)
    newer = StatusEntry(InstanceStatus(State.RUNNING, "w2:8083"), 5)
    log.read_back(KEY, records.status_value(newer))
    time.sleep(SETTLE_S)
    assert log.states_sent() == [State.RUNNING]
    assert store.task_entry(T0) == newer


def test_a_write_that_failed_for_good_is_logged_and_dropped(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]], caplog: pytest.LogCaptureFixture
) -> None:
    store, log = make_store()
    log.failures = [ConnectError("Could not write to the status log (status): Broker: Topic authorization failed")]
    with caplog.at_level(logging.ERROR):
        store.on_task_startup(T0)
        time.sleep(SETTLE_S)
    assert log.states_sent() == [State.RUNNING]
    assert "Could not write status status-task-orders-0" in caplog.text
    assert store.task_status(T0) is None


def test_stopping_the_store_drops_the_writes_waiting_to_be_sent_again(
    make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]],
) -> None:
    store, log = make_store()
    log.failures = [retriable()]
    store.on_task_startup(T0)
    store.stop()
    time.sleep(SETTLE_S)
    assert log.states_sent() == [State.RUNNING]


def _by_key(sent: list[tuple[bytes, bytes | None]]) -> Mapping[bytes, int]:
    counts: dict[bytes, int] = {}
    for key, _ in sent:
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_each_key_is_retried_on_its_own(make_store: Callable[..., tuple[KafkaStatusStore, FakeLog]]) -> None:
    store, log = make_store()
    log.failures = [retriable(), retriable()]
    store.on_task_startup(T0)
    store.on_task_startup(ConnectorTaskId("orders", 1))
    wait_until(lambda: len(store.task_statuses("orders")) == 2, 5, "both statuses to be written after all")
    assert _by_key(log.sent) == {KEY: 2, records.task_key(ConnectorTaskId("orders", 1)): 2}
