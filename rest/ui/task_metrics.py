"""The few figures the dashboard draws per task, taken from one worker's metric groups.

A task's throughput is its record counter (`source-record-poll-total` for a source, `sink-record-read-total`
for a sink): the page keeps the counters it saw and draws their growth per second, so a sparkline shows
what happened between two of its polls rather than Kafka's 60-second windowed rate. A sink's lag is the
sum of its partitions' lags (`sink-task-partition-metrics`), so it says how many records the task is
behind in all, where `sink-record-lag-max` gives only the worst partition.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TypedDict

from connect.runtime.metrics.groups import MetricGroup

_COUNTERS = {"source-task-metrics": "source-record-poll-total", "sink-task-metrics": "sink-record-read-total"}
_KINDS = {"source-task-metrics": "source", "sink-task-metrics": "sink"}


class TaskFigures(TypedDict):
    connector: str
    task: int
    type: str
    records: float
    lag: float | None


def task_figures(groups: Iterable[MetricGroup]) -> list[TaskFigures]:
    """One entry per source or sink task in `groups`, with its record counter and (sinks) its total lag."""
    figures: dict[tuple[str, str], TaskFigures] = {}
    lags: dict[tuple[str, str], float] = {}
    for group in groups:
        connector, task = group.tag("connector"), group.tag("task")
        if connector is None or task is None or group.domain != "connect":
            continue
        key = (connector, task)
        counter = _COUNTERS.get(group.group)
        if counter is not None:
            records = group.values.get(counter)
            figures[key] = TaskFigures(
                connector=connector,
                task=int(task),
                type=_KINDS[group.group],
                records=float(records) if isinstance(records, int | float) else 0.0,
                lag=None,
            )
        elif group.group == "sink-task-partition-metrics":
            lag = group.values.get("lag")
            if isinstance(lag, int | float) and not math.isnan(lag):
                lags[key] = lags.get(key, 0.0) + float(lag)
    for key, total in lags.items():
        known = figures.get(key)
        if known is not None:
            known["lag"] = total
    return list(figures.values())
