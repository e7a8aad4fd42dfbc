"""Fixtures of the e2e tests that run real worker processes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.distributed_workers import Cluster, cluster_factory
from tests.support.mirror_nodes import MirrorNode
from tests.support.spark_sink_workers import SinkWorker


@pytest.fixture
def clusters(kafka_bootstrap: str, tmp_path: Path) -> Iterator[Callable[..., Cluster]]:
    """`clusters(n, **worker_keys)`: a cluster of `n` distributed worker processes on the session broker, all
    stopped after the test."""
    with cluster_factory(kafka_bootstrap, tmp_path) as make:
        yield make


@pytest.fixture
def sink_workers() -> Iterator[list[SinkWorker]]:
    """Spark sink workers a test starts; whatever is left of them is stopped afterwards."""
    started: list[SinkWorker] = []
    yield started
    for worker in started:
        worker.cleanup()


@pytest.fixture
def mirror_nodes() -> Iterator[list[MirrorNode]]:
    """`kconnect mirror` processes a test starts; those still running are killed afterwards."""
    started: list[MirrorNode] = []
    yield started
    for node in started:
        node.kill()
