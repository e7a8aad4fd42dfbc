"""A plug-in's own metrics (KIP-877's `PluginMetrics`): a task registers them through its context
(`context.plugin_metrics`) and the worker serves them at `/metrics` beside Kafka Connect's, in group
`connector-plugin-metrics` with the task's `connector` and `task` labels:
`kafka_connect_connector_plugin_<name>{connector="c",task="0"}`.

Names are lower case words joined by `-`, as Kafka's attributes are; a counter's name ends in `-total`.
Record in batches where the task can: each call takes a lock-free attribute update, but a call per record
adds up on a hot path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class Counter(Protocol):
    """A running total."""

    def add(self, amount: float = 1) -> None:
        """Add to the running total (served as a Prometheus counter)."""
        ...


class Recorder(Protocol):
    """Observations summarised as average and maximum."""

    def record(self, value: float) -> None:
        """One observation (a duration, a size): served as `<name>-avg` and `<name>-max` over the worker's
        metrics windows (`metrics.num.samples` windows of `metrics.sample.window.ms`)."""
        ...


class PluginMetrics(Protocol):
    """A task's own metrics (`context.plugin_metrics`): counters, recorders and gauges, each with a name and
    a description that `/metrics` shows as its HELP line."""

    def counter(self, name: str, description: str) -> Counter:
        """A running total; `name` must end in `-total`."""
        ...

    def recorder(self, name: str, description: str) -> Recorder: ...

    def gauge(self, name: str, description: str, read: Callable[[], float]) -> None:
        """A value read when metrics are served (on another thread than the task's: keep `read` cheap and
        safe to call from there)."""
        ...
