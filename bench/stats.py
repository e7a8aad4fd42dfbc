"""Small statistics over repeated measurements: min/median/max summaries, percentiles and ratios.

Pure functions on lists of floats so the report and the scenarios agree on one definition of each.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """The spread of the repetitions of one metric."""

    minimum: float
    median: float
    maximum: float
    count: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Summary:
        if not samples:
            raise ValueError("a summary needs at least one sample")
        return cls(min(samples), statistics.median(samples), max(samples), len(samples))


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The `fraction` (0..1) percentile by linear interpolation between closest ranks (NumPy's default)."""
    if not samples:
        raise ValueError("a percentile needs at least one sample")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must lie in [0, 1], not {fraction}")
    ordered = sorted(samples)
    position = fraction * (len(ordered) - 1)
    lower = math.floor(position)
    upper = math.ceil(position)
    if lower == upper:
        return ordered[lower]
    weight = position - lower
    return ordered[lower] * (1.0 - weight) + ordered[upper] * weight


def ratio(value: float | None, reference: float | None) -> float | None:
    """value / reference, or None when either is missing or the reference is zero."""
    if value is None or reference is None or reference == 0:
        return None
    return value / reference


def rate(count: float, seconds: float) -> float:
    """Events per second; a zero or negative duration is a measurement bug, not infinity."""
    if seconds <= 0:
        raise ValueError(f"duration must be positive, not {seconds}")
    return count / seconds


def bounded_percentile(values: Sequence[float | None], bound: float, fraction: float) -> tuple[float, bool]:
    """The `fraction` percentile of waits cut off at `bound` (None: not over within it), and whether it is only a
    lower bound: True when the interpolation reaches a cut-off wait, whose true length is `bound` or more."""
    observed = sorted(value for value in values if value is not None)
    if any(value > bound for value in observed):
        raise ValueError(f"an observed wait exceeds the bound {bound}")
    ordered = observed + [bound] * (len(values) - len(observed))
    value = percentile(ordered, fraction)
    return value, math.ceil(fraction * (len(ordered) - 1)) >= len(observed)
