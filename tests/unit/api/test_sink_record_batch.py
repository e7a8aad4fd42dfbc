"""SinkRecordBatch as connector authors use it: columns, records built on demand, the default put_batches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from connect.api import RecordListBatch, Schema, SinkRecord, SinkTask, TopicPartition
from connect.api.data import INT32_SCHEMA, STRING_SCHEMA

TP = TopicPartition("t", 3)


def records(offsets: Sequence[int], partition: int = 3) -> list[SinkRecord]:
    return [SinkRecord("t", partition, None, b"k%d" % o, None, b"v%d" % o, o, 1000 + o) for o in offsets]


def test_a_record_list_batch_reads_its_columns_from_the_records_and_indexes_like_a_list() -> None:
    given = records([5, 6, 7])
    batch = RecordListBatch(given)
    assert batch.topic_partition == TP and len(batch) == 3
    assert (list(batch.offsets), list(batch.timestamps)) == ([5, 6, 7], [1005, 1006, 1007])
    assert (list(batch.keys), list(batch.values)) == ([b"k5", b"k6", b"k7"], [b"v5", b"v6", b"v7"])
    assert batch[0] is given[0] and batch[-1] is given[2] and batch[1:] == given[1:]
    assert list(batch) == given
    with pytest.raises(IndexError):
        batch[3]
    assert "t-3, offsets 5..7" in repr(batch)


def test_a_batch_holds_records_of_one_partition() -> None:
    with pytest.raises(ValueError, match="one topic partition"):
        RecordListBatch(records([1]) + records([2], partition=4))
    with pytest.raises(ValueError, match="at least one"):
        RecordListBatch([])


def test_of_records_groups_by_partition_in_order_and_cuts_where_a_schema_changes() -> None:
    def typed(offset: int, partition: int, schema: Schema) -> SinkRecord:
        return SinkRecord("t", partition, None, None, schema, "v", offset, 0)

    given = [
        typed(1, 3, STRING_SCHEMA),
        typed(7, 4, STRING_SCHEMA),
        typed(2, 3, STRING_SCHEMA),
        typed(3, 3, INT32_SCHEMA),
        typed(8, 4, STRING_SCHEMA),
    ]
    batches = RecordListBatch.of_records(given)
    assert [(b.topic_partition.partition, list(b.offsets)) for b in batches] == [(3, [1, 2]), (3, [3]), (4, [7, 8])]
    assert [b.value_schema for b in batches] == [STRING_SCHEMA, INT32_SCHEMA, STRING_SCHEMA]
    assert RecordListBatch.of_records([]) == []


class PutOnly(SinkTask):
    def __init__(self) -> None:
        self.puts: list[list[SinkRecord]] = []

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def stop(self) -> None:
        pass

    def put(self, records: Sequence[SinkRecord]) -> None:
        self.puts.append(list(records))


def test_put_batches_defaults_to_one_put_of_every_record_in_order() -> None:
    task = PutOnly()
    first, second = records([1, 2]), records([1], partition=0)
    task.put_batches([RecordListBatch(first), RecordListBatch(second)])
    task.put_batches([])
    assert task.puts == [first + second, []]
