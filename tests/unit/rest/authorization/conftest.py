"""The permission tests' REST servers (`tests.support.rest_permissions`), stopped after each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.rest_permissions import Worker, start_worker


@pytest.fixture
def started() -> Iterator[list[Worker]]:
    workers: list[Worker] = []
    yield workers
    for worker in workers:
        worker.stop()


@pytest.fixture
def worker(tmp_path: Path, started: list[Worker]) -> Worker:
    return start_worker(tmp_path, started)
