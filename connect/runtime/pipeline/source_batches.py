"""Polled `SourceRecordBatch`es turned into the columns `producer.produce` takes, on the task's thread.

The source counterpart of `sink_batches`: `WorkerSourceTask` sends a task's batches as columns only
while nothing needs the records themselves (`sends_columns`): no transformation chain, and a task that
does not override `commit_record` (which is handed each record as polled). Otherwise the batches are
turned into `SourceRecord`s right after the poll (`as_records`) and take the record path unchanged.

`convert_columns` converts a batch's keys, values and headers with one converter call per column
(`Converter.from_connect_data_batch`); if any of them raises, the caller sends that batch record by
record, so the error policy (`errors.tolerance`, the error log) applies to the failing record alone,
as it does on the record path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any

from connect.api.batch import SourceRecordBatch
from connect.api.records import SourceRecord
from connect.runtime.pipeline.record_pipeline import RecordPipeline

KafkaHeaders = list[tuple[str, bytes | None]] | None


def sends_columns(pipeline: RecordPipeline[SourceRecord], needs_record_reports: bool) -> bool:
    """Whether polled batches may be produced as columns rather than records."""
    return pipeline.transformer is None and not needs_record_reports


def as_records(batches: Sequence[SourceRecordBatch] | None) -> list[SourceRecord] | None:
    """The records of `batches`, in order (the record path's input)."""
    if not batches:
        return None
    return [record for batch in batches for record in batch]


def count_records(batches: Sequence[SourceRecordBatch]) -> int:
    return sum(len(batch.values) for batch in batches)


def convert_columns(
    pipeline: RecordPipeline[SourceRecord], batch: SourceRecordBatch
) -> tuple[Iterable[bytes | None], Sequence[bytes | None], Iterable[int], Iterable[KafkaHeaders]]:
    """Keys, values, timestamps and headers of `batch` as `producer.produce` takes them (iterables as long as
    the batch or endless, for `zip`); raises what a converter raised."""
    topic = batch.topic
    values = batch.values
    headers = batch.headers
    value_bytes = pipeline.value_converter.from_connect_data_batch(topic, batch.value_schema, values, headers)
    keys = batch.keys
    key_bytes: Iterable[bytes | None]
    if keys is None and batch.key_schema is None:
        key_bytes = repeat(None)  # a null key without a schema is None, no converter call (the record path's rule)
    else:
        key_column = [None] * len(values) if keys is None else keys
        key_bytes = pipeline.key_converter.from_connect_data_batch(topic, batch.key_schema, key_column, headers)
    return key_bytes, value_bytes, _timestamps(batch.timestamps), _kafka_headers(pipeline, topic, headers)


def _timestamps(timestamps: Sequence[int | None] | None) -> Iterable[int]:
    # librdkafka takes 0 for "no timestamp" (the producer then stamps the time of sending).
    if timestamps is None:
        return repeat(0)
    if None in timestamps:
        return [0 if timestamp is None else timestamp for timestamp in timestamps]
    return timestamps  # type: ignore[return-value]  # no None in it, checked above


def _kafka_headers(pipeline: RecordPipeline[SourceRecord], topic: str, headers: Any) -> Iterable[KafkaHeaders]:
    if headers is None:
        return repeat(None)
    header_from = pipeline.header_converter.from_connect_header
    return [
        [(h.key, header_from(topic, h.key, h.schema, h.value)) for h in record_headers] if record_headers else None
        for record_headers in headers
    ]
