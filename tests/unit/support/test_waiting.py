"""The tests' shared `wait_until`: the first truthy value, or an AssertionError saying what never happened."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support.waiting import wait_until


def test_returns_the_first_truthy_value_of_the_condition() -> None:
    values: Iterator[object] = iter([None, 0, [], "ready"])
    assert wait_until(lambda: next(values), 5, "the fourth value") == "ready"


def test_fails_after_the_timeout_naming_what_it_waited_for_and_the_last_value() -> None:
    started = time.monotonic()
    with pytest.raises(AssertionError, match=r"timed out after 0.2 s waiting for the door to open \(last value: 0\)"):
        wait_until(lambda: 0, 0.2, "the door to open", interval=0.01)
    assert 0.2 <= time.monotonic() - started < 1.0
