"""The byte encoding of source offsets, as Kafka Connect writes them to its offsets topic.

Key: compact JSON `["<connector>",{<source partition>}]`; value: compact JSON of the source offset, or
None (a tombstone: the offset was reset). Stores compare keys as bytes, so the encoding must be
deterministic: maps keep the connector's insertion order (Kafka serializes Java maps in their
iteration order, which for the usual singleton and linked maps is insertion order), no spaces, UTF-8.
Called from task threads (flush) and the herder (offsets API).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from connect.api.errors import DataError

_PRIMITIVES = (str, int, float, bool, type(None))


def _check_primitive_map(what: str, value: Mapping[str, Any]) -> None:
    # Kafka rejects nested values in partitions and offsets: they must survive any JSON round trip
    # and compare equal as bytes.
    if not isinstance(value, Mapping):
        raise DataError(f"{what} must be a map, got {type(value).__name__}")
    for key, item in value.items():
        if not isinstance(key, str):
            raise DataError(f"{what} keys must be strings, got {key!r}")
        if not isinstance(item, _PRIMITIVES):
            raise DataError(f"{what} values must be primitives (string, number, boolean, null), got {key}={item!r}")


def encode_key(connector: str, partition: Mapping[str, Any]) -> bytes:
    """The store key of one source partition of `connector`."""
    _check_primitive_map("Source partition", partition)
    return orjson.dumps([connector, dict(partition)])


def encode_offset(offset: Mapping[str, Any] | None) -> bytes | None:
    if offset is None:
        return None
    _check_primitive_map("Source offset", offset)
    return orjson.dumps(dict(offset))


def decode_key(key: bytes) -> tuple[str, dict[str, Any]] | None:
    """(connector, source partition), or None for a key that is not in Kafka Connect's format."""
    try:
        parsed = orjson.loads(key)
    except orjson.JSONDecodeError:
        return None
    if isinstance(parsed, list) and len(parsed) == 2 and isinstance(parsed[0], str) and isinstance(parsed[1], dict):
        return parsed[0], parsed[1]
    return None


def decode_offset(value: bytes | None) -> dict[str, Any] | None:
    """The source offset, or None for a tombstone or a value that is not a JSON object."""
    if value is None:
        return None
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None
