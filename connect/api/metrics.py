"""A plug-in's own metrics (KIP-877's `PluginMetrics`): a task registers them through its context
(`context.plugin_metrics`) and the worker serves them at `/metrics` beside Kafka Connect's, in group
`connector-plugin-metrics` with the task's `connector` and `task` labels:
`kafka_connect_connector_plugin_<name>{connector="c",task="0"}`.

Names are lower case words joined by `-`, as Kafka's attributes are; a counter's name ends in `-total`.
Record in batches where the task can: each call takes a lock-free attribute update, but a call per record
adds up on a hot path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


class TaggedMetrics(Protocol):
    """The metrics of one thing a task handles (a partition, a consumer group): see `PluginMetrics.tagged`."""

    def cumulative(self, name: str, description: str) -> Counter:
        """A running total served as `<name>-count`, with its per-second rate over the worker's metrics windows
        as `<name>-rate` (Kafka's `CumulativeCount` and `Rate` of one sensor)."""
        ...

    def latest(self, name: str, description: str) -> Recorder:
        """Observations served as `<name>` (the latest), and `<name>-min`, `<name>-max`, `<name>-avg` over the
        worker's metrics windows (Kafka's `Value`, `Min`, `Max`, `Avg` of one sensor)."""
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

    def tagged(self, domain: str, type_name: str, tags: Mapping[str, str]) -> TaggedMetrics:
        """Metrics under a JMX domain and type of the plug-in's own, one set per `tags`, as MirrorMaker's
        `kafka.connect.mirror:type=MirrorSourceConnector,source=A,target=B,topic=A.orders,partition=0`.
        `/metrics` names them as Strimzi's JMX exporter rules do: the domain, the type and the attribute in
        lower case with `.` and `-` as `_`, the tags as labels, every one a gauge
        (`kafka_connect_mirror_mirrorsourceconnector_record_count{source="A",...}`). The same arguments give
        the same metrics back."""
        ...
