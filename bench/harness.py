"""The run context scenarios receive, repetitions with warm-up, and running a body once per system.

Scenarios are functions `run(ctx) -> list[BenchmarkResult]`. They start each standalone worker through
`each_system` and each distributed cluster through `each_cluster`; both turn anything that goes wrong
for one system into a "failed" row (and keep the other system's figures), stamp every row with the
worker mode it ran in, and never leave a worker running.
"""

from __future__ import annotations

import datetime
import itertools
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.broker import KafkaAdmin
from bench.procs import ProcessSet
from bench.results import BenchmarkResult, Metric, Reference, SystemResult
from bench.settings import CLUSTER_WORKERS, OFFSET_FLUSH_INTERVAL_MS, PRODUCER_SETTINGS, Sizes
from bench.systems.base import RunningWorker, WorkerMode, WorkerSystem, start_worker, stop_worker
from bench.systems.cluster import WorkerCluster
from local_kafka import LocalKafka

log = logging.getLogger(__name__)

Measurement = Mapping[str, float]
Record = Callable[[str, SystemResult], None]


def repeat(measure: Callable[[int], Measurement], warmups: int, repetitions: int) -> dict[str, list[float]]:
    """Call `measure(i)` `warmups` times (discarded) then `repetitions` times; metric -> the kept values."""
    kept: dict[str, list[float]] = {}
    for index in range(warmups + repetitions):
        values = measure(index)
        if index >= warmups:
            for name, value in values.items():
                kept.setdefault(name, []).append(value)
    return kept


def metrics(samples: Mapping[str, Sequence[float]], units: Mapping[str, tuple[str, bool]]) -> dict[str, Metric]:
    """Metric objects from repeated samples; `units` maps a name to (unit, higher_is_better)."""
    return {name: Metric(units[name][0], units[name][1], tuple(values)) for name, values in samples.items()}


def short_reason(error: BaseException) -> str:
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return first if len(first) <= 200 else first[:197] + "..."


