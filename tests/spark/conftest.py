"""The Spark tier: one real SparkSession (local[2]) for the whole test session, and a sink harness.

Tasks are driven directly with SinkRecords and a small fake SinkTaskContext that records rewinds,
pauses and commit requests, on a temporary file:// root.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from connect.api.context import ErrantRecordReporter
from spark_sink.session import SESSIONS
from tests.support.spark_harness import SPARK_OPTIONS, SinkHarness


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    logging.getLogger("py4j").setLevel(logging.WARNING)
    lease = SESSIONS.acquire(SPARK_OPTIONS)
    lease.spark.sparkContext.setLogLevel("ERROR")
    yield lease.spark
    lease.release()


@pytest.fixture
def harness_factory(spark: Any, tmp_path: Path) -> Iterator[Callable[..., SinkHarness]]:
    made: list[SinkHarness] = []

    def make(
        flush_size: int = 100,
        root: Path | None = None,
        reporter: ErrantRecordReporter | None = None,
        **overrides: str,
    ) -> SinkHarness:
        props = {
            "path": str(root or tmp_path / "out"),
            "flush.size": str(flush_size),
            **SPARK_OPTIONS,
            **{k.replace("_", "."): v for k, v in overrides.items()},
        }
        harness = SinkHarness(root or tmp_path / "out", props, reporter)
        made.append(harness)
        return harness

    yield make
    for harness in made:
        harness.stop()
