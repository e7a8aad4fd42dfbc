"""Records that flow between connectors and the runtime.

`SourceRecord` is what a `SourceTask.poll()` returns; `SinkRecord` is what a `SinkTask.put()` receives.
Both are slotted dataclasses, because the data path creates one per message. Treat them as immutable:
the runtime may still hold a record you were given (for offsets, error reports, transactions), so
derive a changed record with `with_(...)` instead of assigning to it. They are deliberately not
`frozen=True`: a frozen dataclass's `__init__` goes through `object.__setattr__` for every field,
which made record construction the largest single cost of the source path (docs/architecture.md, "Hot paths").
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

from connect.api.data import Schema

_R = TypeVar("_R", "SourceRecord", "SinkRecord")


class TopicPartition(NamedTuple):
    """A Kafka topic partition, as sink tasks see them in `open`, `close` and offset maps."""

    topic: str
    partition: int


class TimestampType(enum.Enum):
    """Where a Kafka record's timestamp came from, as Kafka reports it."""

    NO_TIMESTAMP_TYPE = "NoTimestampType"
    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"


@dataclass(frozen=True, slots=True)
class Header:
    """One record header. `schema` is None for schemaless values (e.g. raw bytes from Kafka)."""

    key: str
    value: Any
    schema: Schema | None = None


Headers = tuple[Header, ...]
"""Record headers in order; the same key may appear more than once, as in Kafka."""

SourcePartition = Mapping[str, Any]
"""Where a source record came from, e.g. {"filename": "/var/log/app.log"}: the key of its offsets."""

SourceOffset = Mapping[str, Any]
"""How far a source has read within its partition, e.g. {"position": 1024}."""


@dataclass(slots=True)
class SourceRecord:
    """A record produced by a source task, with the source position it was read from.

    `source_partition`/`source_offset` are stored by the runtime once Kafka acknowledged the record,
    and handed back through `SourceTaskContext.offset_reader` after a restart. `kafka_partition=None`
    lets the producer's partitioner choose (by key). `timestamp` is epoch milliseconds or None.
    """

    source_partition: SourcePartition | None
    source_offset: SourceOffset | None
    topic: str
    kafka_partition: int | None = None
    key_schema: Schema | None = None
    key: Any = None
    value_schema: Schema | None = None
    value: Any = None
    timestamp: int | None = None
    headers: Headers = ()

    def with_(self, **changes: Any) -> SourceRecord:
        """A copy with the given fields replaced (what transforms use)."""
        return _copy_with(self, _SOURCE_FIELDS, changes)


@dataclass(slots=True)
class SinkRecord:
    """A record consumed from Kafka and handed to a sink task.

    `original_topic`/`original_kafka_partition`/`original_kafka_offset` keep the coordinates from
    before transforms (which may rename the topic): use them when reporting offsets in
    `SinkTask.pre_commit`.
    """

    topic: str
    kafka_partition: int
    key_schema: Schema | None
    key: Any
    value_schema: Schema | None
    value: Any
    kafka_offset: int
    timestamp: int | None = None
    timestamp_type: TimestampType = TimestampType.NO_TIMESTAMP_TYPE
    headers: Headers = ()
    original_topic: str = ""
    original_kafka_partition: int = -1
    original_kafka_offset: int = -1

    def __post_init__(self) -> None:
        # Records built by connectors' tests often omit the originals: default them to the record's own.
        if not self.original_topic:
            self.original_topic = self.topic
        if self.original_kafka_partition < 0:
            self.original_kafka_partition = self.kafka_partition
        if self.original_kafka_offset < 0:
            self.original_kafka_offset = self.kafka_offset

    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.original_topic, self.original_kafka_partition)

    def with_(self, **changes: Any) -> SinkRecord:
        """A copy with the given fields replaced (what transforms use); originals are kept."""
        return _copy_with(self, _SINK_FIELDS, changes)


_SOURCE_FIELDS = tuple(f.name for f in dataclasses.fields(SourceRecord))
_SINK_FIELDS = tuple(f.name for f in dataclasses.fields(SinkRecord))
_set = object.__setattr__


def _copy_with(record: _R, fields: tuple[str, ...], changes: dict[str, Any]) -> _R:
    # dataclasses.replace re-runs __init__ through keyword arguments, several times the cost of a copy;
    # transforms call this once per record, so copy the slots directly. Unknown names fail like replace() would.
    unknown = changes.keys() - fields
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field(s) {sorted(unknown)}")
    copy = object.__new__(type(record))
    for name in fields:
        _set(copy, name, changes[name] if name in changes else getattr(record, name))
    return copy


ConnectRecord = SourceRecord | SinkRecord
"""Either record kind: what transforms and predicates take."""
