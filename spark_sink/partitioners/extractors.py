"""Timestamp extractors with Confluent's names: Wallclock, Record and RecordField. Task thread only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from connect.api import DataError
from spark_sink.config import TIMESTAMP_FIELD_CONFIG
from spark_sink.partitioners.base import PartitionInput, TimestampExtractor
from spark_sink.partitioners.columns import field_column


class _ColumnsOnly(TimestampExtractor):
    """The built-in extractors read columns (values, offsets, timestamps, the wall clock), never records."""

    @property
    def reads_records(self) -> bool:
        return False


class WallclockTimestampExtractor(_ColumnsOnly):
    """Processing time: every row of a batch gets the batch's wall clock."""

    def extract(self, batch: PartitionInput) -> pa.Array:
        return pa.repeat(pa.scalar(batch.now_ms, pa.int64()), batch.num_rows)

    @property
    def is_wallclock(self) -> bool:
        return True


class RecordTimestampExtractor(_ColumnsOnly):
    """The Kafka record's own timestamp."""

    def extract(self, batch: PartitionInput) -> pa.Array:
        if batch.timestamps.null_count:
            first = batch.offsets[pc.index(pc.is_null(batch.timestamps), True).as_py()].as_py()
            raise DataError(
                f"Unable to determine timestamp using timestamp.extractor Record for the record at "
                f"{batch.topic}-{batch.partition} offset {first}: it has no timestamp"
            )
        return batch.timestamps.cast(pa.int64())


class RecordFieldTimestampExtractor(_ColumnsOnly):
    """A value field: a timestamp or date, epoch milliseconds, or a string of digits or ISO-8601."""

    def __init__(self) -> None:
        self.field = "timestamp"

    def configure(self, config: Mapping[str, Any]) -> None:
        self.field = str(config.get(TIMESTAMP_FIELD_CONFIG) or "timestamp")

    def extract(self, batch: PartitionInput) -> pa.Array:
        column = field_column(batch.values, self.field)
        if column.null_count:
            raise DataError(f"Unable to determine timestamp using field '{self.field}': it is null in some records")
        kind = column.type
        if pa.types.is_timestamp(kind) or pa.types.is_date(kind):
            as_ms = column.cast(pa.timestamp("ms", kind.tz if pa.types.is_timestamp(kind) else None))
            return as_ms.cast(pa.int64())
        if pa.types.is_integer(kind):
            return column.cast(pa.int64())
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            return _parse_strings(column.cast(pa.string()), self.field)
        raise DataError(f"Field '{self.field}' of type {kind} cannot be used as a timestamp")


def _parse_strings(column: pa.Array, field: str) -> pa.Array:
    digits = pc.match_substring_regex(column, r"^-?[0-9]+$")
    if pc.all(digits).as_py():
        return column.cast(pa.int64())
    if not pc.any(digits).as_py():
        try:
            return column.cast(pa.timestamp("ms", "UTC")).cast(pa.int64())
        except pa.ArrowInvalid:
            pass  # some values have no zone offset: parse each (naive ISO-8601 means UTC, as Joda's parser)
    return pa.array([_parse_one(v, field) for v in column.to_pylist()], pa.int64())


def _parse_one(value: str, field: str) -> int:
    import datetime as dt

    if value.lstrip("-").isdigit():
        return int(value)
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        raise DataError(f"Field '{field}' holds {value!r}, neither epoch milliseconds nor ISO-8601") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return int(parsed.timestamp() * 1000)
