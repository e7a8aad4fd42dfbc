"""The `OffsetReader` that a source connector and its tasks read their stored offsets through.

One per connector (all of its tasks share one offset namespace, as in Kafka Connect). Called from task
threads, mostly in `start`; each call is one `get` on the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from connect.api.records import SourceOffset, SourcePartition
from connect.runtime.offsets.codec import decode_offset, encode_key
from connect.runtime.offsets.store import OffsetStore


class OffsetStorageReader:
    def __init__(self, connector: str, store: OffsetStore) -> None:
        self.connector = connector
        self._store = store

    def offset(self, partition: SourcePartition) -> SourceOffset | None:
        return self.offsets([partition])[0][1]

    def offsets(self, partitions: Iterable[SourcePartition]) -> list[tuple[SourcePartition, SourceOffset | None]]:
        wanted = [(partition, encode_key(self.connector, partition)) for partition in partitions]
        stored = self._store.get(key for _, key in wanted)
        result: list[tuple[SourcePartition, SourceOffset | None]] = []
        for partition, key in wanted:
            offset: dict[str, Any] | None = decode_offset(stored.get(key))
            result.append((partition, offset))
        return result
