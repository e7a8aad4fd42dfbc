"""Spreading records evenly over time for a rate limit, without busy waiting.

Record k of a paced task is due at `start + k / rate`. `Pacer.take` hands out the records that are
due now, and when none is, sleeps until the next one is due on an Event that `stop()` sets, so a
stopping task never waits out the sleep. A task that fell behind (paused, or slowed by back-pressure)
catches up by at most one second's worth of records instead of bursting.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Pacer:
    """Hands out permission for at most `rate` records per second (rate 0: no limit)."""

    def __init__(self, rate: float, stopping: threading.Event, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._stopping = stopping
        self._clock = clock
        self._start = clock()
        self._granted = 0
        self._max_backlog = max(1, int(rate))

    def take(self, wanted: int, max_wait_s: float) -> int:
        """How many of `wanted` records may go now; waits up to `max_wait_s` for the first. 0 if none."""
        if self._rate <= 0:
            return wanted
        due = self._due()
        if due <= 0:
            wait = (self._granted + 1) / self._rate - (self._clock() - self._start)
            if self._stopping.wait(min(max(wait, 0.0), max_wait_s)) or wait > max_wait_s:
                return 0
            due = self._due()
            if due <= 0:
                return 0
        granted = min(wanted, due)
        self._granted += granted
        return granted

    def _due(self) -> int:
        elapsed = self._clock() - self._start
        due = int(elapsed * self._rate) - self._granted
        if due > self._max_backlog:
            # Forget the backlog beyond one second: shift the schedule instead of sending a burst.
            self._start = self._clock() - (self._granted + self._max_backlog) / self._rate
            due = self._max_backlog
        return due
