"""Fixtures of the e2e tests that run real worker processes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.spark_sink_workers import SinkWorker


@pytest.fixture
def sink_workers() -> Iterator[list[SinkWorker]]:
    """Spark sink workers a test starts; whatever is left of them is stopped afterwards."""
    started: list[SinkWorker] = []
    yield started
    for worker in started:
        worker.cleanup()
