"""MirrorMaker 2's internal records, byte for byte as Java writes them: offset syncs, checkpoints, heartbeats.

Each is a key and a value built from Kafka's protocol primitives (`org.apache.kafka.common.protocol.types`):
big-endian INT16/INT32/INT64 and STRING (an INT16 byte length, then UTF-8), fields in declaration order, no
tags, no struct length. A Java MirrorMaker and a kconnect one read each other's topics, so nothing here may
drift from Java's `OffsetSync`, `Checkpoint` and `Heartbeat`:

- an offset sync's value has **no** version header; a checkpoint's and a heartbeat's start with INT16 0;
- an offset sync's key names the **upstream** topic-partition, a checkpoint's the **downstream** (renamed) one.

Readers ignore trailing bytes, as Java's do, so a later version that appends fields still reads.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from connect.api.errors import DataError

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_STRING_MAX_BYTES = 32767
VERSION = 0


def _string(value: str) -> bytes:
    encoded = value.encode()
    if len(encoded) > _STRING_MAX_BYTES:
        raise DataError(f"a STRING field holds at most {_STRING_MAX_BYTES} bytes, got {len(encoded)}")
    return _INT16.pack(len(encoded)) + encoded


class _Reader:
    """Reads the primitives in order; a record cut short is a DataError (Java's SchemaException)."""

    def __init__(self, data: bytes, what: str) -> None:
        self._data = data
        self._position = 0
        self._what = what

    def _take(self, size: int) -> bytes:
        end = self._position + size
        if end > len(self._data):
            raise DataError(f"{self._what} is cut short: {len(self._data)} bytes")
        chunk = self._data[self._position : end]
        self._position = end
        return chunk

    def int16(self) -> int:
        return int(_INT16.unpack(self._take(2))[0])

    def int32(self) -> int:
        return int(_INT32.unpack(self._take(4))[0])

    def int64(self) -> int:
        return int(_INT64.unpack(self._take(8))[0])

    def string(self) -> str:
        length = self.int16()
        if length < 0:
            raise DataError(f"{self._what} has a null STRING where a value is required")
        try:
            return self._take(length).decode()
        except UnicodeDecodeError as exc:
            raise DataError(f"{self._what} has a STRING that is not UTF-8: {exc}") from exc

    def version(self) -> None:
        version = self.int16()
        if version != VERSION:
            raise DataError(f"{self._what} has version {version}; this reader knows version {VERSION}")


@dataclass(frozen=True, slots=True)
class OffsetSync:
    """Where an upstream offset landed downstream (Java's `OffsetSync`), on `mm2-offset-syncs.<alias>.internal`.

    `topic`/`partition` are the upstream topic-partition; `downstream_offset` the offset the record mirrored
    from `upstream_offset` got on the target cluster."""

    topic: str
    partition: int
    upstream_offset: int
    downstream_offset: int

    def key(self) -> bytes:
        return _string(self.topic) + _INT32.pack(self.partition)

    def value(self) -> bytes:
        return _INT64.pack(self.upstream_offset) + _INT64.pack(self.downstream_offset)

    @classmethod
    def read(cls, key: bytes, value: bytes) -> OffsetSync:
        key_reader, value_reader = _Reader(key, "an offset sync's key"), _Reader(value, "an offset sync's value")
        topic, partition = key_reader.string(), key_reader.int32()
        return cls(topic, partition, value_reader.int64(), value_reader.int64())


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A consumer group's committed offset translated to the target cluster (Java's `Checkpoint`), on
    `<source alias>.checkpoints.internal`.

    `topic` is the downstream (remote) name, e.g. `A.orders`; `metadata` the group's commit metadata."""

    group: str
    topic: str
    partition: int
    upstream_offset: int
    downstream_offset: int
    metadata: str = ""

    def key(self) -> bytes:
        return _string(self.group) + _string(self.topic) + _INT32.pack(self.partition)

    def value(self) -> bytes:
        return (
            _INT16.pack(VERSION)
            + _INT64.pack(self.upstream_offset)
            + _INT64.pack(self.downstream_offset)
            + _string(self.metadata)
        )

    @classmethod
    def read(cls, key: bytes, value: bytes) -> Checkpoint:
        key_reader, value_reader = _Reader(key, "a checkpoint's key"), _Reader(value, "a checkpoint's value")
        group, topic, partition = key_reader.string(), key_reader.string(), key_reader.int32()
        value_reader.version()
        upstream, downstream = value_reader.int64(), value_reader.int64()
        return cls(group, topic, partition, upstream, downstream, value_reader.string())


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """A flow's sign of life (Java's `Heartbeat`), on `heartbeats`: emitted by the flow `source -> target`
    every `emit.heartbeats.interval.seconds`; `timestamp_ms` is also the record's timestamp."""

    source_cluster_alias: str
    target_cluster_alias: str
    timestamp_ms: int

    def key(self) -> bytes:
        return _string(self.source_cluster_alias) + _string(self.target_cluster_alias)

    def value(self) -> bytes:
        return _INT16.pack(VERSION) + _INT64.pack(self.timestamp_ms)

    @classmethod
    def read(cls, key: bytes, value: bytes) -> Heartbeat:
        key_reader, value_reader = _Reader(key, "a heartbeat's key"), _Reader(value, "a heartbeat's value")
        source, target = key_reader.string(), key_reader.string()
        value_reader.version()
        return cls(source, target, value_reader.int64())
