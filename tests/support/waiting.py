"""`wait_until`: the one way tests wait for something to happen (a condition polled up to a deadline)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Polled this often during the first second, so that quick in-process conditions are seen at once (and
# short-lived states are not missed); `interval` after that, so a broker or a REST server is not hammered.
_FAST_POLL_S = 0.005
_FAST_PHASE_S = 1.0


def wait_until(
    condition: Callable[[], T], timeout: float = 10.0, what: str = "the condition", interval: float = 0.05
) -> T:
    """The first truthy value of `condition()`, polled for up to `timeout` seconds (every 5 ms during the
    first second, then every `interval`); AssertionError naming `what` and the last value when the
    deadline passes first."""
    started = time.monotonic()
    deadline = started + timeout
    while True:
        value = condition()
        if value:
            return value
        now = time.monotonic()
        if now >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what} (last value: {value!r})")
        pause = min(_FAST_POLL_S, interval) if now - started < _FAST_PHASE_S else interval
        time.sleep(min(pause, deadline - now))


def holds_for(condition: Callable[[], object], duration: float, what: str, interval: float = 0.1) -> None:
    """`condition()` stays truthy for `duration` seconds, polled every `interval`; AssertionError naming
    `what` at the first falsy value (a negative to show: that nothing happens for a while)."""
    deadline = time.monotonic() + duration
    while True:
        value = condition()
        if not value:
            raise AssertionError(f"{what} stopped holding (value: {value!r})")
        now = time.monotonic()
        if now >= deadline:
            return
        time.sleep(min(interval, deadline - now))
