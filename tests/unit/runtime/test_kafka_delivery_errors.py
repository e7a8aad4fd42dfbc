"""`delivery_error`: a failed delivery report is Retriable when sending the record again may succeed, although
confluent_kafka's delivery-report errors never say `retriable()` themselves."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError

from connect.api.errors import ConnectError, RetriableError
from connect.runtime.kafka import delivery_error


@pytest.mark.parametrize(
    "code",
    [
        KafkaError._MSG_TIMED_OUT,
        KafkaError._TRANSPORT,
        KafkaError._ALL_BROKERS_DOWN,
        KafkaError.NOT_LEADER_FOR_PARTITION,
        KafkaError.LEADER_NOT_AVAILABLE,
        KafkaError.NOT_ENOUGH_REPLICAS,
        KafkaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        KafkaError.REQUEST_TIMED_OUT,
    ],
)
def test_a_broker_down_a_moving_leader_or_a_timeout_is_retriable(code: int) -> None:
    error = KafkaError(code)  # as a delivery report carries it: not flagged retriable
    assert not error.retriable()
    failure = delivery_error(error, "Could not write to the status log (status)")
    assert isinstance(failure, RetriableError)
    assert str(failure).startswith("Could not write to the status log (status): ")


@pytest.mark.parametrize(
    "code", [KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.MSG_SIZE_TOO_LARGE, KafkaError._INVALID_ARG]
)
def test_other_failures_are_not(code: int) -> None:
    failure = delivery_error(KafkaError(code), "Could not write")
    assert isinstance(failure, ConnectError) and not isinstance(failure, RetriableError)


def test_an_error_kafka_flags_retriable_is() -> None:
    assert isinstance(delivery_error(KafkaError(KafkaError._INVALID_ARG, retriable=True), "x"), RetriableError)
