"""`Wakeups`: when the coordinator thread runs its next step: at once when another thread asks
(`now`), else at the earliest time a part of the coordinator asked for (`at`), else after `idle`.
"""

from __future__ import annotations

import threading
import time


class Wakeups:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._due: list[float] = []  # the coordinator thread's own

    def now(self) -> None:
        """Run a step at once (any thread)."""
        self._event.set()

    def at(self, when: float) -> None:
        """Run a step by `when`, a `time.monotonic()` time (coordinator thread)."""
        self._due.append(when)

    def wait(self, idle: float) -> None:
        """Until the next step is due (coordinator thread); forgets the times that have come."""
        now = time.monotonic()
        due = min(self._due, default=now + idle)
        self._event.wait(max(0.0, due - now))
        self._event.clear()
        now = time.monotonic()
        self._due = [t for t in self._due if t > now]
