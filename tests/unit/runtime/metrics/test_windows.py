"""Windowed averages, maxima and rates forget what fell out of the window, as Kafka's sampled stats do."""

from __future__ import annotations

import math

from connect.runtime.metrics.windows import RateOfTotal, WindowedValues, Windows


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_avg_max_min_cover_the_live_samples_only() -> None:
    clock = Clock()
    values = WindowedValues(Windows(sample_s=10, samples=2), clock)
    assert math.isnan(values.avg()) and math.isnan(values.max())
    values.record(4)
    values.record(8)
    clock.now += 12  # a second sample
    values.record(2)
    assert values.avg() == (4 + 8 + 2) / 3
    assert values.max() == 8 and values.min() == 2
    clock.now += 10  # the first sample is now older than the two windows
    values.record(6)
    assert values.avg() == 4 and values.max() == 6
    clock.now += 100
    assert math.isnan(values.avg())


def test_rate_is_the_growth_of_the_total_over_the_window() -> None:
    clock = Clock()
    total = [0]
    rate = RateOfTotal(lambda: total[0], Windows(sample_s=10, samples=2), clock)
    clock.now += 5
    total[0] = 50
    assert rate.rate() == 10.0  # since the start
    for _ in range(10):  # steady 20 per second, read every 5 s
        clock.now += 5
        total[0] += 100
        rate.rate()
    clock.now += 5
    total[0] += 100
    assert rate.rate() == 20.0
    clock.now += 40  # nothing more: the rate falls as the window moves past the growth
    assert rate.rate() < 5.0
