"""The run loop of a worker process's entry point: start, wait for SIGTERM or SIGINT, stop gracefully.

Runs on the main thread (Python delivers signals there). The handlers only set an event; the stop itself
runs on the main thread after the wait, so a second signal cannot interrupt tasks while they commit.
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

log = logging.getLogger(__name__)


def settle_heap() -> None:
    """Move everything alive after start-up (plug-ins, REST app, clients: tens of thousands of objects) out
    of the garbage collector's reach. Otherwise every full collection walks them all, and the source path
    runs many a second: freezing saves a large part of its CPU per record (docs/architecture.md, "Hot paths")."""
    gc.collect()
    gc.freeze()


def run_until_signalled(start: Callable[[], int | None], stop: Callable[[], None], *, stopping: str) -> int:
    """Call `start`; a non-None result is an exit code returned at once (the start failed and cleaned up).
    Otherwise wait for SIGTERM/SIGINT, log `stopping`, call `stop` and return 0. The previous signal
    handlers are restored in every case."""
    stop_requested = threading.Event()

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        if stop_requested.is_set():
            log.warning("Already stopping (signal %s again); waiting for tasks to finish", signal.Signals(signum).name)
        stop_requested.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        code = start()
        if code is not None:
            return code
        settle_heap()
        # Event.wait without a timeout cannot be interrupted on some Pythons; wake up now and then.
        while not stop_requested.wait(1.0):
            pass
        log.info("Stop requested; %s", stopping)
        stop()
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sys.stderr.flush()
