"""Committable source offsets: acknowledged in order per source partition, failures block."""

from __future__ import annotations

from connect.api.records import SourceRecord
from connect.runtime.offsets import SubmittedRecords, encode_key


def records(partition: str, *offsets: int) -> list[SourceRecord]:
    source_partition = {"p": partition}
    return [SourceRecord(source_partition, {"o": o}, "t") for o in offsets]


def key(partition: str) -> bytes:
    return encode_key("c", {"p": partition})


def test_nothing_is_committable_before_acknowledgement() -> None:
    submitted = SubmittedRecords("c")
    submitted.submit(records("a", 1, 2), 2)
    assert submitted.committable() == {}


def test_a_later_batch_acknowledged_first_waits_for_the_earlier_one() -> None:
    submitted = SubmittedRecords("c")
    first = submitted.submit(records("a", 1, 2), 2)
    second = submitted.submit(records("a", 3, 4), 2)
    second.ack(2)
    assert submitted.committable() == {}
    first.ack()
    assert submitted.committable() == {}
    first.ack()
    assert submitted.committable() == {key("a"): b'{"o":4}'}
    assert submitted.committable() == {}  # handed out once


def test_source_partitions_do_not_wait_for_each_other() -> None:
    submitted = SubmittedRecords("c")
    slow = submitted.submit(records("a", 1), 1)
    fast = submitted.submit(records("b", 7), 1)
    fast.ack()
    assert submitted.committable() == {key("b"): b'{"o":7}'}
    slow.ack()
    assert submitted.committable() == {key("a"): b'{"o":1}'}


def test_a_failed_batch_blocks_its_partitions_forever_but_not_others() -> None:
    submitted = SubmittedRecords("c")
    failed = submitted.submit(records("a", 1) + records("b", 1), 2)
    failed.failed = True
    later = submitted.submit(records("a", 2) + records("c", 9), 2)
    submitted.acknowledge_all()
    assert submitted.committable() == {key("c"): b'{"o":9}'}
    later.ack(2)
    assert submitted.committable() == {}


def test_acknowledge_all_completes_everything_sent_so_far() -> None:
    submitted = SubmittedRecords("c")
    submitted.submit(records("a", 1, 2), 2)
    submitted.submit(records("a", 3), 1)
    submitted.acknowledge_all()
    submitted.submit(records("a", 4), 1)  # sent after the flush: not acknowledged by it
    assert submitted.committable() == {key("a"): b'{"o":3}'}


def test_records_without_a_source_partition_carry_no_offset() -> None:
    submitted = SubmittedRecords("c")
    batch = submitted.submit([SourceRecord(None, None, "t"), *records("a", 5)], 2)
    batch.ack(2)
    assert submitted.committable() == {key("a"): b'{"o":5}'}


def test_a_null_offset_is_a_tombstone() -> None:
    submitted = SubmittedRecords("c")
    submitted.submit([SourceRecord({"p": "a"}, None, "t")], 1).ack()
    assert submitted.committable() == {key("a"): None}
