"""What the worker sends a task process: `HostStart` once, when it forks it, and a `TaskProcessStart` for
each task it gives it; and what a process answers a `metrics` call with (`ProcessMetrics`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, TargetState
from connect.runtime.metrics.groups import MetricGroup


@dataclass(frozen=True)
class HostStart:
    log_levels: dict[str, int]
    """The worker's root level (key "") and every logger it set a level on."""
    worker_silence_s: float | None = None
    """How long the tasks may run on while the worker says nothing (it says it lives every quarter of
    this); None: as long as the worker's end of the channel is open."""


@dataclass(frozen=True)
class TaskProcessStart:
    task_id: ConnectorTaskId
    worker_config: WorkerConfig
    connector_class: str
    """The connector's class as `module.QualifiedName`, resolved by the worker, so the process finds the
    same class whatever name the config used."""
    connector_config: dict[str, str]
    task_config: dict[str, str]
    target_state: TargetState
    exactly_once_offsets_topic: str | None = None
    """The worker's offsets topic when it runs source tasks exactly once (KIP-618); None otherwise."""


@dataclass(frozen=True)
class ProcessMetrics:
    tasks: dict[int, list[MetricGroup]]
    """Each task's own metrics, by the key the worker gave the task's run."""
    clients: list[MetricGroup]
    """The process's Kafka clients' (its tasks' producers, consumers)."""


def current_log_levels() -> dict[str, int]:
    """The levels the worker logs at now, for a task process to log the same."""
    levels = {"": logging.getLogger().getEffectiveLevel()}
    for name, logger in logging.Logger.manager.loggerDict.items():
        if isinstance(logger, logging.Logger) and logger.level != logging.NOTSET:
            levels[name] = logger.level
    return levels
