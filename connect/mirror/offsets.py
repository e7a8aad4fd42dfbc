"""What MirrorMaker's connectors accept through the offsets API (KIP-875), as Java's `alterOffsets` checks it.

The checkpoint and heartbeat connectors store a constant offset (`{"offset": 0}`) that nothing reads: a new
one must be that constant (or a reset); their partitions must name the keys the connector stores. The
source connector's partitions are upstream topic-partitions of a cluster, its offsets upstream offsets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from connect.api import OffsetsToAlter
from connect.api.errors import ConfigError

_INT_MAX = 2**31 - 1


def _check_partition(partition: Mapping[str, Any], string_keys: Sequence[str], int_keys: Sequence[str]) -> None:
    for key in string_keys:
        if not isinstance(partition.get(key), str):
            raise ConfigError(f"The source partition {dict(partition)} must have a string '{key}'")
    for key in int_keys:
        value = partition.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= _INT_MAX:
            raise ConfigError(f"The source partition {dict(partition)} must have a '{key}' between 0 and {_INT_MAX}")


def _offset_value(offset: Mapping[str, Any]) -> int:
    value = offset.get("offset")
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"The source offset {dict(offset)} must have an integer 'offset'")
    return value


def check_constant_offsets(offsets: OffsetsToAlter, string_keys: Sequence[str], int_keys: Sequence[str] = ()) -> None:
    """The checkpoint and heartbeat connectors' rule: partitions with their keys, offset 0 or a reset."""
    for partition, offset in offsets:
        _check_partition(partition, string_keys, int_keys)
        if offset is not None and _offset_value(offset) != 0:
            raise ConfigError(f"The source offset {dict(offset)} must be 0: this connector's offsets are not read")


def check_source_offsets(offsets: OffsetsToAlter) -> None:
    """The source connector's rule: `cluster`/`topic` strings, a `partition` int, a non-negative offset."""
    for partition, offset in offsets:
        _check_partition(partition, ("cluster", "topic"), ("partition",))
        if offset is not None and _offset_value(offset) < 0:
            raise ConfigError(f"The source offset {dict(offset)} must not be negative")
