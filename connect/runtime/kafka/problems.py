"""`ClientProblems`: the last authentication or TLS failure a worker's Kafka clients reported.

librdkafka retries such failures for ever in the background (a wrong SASL password, a broker certificate
the trust store does not vouch for), so a worker whose Kafka clients cannot connect would otherwise look
healthy. Every client a `KafkaClients` builds reports its errors to that factory's `problems`
(`error_cb`); a standalone worker's `/health` turns unhealthy while such a failure is recent (librdkafka
retries at least every `reconnect.backoff.max.ms`, 10 s by default, so a lasting failure stays recent).
A distributed worker stops at start-up instead, as Kafka's does, since it cannot read its internal
topics. Task processes pass their clients' failures on to their worker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class ClientProblems:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._last: tuple[float, str] | None = None
        self.forward: Callable[[str], None] | None = None
        """Where a task process passes each failure on: to its worker, whose health it is."""

    def note(self, reason: str) -> None:
        with self._lock:
            self._last = (self._clock(), reason)
        forward = self.forward
        if forward is not None:
            forward(reason)

    def recent(self, within_s: float) -> str | None:
        """The last failure's reason, if it happened within `within_s` seconds."""
        with self._lock:
            last = self._last
        if last is None or self._clock() - last[0] > within_s:
            return None
        return last[1]
