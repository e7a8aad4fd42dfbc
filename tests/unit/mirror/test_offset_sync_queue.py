"""Offset syncs are sent when translation would go stale or wrong, later otherwise, at most ten in flight
(the figures of Java's `MirrorSourceTaskTest.testOffsetSync`)."""

from __future__ import annotations

import random

from connect.mirror.offset_sync_queue import MAX_IN_FLIGHT, OffsetSyncQueue
from connect.mirror.records import OffsetSync


def test_a_sync_is_due_first_then_on_staleness_gaps_rewinds_and_truncation() -> None:
    queue = OffsetSyncQueue(max_offset_lag=50)
    offered = [(0, 100), (2, 102), (3, 152), (4, 153), (5, 154), (6, 203), (7, 204), (2, 206), (3, 207), (4, 3)]
    due = [queue.offer("topic1", 2, up, down) for up, down in offered]
    assert due == [True, True, False, True, False, False, True, True, False, True]


def test_due_syncs_are_sent_at_once_and_the_others_at_the_next_commit() -> None:
    queue = OffsetSyncQueue(max_offset_lag=100)
    queue.offer("a", 0, 0, 0)
    queue.offer("a", 0, 1, 1)
    queue.offer("a", 0, 2, 2)
    assert queue.take_sendable() == [OffsetSync("a", 0, 0, 0)]
    queue.sent()
    assert queue.take_sendable() == []
    queue.promote_delayed()
    assert queue.take_sendable() == [OffsetSync("a", 0, 2, 2)]  # only the latest delayed sync of a partition


def test_a_due_sync_replaces_the_partitions_delayed_one() -> None:
    queue = OffsetSyncQueue(max_offset_lag=100)
    queue.offer("a", 0, 0, 0)
    queue.take_sendable()
    queue.sent()
    queue.offer("a", 0, 1, 1)  # delayed
    queue.offer("a", 0, 5, 5)  # a gap: due
    queue.promote_delayed()
    assert queue.take_sendable() == [OffsetSync("a", 0, 5, 5)]


def test_at_most_ten_syncs_are_in_flight() -> None:
    queue = OffsetSyncQueue(max_offset_lag=100)
    for partition in range(MAX_IN_FLIGHT + 2):
        queue.offer("a", partition, 0, 0)
    first = queue.take_sendable()
    assert [s.partition for s in first] == list(range(MAX_IN_FLIGHT))
    assert queue.take_sendable() == []
    queue.sent()
    assert [s.partition for s in queue.take_sendable()] == [MAX_IN_FLIGHT]


def test_a_forgotten_partition_starts_afresh() -> None:
    queue = OffsetSyncQueue(max_offset_lag=100)
    queue.offer("a", 0, 0, 0)
    queue.offer("a", 0, 1, 1)
    queue.forget("a", 0)
    assert queue.take_sendable() == []
    assert queue.offer("a", 0, 2, 2)  # the first sync of the partition's new lifetime is due


def test_due_syncs_waiting_behind_the_in_flight_limit_are_all_sent_in_order() -> None:
    # A task catching up: 30 due syncs of one partition while 10 are in flight. Java keeps only the latest
    # waiting one; every one is kept here, so translation stays within offset.lag.max.
    queue = OffsetSyncQueue(max_offset_lag=10)
    for upstream in range(0, 300):
        queue.offer("a", 0, upstream, upstream)
    sent: list[OffsetSync] = []
    while batch := queue.take_sendable():
        sent += batch
        for _ in batch:
            queue.sent()
    assert [s.upstream_offset for s in sent] == list(range(0, 300, 11))


def drained(queue: OffsetSyncQueue) -> list[OffsetSync]:
    """Every sync the queue would send, due ones first, then the delayed ones promoted at a commit."""
    taken = []
    while batch := queue.take_sendable():
        taken += batch
        for _ in batch:
            queue.sent()
    queue.promote_delayed()
    while batch := queue.take_sendable():
        taken += batch
        for _ in batch:
            queue.sent()
    return taken


def test_a_run_of_acknowledgements_gives_exactly_the_syncs_its_records_one_by_one_give() -> None:
    rng = random.Random(7)
    for _ in range(200):
        upstream = sorted(rng.sample(range(0, 400), rng.randint(1, 60)))  # gaps, as compaction leaves
        start = rng.choice([0, 50, 1000])
        downstream = [start + i + (rng.random() < 0.05) * rng.randint(-5, 5) for i in range(len(upstream))]
        cut = rng.randint(0, len(upstream))
        lag = rng.choice([1, 5, 10])
        one_by_one, in_runs = OffsetSyncQueue(max_offset_lag=lag), OffsetSyncQueue(max_offset_lag=lag)
        due_one = [one_by_one.offer("t", 0, u, d) for u, d in zip(upstream, downstream, strict=True)]
        due_runs = [
            in_runs.offer_run("t", 0, upstream[:cut], downstream[:cut]),
            in_runs.offer_run("t", 0, upstream[cut:], downstream[cut:]),
        ]
        assert any(due_one) == any(due_runs)
        assert drained(in_runs) == drained(one_by_one)


def test_runs_contiguous_on_both_sides_give_the_syncs_their_records_one_by_one_give() -> None:
    # A gap-less run's downstream offsets come as a range (the runtime derives them from the run's ends); the
    # queue then finds the stale points arithmetically: it must find the very syncs a record-by-record offer does.
    rng = random.Random(11)
    for _ in range(300):
        lag = rng.choice([0, 1, 2, 5, 100])
        one_by_one, in_runs = OffsetSyncQueue(max_offset_lag=lag), OffsetSyncQueue(max_offset_lag=lag)
        upstream, downstream = rng.randint(0, 50), rng.randint(0, 50)
        for _ in range(rng.randint(1, 6)):
            length = rng.randint(1, 300)
            ups, downs = list(range(upstream, upstream + length)), range(downstream, downstream + length)
            due_one = [one_by_one.offer("t", 0, u, d) for u, d in zip(ups, downs, strict=True)]
            assert in_runs.offer_run("t", 0, ups, downs) == any(due_one)
            assert drained(in_runs) == drained(one_by_one)
            # The next run may follow on, skip upstream records (compaction) or find the target truncated.
            upstream += length + rng.choice([0, 0, 0, 3])
            downstream = rng.choice([downstream + length, downstream + length, 0])
        in_runs.promote_delayed()
        one_by_one.promote_delayed()
        assert drained(in_runs) == drained(one_by_one)  # the delayed sync of each run's last record too


def test_records_not_on_the_target_are_skipped_in_a_run() -> None:
    queue = OffsetSyncQueue(max_offset_lag=100)
    assert queue.offer_run("t", 0, [5, 6, 7], [10, -1, 11])
    assert drained(queue) == [OffsetSync("t", 0, 5, 10), OffsetSync("t", 0, 7, 11)]  # 7 follows 5: a gap
