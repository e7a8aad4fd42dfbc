"""`HerderThread`: the one thread on which a herder runs work that must not run on its caller's thread.

A connector may ask for new task configs from inside `Connector.start` (while a REST thread holds the
herder lock and waits for that start), KIP-745 restarts answer before they happen, and failed
reconfigurations are retried later. Each job runs on this thread holding the herder's lock, so jobs and
REST requests still happen one at a time. Jobs given after `shutdown` are dropped.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)

Job = Callable[[], None]


class HerderThread:
    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="herder")
        self._timers: set[threading.Timer] = set()
        self._timers_lock = threading.Lock()
        self._stopping = False

    def submit(self, job: Job, delay: float = 0.0) -> None:
        """Run `job` (after `delay` seconds) on the herder thread; its exceptions are logged."""
        if self._stopping:
            return
        if delay > 0:
            self._schedule(job, delay)
            return
        with contextlib.suppress(RuntimeError):  # shut down meanwhile
            self._executor.submit(self._run, job)

    def shutdown(self) -> None:
        """Drop scheduled and queued jobs, wait for the running one."""
        self._stopping = True
        with self._timers_lock:
            timers, self._timers = self._timers, set()
        for timer in timers:
            timer.cancel()
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _run(self, job: Job) -> None:
        with self._lock:
            if self._stopping:
                return
            try:
                job()
            except Exception:
                log.exception("Herder request failed")

    def _schedule(self, job: Job, delay: float) -> None:
        def fire() -> None:
            with self._timers_lock:
                self._timers.discard(timer)
            self.submit(job)

        timer = threading.Timer(delay, fire)
        timer.daemon = True
        with self._timers_lock:
            self._timers.add(timer)
        timer.start()
