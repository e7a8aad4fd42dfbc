"""`TaskPluginMetrics`: what a task's `context.plugin_metrics` gives it (connect.api.metrics), served in
group `connector-plugin-metrics` with the task's tags and the descriptions the plug-in gave."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from connect.api.errors import ConfigError
from connect.runtime.metrics.groups import MetricGroup, Value
from connect.runtime.metrics.windows import Clock, WindowedValues, Windows

GROUP = "connector-plugin-metrics"


class _Counter:
    __slots__ = ("total",)

    def __init__(self) -> None:
        self.total = 0.0

    def add(self, amount: float = 1) -> None:
        self.total += amount


class TaskPluginMetrics:
    def __init__(self, tags: tuple[tuple[str, str], ...], windows: Windows, clock: Clock = time.monotonic) -> None:
        self._tags = tags
        self._windows = windows
        self._clock = clock
        self._lock = threading.Lock()
        self._counters: dict[str, _Counter] = {}
        self._recorders: dict[str, WindowedValues] = {}
        self._gauges: dict[str, Callable[[], float]] = {}
        self._help: dict[str, str] = {}

    def counter(self, name: str, description: str) -> _Counter:
        if not name.endswith("-total"):
            raise ConfigError(f"A counter's name ends in -total: {name}")
        with self._lock:
            self._claim(name, description)
            return self._counters.setdefault(name, _Counter())

    def recorder(self, name: str, description: str) -> WindowedValues:
        with self._lock:
            self._claim(f"{name}-avg", f"{description} (average)")
            self._claim(f"{name}-max", f"{description} (maximum)")
            return self._recorders.setdefault(name, WindowedValues(self._windows, self._clock))

    def gauge(self, name: str, description: str, read: Callable[[], float]) -> None:
        with self._lock:
            self._claim(name, description)
            self._gauges[name] = read

    def _claim(self, name: str, description: str) -> None:
        known = self._help.get(name)
        if known is not None and known != description:
            raise ConfigError(f"Plug-in metric {name} is already registered with another description")
        self._help[name] = description

    def groups(self) -> list[MetricGroup]:
        with self._lock:
            if not self._help:
                return []
            counters, recorders, gauges = dict(self._counters), dict(self._recorders), dict(self._gauges)
            help_texts = dict(self._help)
        values: dict[str, Value] = {name: counter.total for name, counter in counters.items()}
        for name, recorder in recorders.items():
            values[f"{name}-avg"] = recorder.avg()
            values[f"{name}-max"] = recorder.max()
        for name, read in gauges.items():
            try:
                values[name] = float(read())
            except Exception:  # plug-in code: a broken gauge is left out, the rest is served
                continue
        return [MetricGroup(GROUP, self._tags, values, help=help_texts)]
