"""The results model and its JSON file: benchmark -> system -> metric -> repetitions.

Every benchmark entry carries the machine, mode and exact settings it was measured with, so a file
merged from several `--only` runs still says where each figure came from. Merging replaces whole
groups (what `--only NAME` selects) and keeps every other entry untouched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from bench.stats import Summary

SCHEMA_VERSION = 1

JsonObject = dict[str, Any]
Detail = str | int | float | bool


class Status(StrEnum):
    MEASURED = "measured"
    NOT_MEASURABLE = "not_measurable"
    NOT_APPLICABLE = "not_applicable"
    FAILED = "failed"


@dataclass(frozen=True)
class Metric:
    """One figure over the repetitions; `samples` holds one value per measured repetition.

    `at_least` marks a figure cut off by a bound (a wait that gave up): the true value is that or more.
    """

    unit: str
    higher_is_better: bool
    samples: tuple[float, ...]
    at_least: bool = False

    @property
    def summary(self) -> Summary:
        return Summary.of(self.samples)

    def to_json(self) -> JsonObject:
        summary = self.summary
        return {
            "unit": self.unit,
            "higher_is_better": self.higher_is_better,
            "samples": list(self.samples),
            "min": summary.minimum,
            "median": summary.median,
            "max": summary.maximum,
            "at_least": self.at_least,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Metric:
        # min/median/max are written for readers of the file; the samples are the truth.
        return cls(
            str(data["unit"]),
            bool(data["higher_is_better"]),
            tuple(float(v) for v in data["samples"]),
            bool(data.get("at_least", False)),
        )


@dataclass(frozen=True)
class SystemResult:
    """What one system did in one benchmark: its metrics, or why there are none.

    `worker_mode` says how the system ran ("standalone", "distributed, 3 workers"; empty for a client).
    """

    label: str
    status: Status
    metrics: Mapping[str, Metric] = field(default_factory=dict)
    reason: str = ""
    details: Mapping[str, Detail] = field(default_factory=dict)
    worker_mode: str = ""

    @classmethod
    def measured(cls, label: str, metrics: Mapping[str, Metric], **details: Detail) -> SystemResult:
        return cls(label, Status.MEASURED, dict(metrics), details=details)

    @classmethod
    def not_measurable(cls, label: str, reason: str) -> SystemResult:
        return cls(label, Status.NOT_MEASURABLE, reason=reason)

    @classmethod
    def not_applicable(cls, label: str, reason: str) -> SystemResult:
        return cls(label, Status.NOT_APPLICABLE, reason=reason)

    @classmethod
    def failed(cls, label: str, reason: str) -> SystemResult:
        return cls(label, Status.FAILED, reason=reason)

    def median(self, metric: str) -> float | None:
        found = self.metrics.get(metric)
        return found.summary.median if found is not None and found.samples else None

    def in_mode(self, worker_mode: str) -> SystemResult:
        """This row, saying it ran in `worker_mode` (a mode already set is kept)."""
        return self if self.worker_mode else replace(self, worker_mode=worker_mode)

    def to_json(self) -> JsonObject:
        return {
            "label": self.label,
            "status": self.status.value,
            "reason": self.reason,
            "metrics": {name: metric.to_json() for name, metric in self.metrics.items()},
            "details": dict(self.details),
            "worker_mode": self.worker_mode,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SystemResult:
        return cls(
            label=str(data["label"]),
            status=Status(data["status"]),
            metrics={name: Metric.from_json(m) for name, m in data.get("metrics", {}).items()},
            reason=str(data.get("reason", "")),
            details=dict(data.get("details", {})),
            worker_mode=str(data.get("worker_mode", "")),
        )


@dataclass(frozen=True)
class Reference:
    """A row another table's ratios are taken against: a system here, or one of another benchmark."""

    label: str
    system: str
    benchmark: str | None = None

    def to_json(self) -> JsonObject:
        return {"label": self.label, "system": self.system, "benchmark": self.benchmark}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reference:
        benchmark = data.get("benchmark")
        return cls(str(data["label"]), str(data["system"]), None if benchmark is None else str(benchmark))


@dataclass(frozen=True)
class BenchmarkResult:
    """One table of the report: the systems side by side under the same settings."""

    name: str
    group: str
    title: str
    short: str
    method: str
    metrics_order: tuple[str, ...]
    systems: Mapping[str, SystemResult]
    comparisons: tuple[Reference, ...] = ()
    ratio_metrics: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    machine: Mapping[str, Any] = field(default_factory=dict)
    mode: str = ""
    measured_at: str = ""

    def to_json(self) -> JsonObject:
        return {
            "group": self.group,
            "title": self.title,
            "short": self.short,
            "method": self.method,
            "metrics_order": list(self.metrics_order),
            "systems": {key: system.to_json() for key, system in self.systems.items()},
            "comparisons": [c.to_json() for c in self.comparisons],
            "ratio_metrics": list(self.ratio_metrics),
            "settings": dict(self.settings),
            "machine": dict(self.machine),
            "mode": self.mode,
            "measured_at": self.measured_at,
        }

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any]) -> BenchmarkResult:
        return cls(
            name=name,
            group=str(data["group"]),
            title=str(data["title"]),
            short=str(data.get("short", data["title"])),
            method=str(data.get("method", "")),
            metrics_order=tuple(data.get("metrics_order", ())),
            systems={key: SystemResult.from_json(s) for key, s in data.get("systems", {}).items()},
            comparisons=tuple(Reference.from_json(c) for c in data.get("comparisons", ())),
            ratio_metrics=tuple(data.get("ratio_metrics", ())),
            settings=dict(data.get("settings", {})),
            machine=dict(data.get("machine", {})),
            mode=str(data.get("mode", "")),
            measured_at=str(data.get("measured_at", "")),
        )


@dataclass(frozen=True)
class ResultsFile:
    """All benchmark entries, in insertion order (the order the report shows them)."""

    benchmarks: Mapping[str, BenchmarkResult]

    @classmethod
    def empty(cls) -> ResultsFile:
        return cls({})

    @classmethod
    def load(cls, path: Path) -> ResultsFile:
        """The file's entries; a missing file is an empty result set, a malformed one an error."""
        if not path.exists():
            return cls.empty()
        data = json.loads(path.read_text())
        if data.get("schema") != SCHEMA_VERSION:
            raise ValueError(f"{path} has schema {data.get('schema')!r}, expected {SCHEMA_VERSION}")
        return cls({name: BenchmarkResult.from_json(name, entry) for name, entry in data["benchmarks"].items()})

    def merged(self, fresh: Iterable[BenchmarkResult], groups: Iterable[str]) -> ResultsFile:
        """These results with every entry of `groups` replaced by `fresh`; other groups stay as they were."""
        replaced = set(groups)
        kept = {name: entry for name, entry in self.benchmarks.items() if entry.group not in replaced}
        for entry in fresh:
            kept[entry.name] = entry
        return ResultsFile(kept)

    def ordered(self, group_order: Iterable[str]) -> list[BenchmarkResult]:
        """Entries sorted by the position of their group in `group_order` (unknown groups last)."""
        rank = {group: index for index, group in enumerate(group_order)}
        entries = list(self.benchmarks.values())
        return sorted(entries, key=lambda entry: rank.get(entry.group, len(rank)))

    def to_json(self) -> JsonObject:
        return {"schema": SCHEMA_VERSION, "benchmarks": {n: e.to_json() for n, e in self.benchmarks.items()}}

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        temporary.replace(path)
