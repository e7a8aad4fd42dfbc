"""`BatchProducer` (a source task's producer on librdkafka's batch call) against the real broker."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.kafka import ColumnNotBytesError, KafkaClients, factory
from connect.runtime.kafka.batch_producer import BatchProducer
from tests.support.topic_reads import messages_to_end

TASK = ConnectorTaskId("batch", 0)


def _clients(bootstrap: str, **producer_props: str) -> KafkaClients:
    return KafkaClients(
        producer_props={"bootstrap.servers": bootstrap, **producer_props},
        consumer_props={"bootstrap.servers": bootstrap},
        admin_props={"bootstrap.servers": bootstrap},
    )


def _producer(bootstrap: str, **producer_props: str) -> BatchProducer:
    producer = _clients(bootstrap, **producer_props).producer(TASK, {}, failure_reports_only=True, batch_calls=True)
    assert isinstance(producer, BatchProducer)
    return producer


def _read(bootstrap: str, topic: str) -> list[Any]:
    return messages_to_end({"bootstrap.servers": bootstrap}, topic)


def no_wait() -> None:
    raise AssertionError("the queue has room for every record here")


class Reports:
    def __init__(self) -> None:
        self.failures: list[tuple[Any, Any]] = []

    def __call__(self, error: Any, message: Any) -> None:
        self.failures.append((error, message))


def test_a_batch_of_values_and_keys_arrives_in_order_with_the_send_time(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    producer = _producer(kafka_bootstrap)
    values = [f"value-{i}".encode() for i in range(5000)] + [b""]
    keys = [f"key-{i}".encode() for i in range(len(values))]
    reports = Reports()
    before = time.time() * 1000
    assert producer.produce_values(unique_topic, 0, values, keys, reports, no_wait) == []
    assert producer.flush(30) == 0
    assert len(producer) == 0 and reports.failures == []

    messages = _read(kafka_bootstrap, unique_topic)
    assert [m.value() for m in messages] == values
    assert [m.key() for m in messages] == keys
    assert all(before - 1000 <= m.timestamp()[1] <= time.time() * 1000 for m in messages)
    producer.close()


def test_values_without_keys_are_spread_by_the_partitioner(
    kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory(partitions=3)
    producer = _producer(kafka_bootstrap, **{"sticky.partitioning.linger.ms": "0"})
    values = [str(i).encode() for i in range(3000)]
    assert producer.produce_values(topic, -1, values, None, Reports(), no_wait) == []
    assert producer.flush(30) == 0
    messages = _read(kafka_bootstrap, topic)
    assert sorted(m.value() for m in messages) == sorted(values)
    assert {m.partition() for m in messages} == {0, 1, 2}
    assert all(m.key() is None for m in messages)


def test_a_batch_without_keys_goes_to_one_partition_and_batches_spread_over_the_topic(
    kafka_bootstrap: str, topic_factory: Callable[..., str]
) -> None:
    topic = topic_factory(partitions=3)
    producer = _producer(kafka_bootstrap)  # librdkafka's defaults: a random partition for a missing key
    batches = [[f"{batch}-{i}".encode() for i in range(50)] for batch in range(30)]
    for values in batches:
        assert producer.produce_values(topic, -1, values, None, Reports(), no_wait) == []
    assert producer.flush(30) == 0

    partition_of: dict[bytes, int] = {}
    by_partition: dict[int, list[bytes]] = {}
    for message in _read(kafka_bootstrap, topic):
        partition_of[message.value()] = message.partition()
        by_partition.setdefault(message.partition(), []).append(message.value())
    assert len(partition_of) == 30 * 50
    assert all(len({partition_of[value] for value in values}) == 1 for values in batches)
    assert len(by_partition) > 1  # 30 batches all in one of 3 partitions: about 1 in 10^14
    for values in by_partition.values():  # and each partition holds its batches in the order sent
        held = set(values)
        assert values == [value for batch in batches for value in batch if value in held]
    producer.close()


def test_batches_to_a_topic_that_does_not_exist_yet_arrive_whole_and_in_order(kafka_bootstrap: str) -> None:
    topic = f"created-by-producing-{uuid.uuid4().hex[:8]}"  # the broker creates it on the first metadata request
    producer = _producer(kafka_bootstrap)
    batches = [[f"{batch}-{i}".encode() for i in range(100)] for batch in range(20)]
    for values in batches:
        assert producer.produce_values(topic, -1, values, None, Reports(), no_wait) == []
    assert producer.flush(30) == 0
    messages = _read(kafka_bootstrap, topic)
    assert [m.value() for m in messages] == [value for values in batches for value in values]
    producer.close()


def test_a_value_librdkafka_refuses_is_named_and_the_others_go(kafka_bootstrap: str, unique_topic: str) -> None:
    producer = _producer(kafka_bootstrap, **{"max.request.size": "10000"})
    values = [b"a", b"x" * 20_000, b"c"]
    refused = producer.produce_values(unique_topic, 0, values, None, Reports(), no_wait)
    assert [(index, error.code()) for index, error in refused] == [(1, KafkaError.MSG_SIZE_TOO_LARGE)]
    assert producer.flush(30) == 0
    assert [m.value() for m in _read(kafka_bootstrap, unique_topic)] == [b"a", b"c"]


def test_a_full_queue_is_waited_out_from_where_it_filled_and_the_order_holds(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    producer = _producer(kafka_bootstrap, **{"queue.buffering.max.messages": "10", "max.request.size": "10000"})
    values = [str(i).encode() for i in range(25)]
    values[17] = b"x" * 20_000  # refused, after two waits
    waits: list[int] = []

    def wait_for_room() -> None:
        waits.append(len(producer))
        producer.flush(10)

    refused = producer.produce_values(unique_topic, 0, values, None, Reports(), wait_for_room)
    assert [index for index, _ in refused] == [17]
    assert waits == [10, 10]  # the queue was full each time
    assert producer.flush(30) == 0
    assert [m.value() for m in _read(kafka_bootstrap, unique_topic)] == values[:17] + values[18:]


def test_a_delivery_that_fails_later_reaches_its_callback_with_the_record(kafka_bootstrap: str) -> None:
    # A partition the topic does not have is known only once metadata arrives: a delivery failure.
    topic = f"kc-test-missing-{uuid.uuid4().hex[:8]}"
    producer = _producer(kafka_bootstrap, **{"allow.auto.create.topics": "false", "message.timeout.ms": "2000"})
    reports = Reports()
    assert producer.produce_values(topic, 7, [b"lost"], [b"k"], reports, no_wait) == []
    assert producer.flush(30) == 0
    [(error, message)] = reports.failures
    assert error.code() in (KafkaError._MSG_TIMED_OUT, KafkaError._UNKNOWN_TOPIC, KafkaError._UNKNOWN_PARTITION)
    assert (message.topic(), message.value(), message.key()) == (topic, b"lost", b"k")
    assert producer.flush(1) == 0 and len(reports.failures) == 1  # reported once


def test_a_column_holding_none_is_refused_before_anything_is_sent(kafka_bootstrap: str, unique_topic: str) -> None:
    producer = _producer(kafka_bootstrap)
    with pytest.raises(ColumnNotBytesError):
        producer.produce_values(unique_topic, 0, [b"a", None], None, Reports(), no_wait)  # type: ignore[list-item]
    with pytest.raises(ColumnNotBytesError):
        producer.produce_values(unique_topic, 0, [b"a", b"b"], [b"k", None], Reports(), no_wait)  # type: ignore[list-item]
    assert len(producer) == 0


def test_one_record_keeps_its_timestamp_headers_and_key(kafka_bootstrap: str, unique_topic: str) -> None:
    producer = _producer(kafka_bootstrap)
    producer.produce(unique_topic, "text", b"key", 0, None, Reports(), 1_600_000_000_000, [("h", b"1"), ("n", None)])
    producer.produce(unique_topic, None, None, 0)
    assert producer.flush(30) == 0
    first, tombstone = _read(kafka_bootstrap, unique_topic)
    assert (first.value(), first.key(), first.timestamp()[1]) == (b"text", b"key", 1_600_000_000_000)
    assert first.headers() == [("h", b"1"), ("n", None)]
    assert tombstone.value() is None


def test_a_full_queue_refuses_one_record_with_buffer_error_and_a_bad_one_with_kafka_exception(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    producer = _producer(kafka_bootstrap, **{"queue.buffering.max.messages": "1", "max.request.size": "10000"})
    with pytest.raises(KafkaException) as refused:
        producer.produce(unique_topic, b"x" * 20_000, None, 0)
    assert refused.value.args[0].code() == KafkaError.MSG_SIZE_TOO_LARGE
    producer.produce(unique_topic, b"1", None, 0)
    with pytest.raises(BufferError):
        producer.produce(unique_topic, b"2", None, 0)
    assert producer.flush(30) == 0


def test_errors_statistics_and_log_lines_reach_the_callbacks_the_factory_sets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    errors: list[KafkaError] = []
    stats: list[dict[str, Any]] = []
    caplog.set_level(logging.DEBUG, logger=factory.librdkafka_log.name)
    producer = BatchProducer.create(
        {
            "bootstrap.servers": "127.0.0.1:9",  # nothing listens there
            "delivery.report.only.error": True,
            "statistics.interval.ms": 100,
            "debug": "broker",
            "error_cb": errors.append,
            "stats_cb": lambda payload: stats.append(json.loads(payload)),
            "logger": factory.librdkafka_log,
        }
    )
    deadline = time.monotonic() + 20
    while not (errors and stats and caplog.records) and time.monotonic() < deadline:
        producer.poll(0.1)
    assert errors and errors[0].code() in (KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN)
    assert stats and stats[0]["type"] == "producer"
    assert any("127.0.0.1:9" in record.getMessage() for record in caplog.records)
    producer.close()


def test_settings_decide_which_producer_a_source_task_gets(kafka_bootstrap: str) -> None:
    clients = _clients(kafka_bootstrap)
    assert isinstance(clients.producer(TASK, {}, failure_reports_only=True, batch_calls=True), BatchProducer)
    # Records one by one, per-record reports (tasks that override commit_record), OAUTHBEARER and the
    # worker's switch: confluent_kafka's producer.
    assert not isinstance(clients.producer(TASK, {}, failure_reports_only=True), BatchProducer)
    assert not isinstance(clients.producer(TASK, {}, batch_calls=True), BatchProducer)
    oauth = _clients(kafka_bootstrap, **{"sasl.mechanism": "OAUTHBEARER", "security.protocol": "SASL_PLAINTEXT"})
    assert not isinstance(oauth.producer(TASK, {}, failure_reports_only=True, batch_calls=True), BatchProducer)
    off = _clients(kafka_bootstrap)
    off.batch_producer = False
    assert not isinstance(off.producer(TASK, {}, failure_reports_only=True, batch_calls=True), BatchProducer)


def test_a_setting_librdkafka_does_not_know_is_dropped_as_for_the_other_clients(
    kafka_bootstrap: str, unique_topic: str
) -> None:
    producer = _producer(kafka_bootstrap, **{"some.java.only.setting": "1"})
    assert producer.produce_values(unique_topic, 0, [b"v"], None, Reports(), no_wait) == []
    assert producer.flush(30) == 0
