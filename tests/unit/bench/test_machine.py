"""The machine-wide busy-CPU meter that bounds what more source tasks can add on the benchmark machine."""

from __future__ import annotations

import time

from bench.machine import busy_cpu_seconds
from bench.scenarios.common import RECORDS_PER_S
from bench.scenarios.source import CORES_BUSY, cores_metric, scaling_metric, tasks_metric, tasks_row


def spin(seconds: float) -> None:
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        pass


def test_busy_cpu_seconds_count_the_cpu_this_process_burns() -> None:
    before = busy_cpu_seconds()
    spin(0.5)
    # This process alone used 0.5 s of CPU; other processes only add to the machine's count.
    assert busy_cpu_seconds() - before >= 0.45


def test_the_tasks_row_shows_each_counts_rate_scaling_and_cores_busy() -> None:
    runs = {
        1: {RECORDS_PER_S: [100.0, 110.0, 120.0], CORES_BUSY: [1.5, 1.6, 1.7]},
        4: {RECORDS_PER_S: [130.0, 132.0, 140.0], CORES_BUSY: [1.9, 2.0, 1.95]},
    }
    row = tasks_row("kconnect", runs)
    assert row.metrics[tasks_metric(4)].summary.median == 132.0
    assert row.metrics[scaling_metric(4)].samples == (1.2,)
    assert row.metrics[cores_metric(1)].summary.median == 1.6
    assert row.metrics[cores_metric(4)].samples == (1.9, 2.0, 1.95)
    assert row.metrics[cores_metric(4)].unit == "cores"
