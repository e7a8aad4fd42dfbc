"""JSON object payloads to Arrow in bulk: the sink's hot path for ByteArrayConverter values.

A batch is newline-joined and parsed by `pyarrow.json` in one call with the open file's schema
(no per-record Python objects). Fields the schema lacks are inferred alongside, and the new schema
starts at the first record with a value in one of them; a batch whose values do not fit the schema
(a type changed) is split in halves until the records that fit are separated from those that start
a new schema, so a schema change costs O(log n) parses, once.

Inferred schemas are normalised for Spark and for stability: columns that are null in every record
(type `null`, or lists of nothing) are left out until a value appears, and timestamps that pyarrow
guessed from strings stay strings. Pure functions, any thread.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from connect.api import DataError

_BLOCK_SIZE = 1 << 24
_NEWLINE = ord("\n")


def parse_json_objects(payloads: Sequence[bytes], schema: pa.Schema | None) -> list[tuple[pa.Table, int]]:
    """Tables covering `payloads` in order, each with the row count it covers.

    The first table uses `schema` when the records fit it; every later table starts where the records
    stopped fitting the schema before it: a type changed, or a top-level field `schema` lacks got its
    first value (nested new fields extend the schema from the batch's first record). DataError for
    invalid JSON.
    """
    if not payloads:
        return []
    joined = b"\n".join(payloads)
    if _line_breaks(joined) != len(payloads) - 1:
        payloads = _compact(payloads)  # pretty-printed values: one line each (rare, per record)
        joined = b"\n".join(payloads)
    try:
        table = _read(joined, len(payloads), schema)
    except pa.ArrowException:
        return _parse_range(payloads, 0, len(payloads), schema)
    return _settle(payloads, table, schema)


def _line_breaks(data: bytes) -> int:
    # numpy's vectorised compare: bytes.count walks a byte at a time, several times slower (`docs/spark_sink.md`).
    return int(np.count_nonzero(np.frombuffer(data, np.uint8) == _NEWLINE))


def _compact(payloads: Sequence[bytes]) -> list[bytes]:
    compact: list[bytes] = []
    for i, p in enumerate(payloads):
        try:
            compact.append(orjson.dumps(orjson.loads(p)))
        except orjson.JSONDecodeError as exc:
            raise DataError(f"Value {i} of the batch is not valid JSON: {exc}") from None
    return compact


def _read(data: bytes, rows: int, schema: pa.Schema | None) -> pa.Table:
    parse = (
        pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer")
        if schema is not None
        else pj.ParseOptions()
    )
    table = _parse_block(data, parse)
    if table.num_rows != rows:
        raise pa.ArrowInvalid(f"{rows} values gave {table.num_rows} rows: a value is not one JSON object")
    return table


def _parse_range(payloads: Sequence[bytes], lo: int, hi: int, schema: pa.Schema | None) -> list[tuple[pa.Table, int]]:
    part = payloads[lo:hi]
    try:
        table = _read(b"\n".join(part), hi - lo, schema)
    except pa.ArrowException:
        if hi - lo > 1:
            mid = (lo + hi) // 2
            left = _parse_range(payloads, lo, mid, schema)
            right = _parse_range(payloads, mid, hi, left[-1][0].schema)
            return _merge(left + right)
        if schema is None:
            raise DataError(_describe_invalid(payloads[lo])) from None
        return _parse_range(payloads, lo, hi, None)
    return _settle(part, table, schema)


def _settle(payloads: Sequence[bytes], table: pa.Table, schema: pa.Schema | None) -> list[tuple[pa.Table, int]]:
    rows = len(payloads)
    if schema is not None and table.schema.equals(schema):
        return [(table, rows)]
    normal = normalize_schema(table.schema)
    if schema is not None and normal.equals(schema):
        return [(table.select(schema.names), rows)]
    if schema is not None:
        fitting = _rows_before_new_fields(table, normal, schema)
        if fitting:
            # The schema changes at the record that brings the field, not where this batch starts.
            head = table.slice(0, fitting).select(schema.names)
            return [(head, fitting), *_settle(payloads[fitting:], table.slice(fitting), schema)]
    if normal.equals(table.schema):
        return [(table, rows)]
    # Inference guessed types we do not keep (null columns, timestamps): read again with the normal schema.
    return [(_reread(payloads, normal), rows)]


def _rows_before_new_fields(table: pa.Table, normal: pa.Schema, schema: pa.Schema) -> int:
    """How many leading rows have no value in any top-level field that `schema` lacks, when new top-level
    fields are all that differs (0 otherwise): those rows still fit `schema` exactly."""
    new = [name for name in normal.names if name not in schema.names]
    kept = table.schema
    unchanged = all(
        kept.get_field_index(field.name) >= 0 and kept.field(field.name).type.equals(field.type) for field in schema
    )
    if not new or not unchanged:
        return 0
    first = min(_first_valid(table.column(name)) for name in new)
    return first if first < table.num_rows else 0


def _first_valid(column: pa.ChunkedArray) -> int:
    index = pc.index(pc.is_valid(column), True).as_py()
    return len(column) if index < 0 else int(index)


def _reread(payloads: Sequence[bytes], schema: pa.Schema) -> pa.Table:
    parse = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    return _parse_block(b"\n".join(payloads), parse)


def _parse_block(data: bytes, parse: pj.ParseOptions) -> pa.Table:
    """`data` parsed as one block on this thread.

    One block holds the whole batch, so a reader's thread pool has nothing to split: it would only add
    hand-offs, which cost more than the parse itself for a poll's worth of small records. The streaming
    reader, not `read_json`: `read_json` starts a read-ahead thread of its own on every call, and while
    Spark keeps the cores busy, waiting for that thread to be scheduled costs more than the parse. The
    streaming reader hands the read to Arrow's standing I/O threads instead (`docs/spark_sink.md`, "The
    streaming JSON reader").
    """
    options = pj.ReadOptions(block_size=max(_BLOCK_SIZE, len(data) + 1), use_threads=False)
    return pj.open_json(pa.BufferReader(data), read_options=options, parse_options=parse).read_all()


def _merge(parts: list[tuple[pa.Table, int]]) -> list[tuple[pa.Table, int]]:
    merged: list[tuple[pa.Table, int]] = []
    for table, rows in parts:
        if merged and merged[-1][0].schema.equals(table.schema):
            previous, previous_rows = merged[-1]
            merged[-1] = (pa.concat_tables([previous, table]), previous_rows + rows)
        else:
            merged.append((table, rows))
    return merged


def _describe_invalid(payload: bytes) -> str:
    try:
        value = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        return f"Value is not valid JSON: {exc}"
    return f"Value is JSON but not an object ({type(value).__name__}); set value.format or use Struct values"


def normalize_schema(schema: pa.Schema) -> pa.Schema:
    fields = [f for f in (_normal_field(f) for f in schema) if f is not None]
    return pa.schema(fields)


def _normal_field(field: pa.Field) -> pa.Field | None:
    kind = _normal_type(field.type)
    if kind is None:
        return None
    return field if kind.equals(field.type) else pa.field(field.name, kind, nullable=True)


def _normal_type(kind: pa.DataType) -> pa.DataType | None:
    if pa.types.is_null(kind):
        return None
    if pa.types.is_timestamp(kind):
        return pa.string()
    if pa.types.is_struct(kind):
        children = [f for f in (_normal_field(kind.field(i)) for i in range(kind.num_fields)) if f is not None]
        return pa.struct(children) if children else None
    if pa.types.is_list(kind):
        item = _normal_type(kind.value_type)
        return pa.list_(item) if item is not None else None
    return kind
