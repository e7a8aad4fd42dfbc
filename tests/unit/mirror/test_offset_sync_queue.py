"""Offset syncs are sent when translation would go stale or wrong, later otherwise, at most ten in flight
(the figures of Java's `MirrorSourceTaskTest.testOffsetSync`)."""

from __future__ import annotations

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
