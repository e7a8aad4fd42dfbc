"""`store.kafka.metadata`: the columns _topic, _partition, _offset, _timestamp and _key. Task thread.

The key column's type is fixed per topic partition by the first key seen: bytes keys give a binary
column, anything else a string column (structured keys as JSON); later keys are coerced to it so a
file never changes schema because of a key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import pyarrow as pa

from connect.api import DataError, Struct, TopicPartition

METADATA_COLUMNS = ("_topic", "_partition", "_offset", "_timestamp", "_key")
_TIMESTAMP = pa.timestamp("us", "UTC")


def key_type(keys: Sequence[Any]) -> pa.DataType:
    for key in keys:
        if key is not None:
            return pa.binary() if isinstance(key, bytes | bytearray | memoryview) else pa.string()
    return pa.string()


def add_metadata(
    table: pa.Table,
    tp: TopicPartition,
    offsets: pa.Array,
    timestamps: pa.Array,
    keys: Sequence[Any],
    kind: pa.DataType,
) -> pa.Table:
    clash = [name for name in METADATA_COLUMNS if name in table.column_names]
    if clash:
        raise DataError(f"The record value has fields named like the Kafka metadata columns: {', '.join(clash)}")
    rows = table.num_rows
    table = table.append_column("_topic", pa.repeat(pa.scalar(tp.topic, pa.string()), rows))
    table = table.append_column("_partition", pa.repeat(pa.scalar(tp.partition, pa.int32()), rows))
    table = table.append_column("_offset", offsets)
    table = table.append_column("_timestamp", timestamps.cast(pa.timestamp("ms", "UTC")).cast(_TIMESTAMP))
    return table.append_column("_key", _keys(keys, kind))


def _keys(keys: Sequence[Any], kind: pa.DataType) -> pa.Array:
    binary = pa.types.is_binary(kind)
    converted = [_key(k, binary) for k in keys]
    return pa.array(converted, kind)


def _key(key: Any, binary: bool) -> Any:
    if key is None:
        return None
    if isinstance(key, bytes | bytearray | memoryview):
        return bytes(key) if binary else bytes(key).decode("utf-8", "replace")
    if isinstance(key, str):
        return key.encode() if binary else key
    text = orjson.dumps(plain_json(key), default=str).decode() if isinstance(key, dict | list | Struct) else str(key)
    return text.encode() if binary else text


def plain_json(value: Any) -> Any:
    if isinstance(value, Struct):
        return {k: plain_json(v) for k, v in value.items()}
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_json(v) for v in value]
    return value
