"""Rotation decisions and back-pressure, and the intake that applies them (gathering polls included), without
Spark."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pytest

from connect.api import ConnectError, DataError, Header, RecordListBatch, SinkRecord, TopicPartition
from spark_sink.buffers import PartitionBuffer
from spark_sink.config import SinkSettings
from spark_sink.gathering import GatheredBatch
from spark_sink.intake import PartitionState, RecordIntake
from spark_sink.partitioners import Labels, Partitioner, PartitionInput, load_partitioner, load_timestamp_extractor
from spark_sink.rotation import BackPressure, early_flushes, interval_cut, next_scheduled_rotation, rows_until_full
from spark_sink.timezones import LocalClock, resolve

TP = TopicPartition("t", 0)
DAY_MS = 86_400_000


def test_flush_size_and_interval_cuts() -> None:
    assert rows_until_full(0, 10) == 10
    assert rows_until_full(9, 10) == 1
    times = pa.array([100, 150, 199, 200, 500], pa.int64())
    assert interval_cut(times, None, 100) == 3, "the first row sets the base of a new file"
    assert interval_cut(times, 50, 100) == 1
    assert interval_cut(times, 0, 1000) is None
    assert interval_cut(times, None, -1) is None


def test_scheduled_rotation_is_aligned_to_local_midnight() -> None:
    utc = LocalClock(resolve("UTC"))
    now = 10 * DAY_MS + 3_700_000
    assert next_scheduled_rotation(now, 3_600_000, utc) == 10 * DAY_MS + 7_200_000
    plus_one = LocalClock(resolve("+01:00"))
    assert next_scheduled_rotation(now, DAY_MS, plus_one) == 11 * DAY_MS - 3_600_000


def test_early_flushes_take_the_largest_buffers_first() -> None:
    sizes = {TopicPartition("t", p): size for p, size in enumerate([10, 400, 50, 300])}
    assert early_flushes(sizes, 1600) == []
    assert early_flushes(sizes, 1000) == [TopicPartition("t", 1), TopicPartition("t", 3)]


def test_back_pressure_pauses_at_the_bound_and_resumes_at_three_quarters() -> None:
    tps = {TopicPartition("t", p) for p in range(3)}
    pressure = BackPressure(100)
    assert pressure.decide(99, tps) == (set(), set())
    assert pressure.decide(100, tps) == (tps, set())
    assert pressure.decide(120, tps) == (set(), set()), "already paused"
    assert pressure.decide(76, tps) == (set(), set()), "not drained enough"
    assert pressure.decide(75, tps) == (set(), tps)
    assert pressure.decide(100, tps - {TopicPartition("t", 0)})[0] == tps - {TopicPartition("t", 0)}


def intake(**overrides: str) -> RecordIntake:
    props = {"path": "/tmp/unused", "flush.size": "4", **{k.replace("_", "."): v for k, v in overrides.items()}}
    settings = SinkSettings.from_props(props)
    extractor = load_timestamp_extractor(settings.raw) if settings.rotate_interval_ms > 0 else None
    return RecordIntake(settings, load_partitioner(settings.raw), extractor, LocalClock(resolve("UTC")))


def records(offsets: Sequence[int], value: bytes | None = b'{"a":1}', time_step: int = 1) -> RecordListBatch:
    return RecordListBatch(
        [SinkRecord(TP.topic, TP.partition, None, None, None, value, o, o * time_step) for o in offsets]
    )


def closed_ranges(state: PartitionState) -> list[tuple[int, int, str]]:
    return [(b.start_offset, b.end_offset, b.reason) for b in state.closed]


def test_intake_closes_every_flush_size_records() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1))
    intake().add(state, records(range(10)), 0)
    assert closed_ranges(state) == [(0, 3, "flush.size"), (4, 7, "flush.size")]
    assert (state.buffer.rows, state.buffer.start_offset) == (2, 8)


def test_intake_rotates_on_record_time() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1))
    intake(flush_size="100", rotate_interval_ms="30", timestamp_extractor="Record").add(
        state, records(range(10), time_step=10), 0
    )
    assert closed_ranges(state) == [
        (0, 2, "rotate.interval.ms"),
        (3, 5, "rotate.interval.ms"),
        (6, 8, "rotate.interval.ms"),
    ]


def test_intake_drops_redelivered_records_and_counts_skipped_tombstones() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1), next_expected=5)
    sink = intake(behavior_on_null_values="ignore")
    sink.add(state, records(range(3, 7)), 0)
    sink.add(state, records([7], value=None), 0)
    assert closed_ranges(state) == []
    assert (state.buffer.rows, state.buffer.consumed, state.buffer.start_offset, state.buffer.end_offset) == (
        2,
        3,
        5,
        7,
    )
    sink.add(state, records([8]), 0)
    assert closed_ranges(state) == [(5, 8, "flush.size")]
    with pytest.raises(DataError, match="Null value at t-0 offset 9"):
        intake().add(PartitionState(TP, PartitionBuffer(TP, 1)), records([9], value=None), 0)


def test_intake_drops_everything_while_a_rewind_is_pending() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1), rewinding=True)
    intake().add(state, records(range(3)), 0)
    assert state.buffer.empty


def test_intake_closes_when_too_many_encoded_partitions_are_open() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1))
    sink = intake(flush_size="100", partitioner_class="FieldPartitioner", partition_field_name="a",
                  partitioner_max_open_files="2")  # fmt: skip
    sink.add(
        state, RecordListBatch([SinkRecord("t", 0, None, None, None, b'{"a":%d}' % (o % 3), o) for o in range(6)]), 0
    )
    assert closed_ranges(state) == [(0, 5, "partitioner.max.open.files")]


def test_polls_of_raw_bytes_are_gathered_and_decoded_together_as_of_the_first() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1))
    sink = intake(flush_size="1000")
    for poll, start in enumerate(range(0, 30, 10)):
        sink.offer(state, records(range(start, start + 10)), 5 + poll)
    assert state.buffer.empty, "nothing decoded yet"
    assert state.buffered_bytes == 30 * len(b'{"a":1}'), "gathered bytes count toward the memory bound"
    sink.add_gathered(state)
    assert [chunk.offsets.to_pylist() for chunk in state.buffer.chunks] == [list(range(30))], "one decode"
    assert state.buffer.opened_wall_ms == 5, "the wall clock of the first poll"


def test_gathering_closes_a_file_on_the_poll_that_fills_it() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1))
    sink = intake(flush_size="25")
    for start in (0, 10):
        sink.offer(state, records(range(start, start + 10)), 0)
    assert closed_ranges(state) == []
    sink.offer(state, records(range(20, 30)), 0)
    assert closed_ranges(state) == [(0, 24, "flush.size")]
    assert (state.buffer.rows, state.buffer.start_offset) == (5, 25)


def test_what_was_gathered_is_added_before_a_batch_that_is_not() -> None:
    state = PartitionState(TP, PartitionBuffer(TP, 1), next_expected=1)
    sink = intake(flush_size="100", behavior_on_null_values="ignore")
    sink.offer(state, records(range(0, 3)), 0)  # offset 0 was published before: dropped when added
    sink.offer(state, records([3], value=None), 0)  # a tombstone is not gathered
    sink.offer(state, records(range(4, 6)), 0)
    sink.add_gathered(state)
    assert [chunk.offsets.to_pylist() for chunk in state.buffer.chunks] == [[1, 2], [4, 5]]
    assert (state.buffer.consumed, state.buffer.start_offset, state.buffer.end_offset) == (5, 1, 5)


def test_a_gathered_batch_keeps_keys_only_when_the_sink_stores_them() -> None:
    keyed = RecordListBatch([SinkRecord(TP.topic, TP.partition, None, b"k%d" % o, None, b"{}", o) for o in range(2)])
    with_keys = GatheredBatch(keyed, 0, with_keys=True)
    with_keys.extend(keyed)
    assert (list(with_keys.keys), len(with_keys)) == ([b"k0", b"k1", b"k0", b"k1"], 4)
    without = GatheredBatch(keyed, 0, with_keys=False)
    assert (list(without.offsets), list(without.values)) == ([0, 1], [b"{}", b"{}"])
    with pytest.raises(ConnectError, match="Keys were not gathered"):
        without.keys[0]


class HeaderPartitioner(Partitioner):
    """A user's partitioner that reads the records (their headers), which a gathered batch has not."""

    def encode_partitions(self, batch: PartitionInput) -> Labels:
        return pa.array([f"tenant={r.headers[0].value}" for r in batch.records], pa.string())