def wait_until(condition: Callable[[], bool], timeout: float, interval: float = 0.02, what: str = "condition") -> float:
    """Poll `condition` until true; returns the monotonic time it first held, raises TimeoutError otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return time.monotonic()
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not reached within {timeout:.0f}s")
        time.sleep(interval)


STANDALONE_MODE = "standalone"


def cluster_mode(size: int) -> str:
    """How a row names a distributed run: `distributed, 3 workers`."""
    return f"distributed, {size} worker{'s' if size != 1 else ''}"


@dataclass(frozen=True)
class ClusterVariant:
    """One row of a distributed benchmark: a system, under a row key, with keys of its own."""

    key: str
    system: WorkerSystem
    label: str
    extra_properties: Mapping[str, str] = field(default_factory=dict)


ClusterBody = Callable[[WorkerCluster, Callable[[str, SystemResult], None]], None]


@dataclass
class RunContext:
    mode: str
    sizes: Sizes
    workdir: Path
    bootstrap_servers: str
    admin: KafkaAdmin
    processes: ProcessSet
    systems: Sequence[WorkerSystem]
    unavailable: Mapping[str, str]
    machine: Mapping[str, Any]
    # (system key, worker mode) -> why that system cannot run in that mode here.
    unavailable_modes: Mapping[tuple[str, WorkerMode], str] = field(default_factory=dict)
    brokers: int = 1
    # Client keys (Kafka's names, bootstrap.servers included) of the broker's SASL_SSL listener; empty when the
    # run's broker has none (it gets one only when the security group runs).
    secured_kafka: Mapping[str, str] = field(default_factory=dict)
    # The run's broker itself, for the groups that restart it (None where a run has no broker of its own).
    broker: LocalKafka | None = None
    _counter: itertools.count[int] = field(default_factory=itertools.count)

    def unavailable_reason(self, system: WorkerSystem, mode: WorkerMode = WorkerMode.STANDALONE) -> str | None:
        return self.unavailable.get(system.key) or self.unavailable_modes.get((system.key, mode))

    def unique(self, prefix: str) -> str:
        """A name no earlier call of this run returned: topics, connectors, files."""
        return f"{prefix}-{next(self._counter)}"

    def scratch(self, name: str) -> Path:
        path = self.workdir / self.unique(name)
        path.mkdir(parents=True)
        return path

    def common_settings(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "offset.flush.interval.ms": OFFSET_FLUSH_INTERVAL_MS,
            **{f"producer.{key}": value for key, value in PRODUCER_SETTINGS.items()},
        }

    def entry(
        self,
        name: str,
        group: str,
        title: str,
        short: str,
        method: str,
        metrics_order: Sequence[str],
        systems: Mapping[str, SystemResult],
        *,
        comparisons: Sequence[Reference] = (),
        ratio_metrics: Sequence[str] = (),
        settings: Mapping[str, Any] | None = None,
    ) -> BenchmarkResult:
        return BenchmarkResult(
            name=name,
            group=group,
            title=title,
            short=short,
            method=method,
            metrics_order=tuple(metrics_order),
            systems=dict(systems),
            comparisons=tuple(comparisons),
            ratio_metrics=tuple(ratio_metrics),
            # Other work on the machine skews every figure; the load average says how much there was.
            settings={**self.common_settings(), **(settings or {}), "load_average_1m": round(os.getloadavg()[0], 2)},
            machine=dict(self.machine),
            mode=self.mode,
            measured_at=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )

    def each_available(self, body: Callable[[WorkerSystem], SystemResult]) -> dict[str, SystemResult]:
        """`body(system)` for each system that can run here in standalone mode; a raising body becomes a failed row."""
        rows: dict[str, SystemResult] = {}
        for system in self.systems:
            reason = self.unavailable_reason(system)
            if reason is not None:
                rows[system.key] = SystemResult.not_measurable(system.label, reason).in_mode(STANDALONE_MODE)
                continue
            try:
                rows[system.key] = body(system).in_mode(STANDALONE_MODE)
            except Exception as error:
                log.exception("%s failed", system.label)
                rows[system.key] = SystemResult.failed(system.label, short_reason(error)).in_mode(STANDALONE_MODE)
        return rows

    def each_system(
        self,
        names: Sequence[str],
        body: Callable[[RunningWorker, Record], None],
        systems: Sequence[WorkerSystem] | None = None,
    ) -> dict[str, dict[str, SystemResult]]:
        """Run `body` against a fresh worker of each system in turn, one at a time.

        Returns benchmark name -> system key -> row. `body` records rows as it measures them; names
        it did not record (it raised, or the worker never started) get a failed or not-measurable row.
        """
        rows: dict[str, dict[str, SystemResult]] = {name: {} for name in names}
        for system in self.systems if systems is None else systems:
            reason = self.unavailable_reason(system)
            if reason is not None:
                for name in names:
                    rows[name][system.key] = SystemResult.not_measurable(system.label, reason).in_mode(STANDALONE_MODE)
                continue

            def record(name: str, row: SystemResult, key: str = system.key) -> None:
                rows[name][key] = row.in_mode(STANDALONE_MODE)

            worker: RunningWorker | None = None
            try:
                worker = start_worker(system, self.processes, self.bootstrap_servers, self.scratch(system.key))
                body(worker, record)
            except Exception as error:
                log.exception("%s failed in %s", system.label, ", ".join(names))
                for name in names:
                    failed = SystemResult.failed(system.label, short_reason(error)).in_mode(STANDALONE_MODE)
                    rows[name].setdefault(system.key, failed)
            finally:
                if worker is not None:
                    stop_worker(self.processes, worker)
        return rows

    def each_cluster(
        self,
        names: Sequence[str],
        body: ClusterBody,
        variants: Sequence[ClusterVariant],
        size: int = CLUSTER_WORKERS,
    ) -> dict[str, dict[str, SystemResult]]:
        """Run `body` against a fresh cluster of `size` distributed workers per variant, one at a time.

        Returns benchmark name -> variant key -> row, like `each_system`. Each cluster has its own group
        and internal topics, deleted after it stopped.
        """
        mode = cluster_mode(size)
        rows: dict[str, dict[str, SystemResult]] = {name: {} for name in names}
        for variant in variants:
            reason = self.unavailable_reason(variant.system, WorkerMode.DISTRIBUTED)
            if reason is not None:
                for name in names:
                    rows[name][variant.key] = SystemResult.not_measurable(variant.label, reason).in_mode(mode)
                continue

            def record(name: str, row: SystemResult, key: str = variant.key) -> None:
                rows[name][key] = row.in_mode(mode)

            cluster = WorkerCluster.create(
                variant.system,
                self.processes,
                self.bootstrap_servers,
                self.scratch(variant.key),
                size=size,
                replication=self.brokers,
                extra_properties=variant.extra_properties,
            )
            try:
                seconds = cluster.start()
                log.info("%s: %d distributed workers healthy after %.1f s", variant.label, size, seconds)
                body(cluster, record)
            except Exception as error:
                log.exception("%s failed in %s", variant.label, ", ".join(names))
                for name in names:
                    rows[name].setdefault(
                        variant.key, SystemResult.failed(variant.label, short_reason(error)).in_mode(mode)
                    )
            finally:
                cluster.stop()
                try:
                    self.admin.delete_topics(self.admin.topics_with_prefix(cluster.internal_topics_prefix()))
                except Exception:
                    log.warning("could not delete the internal topics of %s", cluster.group, exc_info=True)
        return rows
