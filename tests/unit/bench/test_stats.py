"""The benchmark statistics: summaries, percentiles, ratios and the warm-up rule of repetitions."""

from __future__ import annotations

import pytest

from bench.harness import repeat
from bench.stats import Summary, bounded_percentile, percentile, rate, ratio


def test_summary_gives_min_median_max_of_the_repetitions() -> None:
    assert Summary.of([30.0, 10.0, 20.0]) == Summary(10.0, 20.0, 30.0, 3)


def test_summary_median_of_an_even_count_is_the_mean_of_the_middle_two() -> None:
    assert Summary.of([4.0, 1.0, 3.0, 2.0]).median == 2.5


def test_summary_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError):
        Summary.of([])


def test_percentile_interpolates_between_closest_ranks() -> None:
    samples = [float(v) for v in range(1, 101)]
    assert percentile(samples, 0.5) == pytest.approx(50.5)
    assert percentile(samples, 0.99) == pytest.approx(99.01)
    assert percentile(samples, 0.0) == 1.0
    assert percentile(samples, 1.0) == 100.0


def test_percentile_does_not_depend_on_sample_order() -> None:
    assert percentile([5.0, 1.0, 9.0, 3.0], 0.5) == percentile([1.0, 3.0, 5.0, 9.0], 0.5) == 4.0


def test_percentile_rejects_fractions_outside_zero_to_one() -> None:
    with pytest.raises(ValueError):
        percentile([1.0], 99)


def test_ratio_is_missing_without_a_usable_reference() -> None:
    assert ratio(50.0, 200.0) == 0.25
    assert ratio(None, 2.0) is None
    assert ratio(1.0, None) is None
    assert ratio(1.0, 0.0) is None


def test_rate_refuses_a_zero_duration() -> None:
    assert rate(1000, 2.0) == 500.0
    with pytest.raises(ValueError):
        rate(1000, 0.0)


def test_repeat_discards_the_warm_ups_and_keeps_every_measured_repetition() -> None:
    calls: list[int] = []

    def measure(index: int) -> dict[str, float]:
        calls.append(index)
        return {"records_per_s": float(index * 10), "MB_per_s": float(index)}

    kept = repeat(measure, warmups=2, repetitions=3)
    assert calls == [0, 1, 2, 3, 4]
    assert kept == {"records_per_s": [20.0, 30.0, 40.0], "MB_per_s": [2.0, 3.0, 4.0]}


def test_a_bounded_percentile_of_waits_that_all_ended_is_the_plain_percentile() -> None:
    assert bounded_percentile([3.0, 1.0, 2.0], 60.0, 0.5) == (2.0, False)


def test_a_percentile_that_reaches_a_cut_off_wait_is_only_a_lower_bound() -> None:
    waits: list[float | None] = [10.0, 11.0, 12.0, None]
    assert bounded_percentile(waits, 30.0, 0.5) == (11.5, False)
    value, at_least = bounded_percentile(waits, 30.0, 0.99)
    assert at_least
    assert 12.0 < value <= 30.0
    assert bounded_percentile([None, None], 30.0, 0.5) == (30.0, True)


def test_an_observed_wait_longer_than_the_bound_is_a_bug() -> None:
    with pytest.raises(ValueError):
        bounded_percentile([31.0], 30.0, 0.5)
