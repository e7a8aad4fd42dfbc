"""`TaskPluginMetrics`: what a task's `context.plugin_metrics` gives it (connect.api.metrics), served in
group `connector-plugin-metrics` with the task's tags and the descriptions the plug-in gave; and the
plug-in's own tagged groups (`tagged`), each in its domain and type with its own tags."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

from connect.api.errors import ConfigError
from connect.runtime.metrics.groups import MetricGroup, Value
from connect.runtime.metrics.windows import Clock, RateOfTotal, WindowedValues, Windows

GROUP = "connector-plugin-metrics"


class _Counter:
    __slots__ = ("total",)

    def __init__(self) -> None:
        self.total = 0.0

    def add(self, amount: float = 1) -> None:
        self.total += amount


class _Latest:
    """A `Recorder` that also remembers the last value."""

    __slots__ = ("last", "window")

    def __init__(self, windows: Windows, clock: Clock) -> None:
        self.last = float("nan")
        self.window = WindowedValues(windows, clock)

    def record(self, value: float) -> None:
        self.last = value
        self.window.record(value)


class _TaggedMetrics:
    """One tagged set (`PluginMetrics.tagged`): cumulative counts with their rates, latest values with their
    windowed min, max and avg."""

    def __init__(self, domain: str, type_name: str, tags: tuple[tuple[str, str], ...], windows: Windows, clock: Clock):
        self._key = (domain, type_name, tags)
        self._windows = windows
        self._clock = clock
        self._lock = threading.Lock()
        self._counts: dict[str, tuple[_Counter, RateOfTotal]] = {}
        self._latest: dict[str, _Latest] = {}
        self._help: dict[str, str] = {}

    def cumulative(self, name: str, description: str) -> _Counter:
        with self._lock:
            known = self._counts.get(name)
            if known is None:
                counter = _Counter()
                known = self._counts[name] = (counter, RateOfTotal(lambda: counter.total, self._windows, self._clock))
                self._help[f"{name}-count"] = f"{description} (total)"
                self._help[f"{name}-rate"] = f"{description} (per second)"
            return known[0]

    def latest(self, name: str, description: str) -> _Latest:
        with self._lock:
            known = self._latest.get(name)
            if known is None:
                known = self._latest[name] = _Latest(self._windows, self._clock)
                self._help[name] = description
                for stat in ("min", "max", "avg"):
                    self._help[f"{name}-{stat}"] = f"{description} ({stat})"
            return known

    def group(self) -> MetricGroup:
        domain, type_name, tags = self._key
        with self._lock:
            counts, latest, help_texts = dict(self._counts), dict(self._latest), dict(self._help)
        values: dict[str, Value] = {}
        for name, (counter, rate) in counts.items():
            values[f"{name}-count"] = counter.total
            values[f"{name}-rate"] = rate.rate()
        for name, recorder in latest.items():
            values[name] = recorder.last
            values[f"{name}-min"] = recorder.window.min()
            values[f"{name}-max"] = recorder.window.max()
            values[f"{name}-avg"] = recorder.window.avg()
        return MetricGroup(type_name, tags, values, domain=domain, help=help_texts)


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
        self._tagged: dict[tuple[str, str, tuple[tuple[str, str], ...]], _TaggedMetrics] = {}

    def tagged(self, domain: str, type_name: str, tags: Mapping[str, str]) -> _TaggedMetrics:
        key = (domain, type_name, tuple(tags.items()))
        with self._lock:
            known = self._tagged.get(key)
            if known is None:
                known = self._tagged[key] = _TaggedMetrics(domain, type_name, key[2], self._windows, self._clock)
            return known

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
            tagged = [metrics.group() for metrics in self._tagged.values()]
            if not self._help:
                return tagged
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
        return [MetricGroup(GROUP, self._tags, values, help=help_texts), *tagged]
