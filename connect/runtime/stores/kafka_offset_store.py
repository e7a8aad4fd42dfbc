"""`KafkaOffsetStore`: source offsets in the compacted offsets topic, as Kafka Connect stores them.

Keys and values are the bytes of `connect.runtime.offsets.codec` (`["<connector>",{partition}]` →
offset JSON, None a tombstone), partitioned with Java's murmur2 so each key lands where a Java worker
would put it. Every worker reads the whole topic into a map (read_committed: offsets written in an
aborted exactly-once transaction never count).

`set` stages (visible to `get` at once); `flush` writes the staged values and returns once Kafka
acknowledged them all. A flushed value shadows the map until the reader reaches it, so `get` never
goes back to an older value that is still ahead of the reader. `get` and `snapshot` first read to the
end, so a task starting on a new worker sees what the previous owner committed (as Kafka does).

Exactly-once source tasks write offsets in their own transaction instead: `offset_records` gives the
records (topic, partition by murmur2, key, value) to send through the task's transactional producer;
readers see them once Kafka has written the commit markers, moments after the commit returned.

Threads: any method from task threads and the herder; the reader thread applies records.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass

from connect.api.errors import ConnectError, RetriableError
from connect.runtime.kafka import KafkaClients
from connect.runtime.stores.kafka_log import KafkaLogStore
from connect.runtime.stores.murmur2 import key_partition

log = logging.getLogger(__name__)

DEFAULT_START_TIMEOUT_S = 60.0
DEFAULT_READ_TIMEOUT_S = 30.0
DEFAULT_FLUSH_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class OffsetRecord:
    """One offset write for a producer of its own (exactly-once source path)."""

    topic: str
    partition: int
    key: bytes
    value: bytes | None


@dataclass(frozen=True)
class _Written:
    value: bytes | None
    partition: int
    offset: int


class KafkaOffsetStore(KafkaLogStore):
    """The `OffsetStore` of distributed mode."""

    def __init__(
        self,
        topic: str,
        clients: KafkaClients,
        *,
        name: str = "offsets",
        start_timeout: float = DEFAULT_START_TIMEOUT_S,
        read_timeout: float = DEFAULT_READ_TIMEOUT_S,
        producer_overrides: Mapping[str, str] | None = None,
        consumer_overrides: Mapping[str, str] | None = None,
    ) -> None:
        self._start_timeout = start_timeout
        self._read_timeout = read_timeout
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._data: dict[bytes, bytes] = {}
        self._staged: dict[bytes, bytes | None] = {}
        self._written: dict[bytes, _Written] = {}
        KafkaLogStore.__init__(
            self,
            topic,
            clients,
            name=name,
            producer_overrides=producer_overrides,
            consumer_overrides=consumer_overrides,
        )

    # -- OffsetStore ------------------------------------------------------------------------------

    def start(self) -> None:
        self._log.start(self._start_timeout)
        log.info("Loaded %d source offsets from %s", len(self._data), self.topic)

    def stop(self) -> None:
        try:
            self.flush()
        except ConnectError:
            log.exception("Could not write the last source offsets to %s", self.topic)
        self._log.stop()

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        self._log.read_to_end(self._read_timeout)
        with self._lock:
            result: dict[bytes, bytes] = {}
            for key in keys:
                value = self._lookup(key)
                if value is not None:
                    result[key] = value
            return result

    def set(self, values: Mapping[bytes, bytes | None]) -> None:
        with self._lock:
            self._staged.update(values)

    def flush(self, timeout: float | None = None) -> None:
        """Write everything staged; raises ConnectError (staged values kept) if Kafka did not confirm."""
        wait = DEFAULT_FLUSH_TIMEOUT_S if timeout is None else timeout
        deadline = time.monotonic() + wait
        # One flush at a time keeps the writes of a key in the order they were staged.
        with self._flush_lock:
            with self._lock:
                batch, self._staged = self._staged, {}
            if not batch:
                return
            sent: list[tuple[bytes, bytes | None, Future[tuple[int, int]]]] = []
            try:
                for key, value in batch.items():
                    sent.append((key, value, self._log.send(key, value)))
                for key, value, future in sent:
                    partition, offset = future.result(timeout=max(deadline - time.monotonic(), 0.0))
                    with self._lock:
                        self._written[key] = _Written(value, partition, offset)
            except (ConnectError, concurrent.futures.TimeoutError) as exc:
                self._restage(batch)
                if isinstance(exc, ConnectError):
                    raise
                raise RetriableError(
                    f"Kafka did not confirm {len(batch)} source offsets written to {self.topic} within {wait}s"
                ) from None

    def snapshot(self) -> dict[bytes, bytes]:
        self._log.read_to_end(self._read_timeout)
        with self._lock:
            merged = dict(self._data)
            overlay: dict[bytes, bytes | None] = {k: w.value for k, w in self._written.items()}
            overlay.update(self._staged)
            for key, value in overlay.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            return merged

    # -- beyond the protocol ------------------------------------------------------------------------

    def read_to_end(self, timeout: float) -> None:
        self._log.read_to_end(timeout)

    def offset_records(self, values: Mapping[bytes, bytes | None]) -> list[OffsetRecord]:
        """Offset writes for a source task's transactional producer, partitioned as Java would."""
        partitions = self._log.partitions
        if partitions < 1:
            raise ConnectError(f"The offset store on {self.topic} is not started")
        return [OffsetRecord(self.topic, key_partition(key, partitions), key, value) for key, value in values.items()]

    # -- internals --------------------------------------------------------------------------------

    def _lookup(self, key: bytes) -> bytes | None:
        if key in self._staged:
            return self._staged[key]
        written = self._written.get(key)
        if written is not None:
            return written.value
        return self._data.get(key)

    def _restage(self, batch: Mapping[bytes, bytes | None]) -> None:
        # Values staged again while this flush ran are newer: they win.
        with self._lock:
            for key, value in batch.items():
                self._staged.setdefault(key, value)

    def _on_record(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> None:
        if key is None:
            return
        with self._lock:
            if value is None:
                self._data.pop(key, None)
            else:
                self._data[key] = value
            written = self._written.get(key)
            if written is not None and written.partition == partition and offset >= written.offset:
                del self._written[key]