def test_nothing_that_reads_records_gets_a_gathered_batch() -> None:
    assert intake().gathers
    time_based = {"partitioner_class": "TimeBasedPartitioner", "path_format": "YYYY", "locale": "en",
                  "timezone": "UTC", "partition_duration_ms": "1000", "timestamp_extractor": "Record"}  # fmt: skip
    assert intake(**time_based).gathers, "the built-in partitioners and extractors read columns only"
    settings = SinkSettings.from_props({"path": "/tmp/unused", "flush.size": "100"})
    utc = LocalClock(resolve("UTC"))
    reporting = RecordIntake(settings, load_partitioner(settings.raw), None, utc, lambda record, error: None)
    assert not reporting.gathers, "an errant record report needs the record"
    by_header = RecordIntake(settings, HeaderPartitioner(), None, utc)
    assert not by_header.gathers
    state = PartitionState(TP, PartitionBuffer(TP, 1))
    tagged = [
        SinkRecord(TP.topic, TP.partition, None, None, None, b'{"a":1}', o, 0, headers=(Header("tenant", "x"),))
        for o in range(3)
    ]
    by_header.offer(state, RecordListBatch(tagged), 0)
    assert state.buffer.rows == 3 and state.buffer.labels == set(), "added at once, with its records"
    assert state.buffer.chunks[0].labels.to_pylist() == ["tenant=x"] * 3
