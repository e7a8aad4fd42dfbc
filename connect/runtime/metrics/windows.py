"""Windowed statistics as Kafka's metrics keep them (`SampledStat`): a few samples of
`metrics.sample.window.ms` each (`metrics.num.samples` of them), the oldest dropped as time moves on.

The record path calls `record` once per batch (a poll, a put, a commit), never per record; rates are
read from running totals (`RateOfTotal`), so the record path does not even call them. Reads happen on
other threads (a scrape): they may see a batch half-recorded, which moves a figure by one batch at worst.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]


@dataclass(frozen=True)
class Windows:
    """How long each sample lasts and how many are kept (Kafka's `metrics.sample.window.ms`,
    `metrics.num.samples`), and whether tasks record at all (`metrics.recording.enable`)."""

    sample_s: float = 30.0
    samples: int = 2
    recording: bool = True

    @property
    def span_s(self) -> float:
        return self.sample_s * self.samples


class _Sample:
    __slots__ = ("count", "max", "min", "start", "total")

    def __init__(self, start: float) -> None:
        self.start = start
        self.count = 0
        self.total = 0.0
        self.max = float("-inf")
        self.min = float("inf")


class WindowedValues:
    """Avg, max and min of the values recorded within the windows (Kafka's `Avg`, `Max`, `Min`); NaN
    when nothing was recorded in them, as Kafka reports."""

    def __init__(self, windows: Windows, clock: Clock = time.monotonic) -> None:
        self._windows = windows
        self._clock = clock
        self._samples: deque[_Sample] = deque([_Sample(clock())], maxlen=windows.samples)

    def record(self, value: float, now: float | None = None) -> None:
        if now is None:
            now = self._clock()
        current = self._samples[-1]
        if now - current.start >= self._windows.sample_s:
            current = _Sample(now)
            self._samples.append(current)
        current.count += 1
        current.total += value
        if value > current.max:
            current.max = value
        if value < current.min:
            current.min = value

    def _live(self) -> list[_Sample]:
        oldest = self._clock() - self._windows.span_s
        return [s for s in list(self._samples) if s.start >= oldest and s.count]

    def avg(self) -> float:
        live = self._live()
        count = sum(s.count for s in live)
        return sum(s.total for s in live) / count if count else float("nan")

    def max(self) -> float:
        live = self._live()
        return max(s.max for s in live) if live else float("nan")

    def min(self) -> float:
        live = self._live()
        return min(s.min for s in live) if live else float("nan")


class RateOfTotal:
    """Per-second rate of a running total over the windows, from checkpoints taken when it is read.

    Kafka's `Rate` divides what was recorded in its samples by their span; this divides the growth of
    the total since the oldest checkpoint still within the span (or since the start) by the time since,
    which is the same figure without any work on the record path."""

    def __init__(self, read_total: Callable[[], float], windows: Windows, clock: Clock = time.monotonic) -> None:
        self._read_total = read_total
        self._windows = windows
        self._clock = clock
        self._checkpoints: deque[tuple[float, float]] = deque([(clock(), 0.0)])

    def rate(self) -> float:
        now = self._clock()
        total = self._read_total()
        checkpoints = self._checkpoints
        # Keep one checkpoint at or before the start of the span, so the rate always covers it all.
        while len(checkpoints) > 1 and checkpoints[1][0] <= now - self._windows.span_s:
            checkpoints.popleft()
        since, total_then = checkpoints[0]
        if now - checkpoints[-1][0] >= self._windows.sample_s / 2:
            checkpoints.append((now, total))
        elapsed = now - since
        return (total - total_then) / elapsed if elapsed > 0 else 0.0
