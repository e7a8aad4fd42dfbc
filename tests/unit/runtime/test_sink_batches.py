"""Consumed messages as batches for `put_batches`: converted a column at a time, or record by record when
a column cannot be converted whole, with the same records either way."""

from __future__ import annotations

from typing import Any

from connect.api import RecordListBatch, SinkRecordBatch, TopicPartition
from connect.api.converter import Converter
from connect.api.data import INT32_SCHEMA, OPTIONAL_BYTES_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA
from connect.converters import ByteArrayConverter, JsonConverter
from connect.runtime.config.connector import ErrorHandlingSettings, ErrorTolerance
from connect.runtime.domain.states import ConnectorTaskId
from connect.runtime.pipeline.record_pipeline import RecordPipeline
from tests.support.pipelines import record_pipeline
from tests.support.worker_fakes import FakeMessage

TASK = ConnectorTaskId("snk", 0)
P0 = TopicPartition("in", 0)
P1 = TopicPartition("in", 1)


def pipeline(
    key: Converter | None = None, value: Converter | None = None, tolerance: ErrorTolerance = ErrorTolerance.NONE
) -> RecordPipeline[Any]:
    return record_pipeline(TASK, key=key, value=value, settings=ErrorHandlingSettings(tolerance=tolerance))


def json_pipeline(**configs: str) -> RecordPipeline[Any]:
    p = pipeline(value=JsonConverter())
    p.value_converter.configure(configs, False)  # after record_pipeline's own configure with defaults
    return p


def batches(p: RecordPipeline[Any], messages: list[FakeMessage]) -> tuple[list[SinkRecordBatch], dict[Any, int]]:
    seen: set[str] = set()
    return p.to_sink_batches(messages, seen, seen.add)


def as_records(p: RecordPipeline[Any], messages: list[FakeMessage]) -> list[Any]:
    return p.to_sink_records(messages, set(), lambda _: None)[0]


def test_string_columns_are_decoded_whole_and_give_the_records_put_would_get() -> None:
    p = pipeline()
    messages = [
        FakeMessage("in", 0, 0, b"k0", b"a0", [("h", b"42")]),
        FakeMessage("in", 0, 1, None, None, timestamp_=(0, -1)),
        FakeMessage("in", 0, 2, b"k2", "é".encode()),
        FakeMessage("in", 1, 0, None, b"b0"),
    ]
    delivered, offsets = batches(p, messages)
    assert offsets == {P0: 3, P1: 1}
    assert [type(b).__name__ for b in delivered] == ["MessageBatch", "MessageBatch"]
    first = delivered[0]
    assert (first.key_schema, first.value_schema) == (OPTIONAL_STRING_SCHEMA, OPTIONAL_STRING_SCHEMA)
    assert list(first.keys) == ["k0", None, "k2"] and list(first.values) == ["a0", None, "é"]
    assert [r for b in delivered for r in b] == as_records(p, messages)


def test_a_value_that_fails_to_convert_sends_its_partition_record_by_record_under_the_error_policy() -> None:
    p = pipeline(tolerance=ErrorTolerance.ALL)
    messages = [FakeMessage("in", 0, 0, None, b"ok"), FakeMessage("in", 0, 1, None, b"\xff"), FakeMessage("in", 1, 0)]
    delivered, offsets = batches(p, messages)
    assert offsets == {P0: 2, P1: 1}, "the skipped record's offset still counts as consumed"
    assert isinstance(delivered[0], RecordListBatch) and [r.value for r in delivered[0]] == ["ok"]
    assert type(delivered[1]).__name__ == "MessageBatch" and list(delivered[1].values) == [None]


def test_json_without_schemas_is_parsed_whole_nulls_and_nan_included() -> None:
    p = json_pipeline(**{"schemas.enable": "false"})
    messages = [FakeMessage("in", 0, i, None, v) for i, v in enumerate([b'{"a":1}', None, b"NaN", b"[2]"])]
    [batch], _ = batches(p, messages)
    assert batch.value_schema is None
    assert list(batch.values)[:2] == [{"a": 1}, None] and list(batch.values)[3] == [2]
    assert list(batch.values)[2] != list(batch.values)[2], "NaN, read by the standard parser"


def test_values_of_different_schemas_go_in_one_batch_per_run_of_one_schema() -> None:
    p = json_pipeline()
    int_value = b'{"schema":{"type":"int32","optional":false},"payload":%d}'
    text_value = b'{"schema":{"type":"string","optional":false},"payload":"t"}'
    messages = [FakeMessage("in", 0, i, None, v) for i, v in enumerate([int_value % 1, int_value % 2, text_value])]
    delivered, _ = batches(p, messages)
    assert [(b.value_schema, list(b.values)) for b in delivered] == [
        (INT32_SCHEMA, [1, 2]),
        (STRING_SCHEMA, ["t"]),
    ]
    assert [r for b in delivered for r in b] == as_records(p, messages)


def test_one_json_schema_for_the_whole_column_gives_one_converted_batch() -> None:
    p = json_pipeline()
    messages = [FakeMessage("in", 0, i, None, b'{"schema":{"type":"int32"},"payload":%d}' % i) for i in range(3)]
    [batch], _ = batches(p, messages)
    assert type(batch).__name__ == "MessageBatch"
    assert batch.value_schema is not None and list(batch.values) == [0, 1, 2]


def test_byte_array_columns_pass_through_unread_until_asked() -> None:
    p = pipeline(ByteArrayConverter(), ByteArrayConverter())
    [batch], _ = batches(p, [FakeMessage("in", 0, 0, b"k", b"v")])
    assert "values" not in vars(batch), "a raw column is read on first use"
    assert batch.value_schema == OPTIONAL_BYTES_SCHEMA and list(batch.values) == [b"v"]
