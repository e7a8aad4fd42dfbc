"""`OffsetStore`: the persistence behind source offsets, keyed by encoded bytes as in Kafka Connect.

`set` stages values (immediately visible to `get`), `flush` makes everything staged durable. A None
value is a tombstone: the key is removed. Keys and values are the bytes of `offsets.codec`, so a store
backed by a compacted Kafka topic (distributed mode) has the same shape as a memory or file one
(`connect.runtime.stores`).

Thread safety: every method may be called from any task thread and from the herder; each store
serializes access with its own lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol


class OffsetStore(Protocol):
    def start(self) -> None:
        """Load what is stored; called once before the first `get`."""
        ...

    def stop(self) -> None: ...

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        """The stored values of those `keys` that have one."""
        ...

    def set(self, values: Mapping[bytes, bytes | None]) -> None:
        """Stage values (None removes the key); durable once `flush` returns."""
        ...

    def flush(self, timeout: float | None = None) -> None:
        """Persist everything staged so far; raises ConnectError if it could not."""
        ...

    def snapshot(self) -> dict[bytes, bytes]:
        """Every stored entry (for the offsets REST API)."""
        ...
