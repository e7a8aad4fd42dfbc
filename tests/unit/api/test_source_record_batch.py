"""SourceRecordBatch: columns checked, records built on demand, `of_records` and the default `poll_batches`."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from connect.api import Header, SourceRecord, SourceRecordBatch, SourceTask
from connect.api.data import INT64_SCHEMA, STRING_SCHEMA


def test_records_are_built_from_the_columns() -> None:
    batch = SourceRecordBatch(
        "t",
        ["a", "b"],
        STRING_SCHEMA,
        keys=[1, 2],
        key_schema=INT64_SCHEMA,
        source_partition={"f": "x"},
        source_offsets=[{"p": 1}, {"p": 2}],
        kafka_partition=3,
        timestamps=[10, None],
        headers=[(Header("h", "v"),), ()],
    )
    assert len(batch) == 2
    assert batch[1] == SourceRecord({"f": "x"}, {"p": 2}, "t", 3, INT64_SCHEMA, 2, STRING_SCHEMA, "b", None, ())
    assert batch[-2].headers == (Header("h", "v"),)
    assert [r.value for r in batch] == ["a", "b"]
    assert batch.last_source_offset == {"p": 2}
    with pytest.raises(IndexError):
        batch[2]


def test_absent_columns_mean_none_for_every_record() -> None:
    (record,) = SourceRecordBatch("t", ["a"])
    assert record == SourceRecord(None, None, "t", value="a")


def test_columns_of_another_length_are_refused() -> None:
    with pytest.raises(ValueError, match="keys has 1 entries for 2 values"):
        SourceRecordBatch("t", ["a", "b"], keys=["k"])
    with pytest.raises(ValueError, match="headers"):
        SourceRecordBatch("t", ["a"], headers=[(), ()])


def test_of_records_splits_runs_and_keeps_the_records_themselves() -> None:
    p1, p2 = {"f": 1}, {"f": 2}
    records = [
        SourceRecord(p1, {"o": 1}, "t", value="a"),
        SourceRecord(p1, {"o": 2}, "t", value="b"),
        SourceRecord(p2, {"o": 1}, "t", value="c"),
        SourceRecord(p2, {"o": 2}, "u", value="d"),
    ]
    batches = SourceRecordBatch.of_records(records)
    assert [(b.topic, b.source_partition, list(b.values)) for b in batches] == [
        ("t", p1, ["a", "b"]),
        ("t", p2, ["c"]),
        ("u", p2, ["d"]),
    ]
    assert batches[0][1] is records[1]
    assert SourceRecordBatch.of_records([]) == []


def test_the_default_poll_batches_hands_on_what_poll_returned() -> None:
    class Task(SourceTask):
        def __init__(self, polled: list[SourceRecord] | None) -> None:
            self.polled = polled

        def start(self, props: Mapping[str, str]) -> None: ...

        def stop(self) -> None: ...

        def poll(self) -> list[SourceRecord] | None:
            return self.polled

    records = [SourceRecord(None, None, "t", value="a")]
    (batch,) = Task(records).poll_batches() or []
    assert list(batch) == records
    assert Task(None).poll_batches() is None
    assert Task([]).poll_batches() is None
