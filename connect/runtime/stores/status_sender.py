"""`StatusSender`: the status store's writes, sent again after a retriable failure, newest write last.

Kafka's `KafkaStatusBackingStore.send` re-sends a status write that failed with a retriable error for as long
as it is still the key's latest write from this worker (its per-key "sequence") and may still be written
safely. Here likewise: a write whose delivery fails with a `RetriableError` (broker down, leader moving, too
few replicas in sync, timeout) is sent again after a back-off (doubling up to `max_backoff`) until Kafka takes
it, unless
- this sender was asked to write the same key since: the newer write wins and the older one is dropped (a
  retry must never land after it), or
- its `still_valid` check now says no (a status another worker wrote since, with a newer generation), or
- the sender stopped.
Other failures are logged and the write dropped, as before: a status is advisory, and whoever made the call
(a task, the herder) must never fail for it.

Ordering: every send, new or re-sent, happens under one lock that also moves the key's sequence, so the
check "still the latest" and the send are one step; since a key always goes to the same partition, Kafka
keeps that order. The lock is re-entrant because a delivery report may be served on the thread that holds
it (`KafkaLog.send` polls the producer while librdkafka's queue is full).

Threads: `write`/`send` from any thread; delivery reports on the log's producer thread; re-sends on one
short-lived daemon timer thread per key waiting for its next attempt.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from connect.api.errors import ConnectError, RetriableError

log = logging.getLogger(__name__)

Send = Callable[[bytes, bytes | None], Future[tuple[int, int]]]
"""`KafkaLog.send` for one key and value (None: tombstone)."""

RETRY_BACKOFF_S = 0.25
MAX_RETRY_BACKOFF_S = 5.0


@dataclass(frozen=True)
class _Write:
    key: bytes
    value: bytes | None
    sequence: int
    still_valid: Callable[[], bool] | None


class StatusSender:
    def __init__(
        self, send: Send, *, backoff: float = RETRY_BACKOFF_S, max_backoff: float = MAX_RETRY_BACKOFF_S
    ) -> None:
        self._send = send
        self._backoff = backoff
        self._max_backoff = max_backoff
        self._lock = threading.RLock()
        self._sequences: dict[bytes, int] = {}  # per key, the number of the latest write asked for
        self._timers: dict[bytes, threading.Timer] = {}  # per key, the re-send waiting for its back-off
        self._stopped = False

    def write(self, key: bytes, value: bytes | None, still_valid: Callable[[], bool] | None = None) -> None:
        """Write the record in the background, again and again while its failures are retriable; never raises.

        `still_valid()` (called under this sender's lock, before each re-send) says whether the write is still
        wanted."""
        with self._lock:
            self._attempt(_Write(key, value, self._newest(key), still_valid), 1)

    def send(self, key: bytes, value: bytes | None) -> Future[tuple[int, int]]:
        """Send the record once, as the key's latest write (earlier ones are no longer re-sent); the caller
        waits for the future and handles its failure. ConnectError if it cannot even be sent."""
        with self._lock:
            self._newest(key)
            return self._send(key, value)

    def stop(self) -> None:
        """Re-send nothing more; writes still waiting for their next attempt are dropped."""
        with self._lock:
            self._stopped = True
            timers, self._timers = list(self._timers.values()), {}
        for timer in timers:
            timer.cancel()
        if timers:
            log.warning("%d status write(s) waiting to be sent again were dropped as the store stopped", len(timers))

    # -- under the lock --------------------------------------------------------------------------

    def _newest(self, key: bytes) -> int:
        """Number a new write of `key`; any earlier one waiting to be sent again is dropped."""
        sequence = self._sequences.get(key, 0) + 1
        self._sequences[key] = sequence
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        return sequence

    def _attempt(self, write: _Write, attempt: int) -> None:
        try:
            future = self._send(write.key, write.value)
        except ConnectError as exc:
            self._failed(write, attempt, exc)
            return
        future.add_done_callback(lambda f: self._delivered(write, attempt, f))

    def _failed(self, write: _Write, attempt: int, error: BaseException) -> None:
        if not isinstance(error, RetriableError):
            log.error("Could not write status %s: %s", _text(write.key), error)
            return
        if not self._current(write):
            log.debug("Status write %s failed (%s); a newer one replaced it", _text(write.key), error)
            return
        delay = min(self._backoff * 2 ** (attempt - 1), self._max_backoff)
        level = logging.WARNING if attempt == 1 else logging.DEBUG
        log.log(level, "Could not write status %s (%s); sending it again in %.2f s", _text(write.key), error, delay)
        timer = threading.Timer(delay, self._resend, args=(write, attempt + 1))
        timer.name = f"status-resend-{_text(write.key)}"
        timer.daemon = True
        self._timers[write.key] = timer
        timer.start()

    def _current(self, write: _Write) -> bool:
        return not self._stopped and self._sequences.get(write.key) == write.sequence

    # -- other threads ---------------------------------------------------------------------------

    def _delivered(self, write: _Write, attempt: int, future: Future[tuple[int, int]]) -> None:
        error = future.exception()
        if error is None:
            if attempt > 1:
                log.info("Wrote status %s at attempt %d", _text(write.key), attempt)
            return
        with self._lock:
            self._failed(write, attempt, error)

    def _resend(self, write: _Write, attempt: int) -> None:
        with self._lock:
            if self._timers.get(write.key) is threading.current_thread():
                del self._timers[write.key]
            if not self._current(write):
                return
            if write.still_valid is not None and not write.still_valid():
                log.info("Not sending status %s again: a newer status of another worker replaced it", _text(write.key))
                return
            self._attempt(write, attempt)


def _text(key: bytes) -> str:
    return key.decode(errors="replace")
