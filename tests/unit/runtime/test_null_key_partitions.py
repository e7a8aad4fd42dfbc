"""`NullKeyPartitions`: one partition per batch of records without keys, from partitions looked up now and then."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from connect.runtime.kafka.null_key_partitions import (
    FIRST_WAIT_S,
    REFRESH_S,
    RETRY_S,
    UNASSIGNED,
    NullKeyPartitions,
    chooses_for_null_keys,
)


class Lookups:
    """Answers metadata lookups from a script, and counts them."""

    def __init__(self, *answers: Sequence[int] | None) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def __call__(self, topic: str) -> Sequence[int] | None:
        self.asked.append(topic)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


def test_one_lookup_serves_every_batch_until_the_refresh() -> None:
    lookups, clock = Lookups((0, 1, 2), (0, 1, 2, 3)), Clock()
    partitions = NullKeyPartitions(lookups, clock=clock, sleep=clock.sleep)
    chosen = {partitions.choose("t") for _ in range(300)}
    assert chosen == {0, 1, 2}  # random per batch, over the partitions the lookup found
    assert lookups.asked == ["t"]

    clock.now += REFRESH_S
    assert {partitions.choose("t") for _ in range(400)} == {0, 1, 2, 3}  # a partition added since
    assert lookups.asked == ["t", "t"]


def test_each_topic_has_its_own_partitions() -> None:
    answers = {"one": (0,), "two": (5, 6)}
    partitions = NullKeyPartitions(lambda topic: answers[topic])
    assert {partitions.choose("one") for _ in range(50)} == {0}
    assert {partitions.choose("two") for _ in range(200)} == {5, 6}


def test_the_first_batch_to_a_topic_waits_for_its_partitions() -> None:
    lookups, clock = Lookups(None, (), (), (4,)), Clock()  # failed, then a topic being created, then known
    partitions = NullKeyPartitions(lookups, clock=clock, sleep=clock.sleep)
    assert partitions.choose("t") == 4
    assert len(lookups.asked) == 4
    assert 0 < clock.slept < 1


def test_when_the_first_wait_runs_out_librdkafka_chooses_and_the_lookup_is_retried_later() -> None:
    clock = Clock()
    lookups = Lookups(())  # a topic that does not come
    partitions = NullKeyPartitions(lookups, clock=clock, sleep=clock.sleep)
    assert partitions.choose("t") == UNASSIGNED
    assert FIRST_WAIT_S <= clock.slept < FIRST_WAIT_S + 0.1  # waited, within its bound
    asked = len(lookups.asked)
    assert partitions.choose("t") == UNASSIGNED
    assert len(lookups.asked) == asked  # no round trip per batch after that

    lookups.answers = [(3,)]
    clock.now += RETRY_S
    assert partitions.choose("t") == 3
    assert len(lookups.asked) == asked + 1


def test_a_refresh_that_finds_nothing_keeps_the_partitions_known_and_tries_again_soon() -> None:
    lookups, clock = Lookups((1, 2), None, (2,)), Clock()
    partitions = NullKeyPartitions(lookups, clock=clock, sleep=clock.sleep)
    partitions.choose("t")
    clock.now += REFRESH_S
    assert {partitions.choose("t") for _ in range(200)} == {1, 2}
    clock.now += RETRY_S
    assert partitions.choose("t") == 2
    assert len(lookups.asked) == 3


@pytest.mark.parametrize(
    ("settings", "chooses"),
    [
        ({}, True),  # librdkafka's default, consistent_random
        ({"partitioner": "murmur2_random"}, True),  # what Kafka Connect's Java producer does for keys
        ({"partitioner": "random", "sticky.partitioning.linger.ms": "25"}, True),
        ({"partitioner": "murmur2"}, False),  # a missing key always maps to the same partition
        ({"partitioner": "consistent"}, False),
        ({"sticky.partitioning.linger.ms": "0"}, False),  # a random partition per record, asked for
        ({"sticky.partitioning.linger.ms": 0}, False),
    ],
)
def test_only_partitioners_that_spread_records_without_keys_let_a_batch_share_one_partition(
    settings: dict[str, object], chooses: bool
) -> None:
    assert chooses_for_null_keys(settings) is chooses
