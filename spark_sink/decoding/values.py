"""Record values to Arrow tables, by kind of value, keeping record order. Task thread.

A batch of one topic partition (one value schema, as `SinkRecordBatch` has it) is cut into runs of one
kind (JSON bytes, str, dict, Struct, ...), each decoded column-wise; a run may give several segments
when its schema changes inside it. `value.format` says what bytes and str are: JSON objects (the default for bytes),
a single `value` string column (the default for str), or a `value` binary column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import pyarrow as pa

from connect.api import DataError, Schema, SchemaType, Struct
from spark_sink.decoding.connect_arrow import fields_table, value_table
from spark_sink.decoding.json_batch import parse_json_objects
from spark_sink.decoding.metadata import plain_json

_BYTES = "bytes"
_STR = "str"
_DICT = "dict"
_OTHER = "other"


@dataclass(frozen=True)
class Segment:
    """Consecutive values decoded to one table of one schema; `version` is the Connect schema version."""

    table: pa.Table
    version: int | None = None
    json: bool = False
    """Decoded from JSON objects: its schema may serve as the parse hint of later JSON values."""

    @property
    def rows(self) -> int:
        return int(self.table.num_rows)


class ValueDecoder:
    def __init__(self, value_format: str) -> None:
        self.value_format = value_format

    def decode(self, values: Sequence[Any], schema: Schema | None, hint: pa.Schema | None) -> list[Segment]:
        """Segments covering `values` (all with the value schema `schema`) in order.

        `hint` is the open file's schema when that came from JSON: JSON values are parsed with it, so a
        field missing from this batch is a null, not a schema change.
        """
        n = len(values)
        if n and raw_bytes_schema(schema) and set(map(type, values)) == {bytes}:
            return self._decode_run(_BYTES, values, hint)  # the hot path: one run of raw bytes
        segments: list[Segment] = []
        start = 0
        while start < n:
            kind = _kind(values[start], schema)
            stop = start + 1
            while stop < n and _same_kind(kind, values[stop], schema):
                stop += 1
            run = self._decode_run(kind, values[start:stop], hint)
            segments.extend(run)
            if run:
                hint = run[-1].table.schema if run[-1].json else None
            start = stop
        return segments

    def decode_columns(self, columns: Mapping[str, Sequence[Any]], schema: Schema) -> Segment:
        """Struct values of the STRUCT schema `schema` given as one list per field (`StructColumns`) as one
        segment: the table `decode` makes of the same values as Structs, one Arrow conversion per field."""
        return Segment(fields_table(columns, schema), schema.version)

    def _decode_run(self, kind: object, values: Sequence[Any], hint: pa.Schema | None) -> list[Segment]:
        fmt = self.value_format
        if isinstance(kind, Schema):
            return [Segment(value_table(values, kind), kind.version)]
        if kind == _BYTES:
            payloads = values if set(map(type, values)) == {bytes} else [bytes(v) for v in values]
            if fmt in ("auto", "json"):
                return self._json(payloads, hint)
            return [_single_column(pa.array(payloads, pa.binary()), fmt)]
        if kind == _STR:
            if fmt == "json":
                return self._json([v.encode() for v in values], hint)
            return [_single_column(pa.array(values, pa.string()), fmt)]
        if kind == _DICT:
            return self._json([_dumps(v) for v in values], hint)
        # Lists and scalars are wrapped as {"value": ...}: a shape of their own, never mixed with objects.
        return [Segment(table) for table, _ in parse_json_objects([_dumps({"value": v}) for v in values], None)]

    def _json(self, payloads: Sequence[bytes], hint: pa.Schema | None) -> list[Segment]:
        return [Segment(table, json=True) for table, _ in parse_json_objects(payloads, hint)]


def _single_column(column: pa.Array, fmt: str) -> Segment:
    if fmt == "binary":
        column = column.cast(pa.binary())
    else:
        try:
            column = column.cast(pa.string())
        except pa.ArrowInvalid:
            raise DataError("A value is not valid UTF-8; set value.format=binary to keep raw bytes") from None
    return Segment(pa.table({"value": column}))


def _dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(plain_json(value), default=str, option=orjson.OPT_NON_STR_KEYS)
    except TypeError as exc:
        raise DataError(f"Schemaless value cannot be written as JSON: {exc}") from None


def raw_bytes_schema(schema: Schema | None) -> bool:
    """No schema, or a plain BYTES one: ByteArrayConverter puts that on every value, and it says nothing
    about the content, so such values are raw bytes like schemaless ones (JSON under `auto`)."""
    return schema is None or (schema.type is SchemaType.BYTES and schema.name is None)


def _kind(value: Any, schema: Schema | None) -> object:
    if schema is not None and not (raw_bytes_schema(schema) and isinstance(value, bytes | bytearray | memoryview)):
        return schema
    if isinstance(value, bytes | bytearray | memoryview):
        return _BYTES
    if isinstance(value, str):
        return _STR
    if isinstance(value, dict | Struct):
        return _DICT
    return _OTHER


def _same_kind(kind: object, value: Any, schema: Schema | None) -> bool:
    if isinstance(kind, Schema):
        return schema is kind or (schema is not None and schema == kind)
    if schema is not None and not raw_bytes_schema(schema):
        return False
    cls = value.__class__
    if cls is bytes:
        return kind == _BYTES
    return _kind(value, schema) == kind
