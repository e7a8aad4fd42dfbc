"""One background thread per mirror connector or task that runs its admin work on a schedule (Java's MirrorMaker
`Scheduler`): a step that fails is logged and tried again at its next turn, and never stops the others.

Jobs run one at a time, in the order they fall due. `once(job)` runs a job at the next turn (Java's
`execute`: the start-up steps). `every(interval, job, first_now)`: a negative interval schedules nothing (the
feature is off), an interval under a second runs once a second; `first_now=False` waits one interval before
the first run, as Java's `scheduleRepeatingDelayed` does. `stop` ends the thread after the running job.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)
MIN_INTERVAL_S = 1.0


class Scheduler:
    def __init__(self, name: str) -> None:
        self._name = name
        self._jobs: list[tuple[float, int, float | None, str, Callable[[], None]]] = []
        self._order = itertools.count()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def once(self, what: str, job: Callable[[], None]) -> None:
        self._push(time.monotonic(), None, what, job)

    def every(self, interval_s: float, what: str, job: Callable[[], None], *, first_now: bool = True) -> None:
        if interval_s < 0:
            return
        interval_s = max(interval_s, MIN_INTERVAL_S)
        self._push(time.monotonic() + (0.0 if first_now else interval_s), interval_s, what, job)

    def _push(self, due: float, interval_s: float | None, what: str, job: Callable[[], None]) -> None:
        with self._lock:
            heapq.heappush(self._jobs, (due, next(self._order), interval_s, what, job))
        self._wake.set()

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stopped.set()
        self._wake.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout_s)

    def _next(self) -> tuple[float, int, float | None, str, Callable[[], None]] | None:
        with self._lock:
            return self._jobs[0] if self._jobs else None

    def _run(self) -> None:
        while not self._stopped.is_set():
            upcoming = self._next()
            wait = None if upcoming is None else upcoming[0] - time.monotonic()
            if wait is None or wait > 0:
                self._wake.wait(wait)
                self._wake.clear()
                continue
            with self._lock:
                due, _, interval_s, what, job = heapq.heappop(self._jobs)
            try:
                job()
            except Exception:
                log.exception("%s: %s failed%s", self._name, what, "" if interval_s is None else "; tried again later")
            if interval_s is not None:
                self._push(max(due + interval_s, time.monotonic()), interval_s, what, job)
