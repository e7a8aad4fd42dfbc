"""Cluster-wide logger levels (KIP-976): every worker applies the `logger-cluster-*` records it reads, those
written before it started included, in log order; its own worker-scope changes win until the next one."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect.runtime.logs.levels import LoggerLevels
from connect.runtime.stores import ClusterConfigState, ConfigChange, ConfigLogState
from connect.runtime.stores import config_records as records
from tests.support.rest_harness import isolated_root_logger
from workers.distributed.cluster_loggers import ClusterLoggers


class ConfigLog:
    def __init__(self) -> None:
        self._state = ConfigLogState()
        self._offset = 0
        self._listeners: list[Callable[[ConfigChange], None]] = []

    def add_listener(self, listener: Callable[[ConfigChange], None]) -> None:
        self._listeners.append(listener)

    def snapshot(self) -> ClusterConfigState:
        return self._state.snapshot()

    def read_to_end(self, timeout: float) -> None:
        pass

    def level(self, namespace: str, level: str | None) -> None:
        offset = self._offset
        self._offset += 1
        value = None if level is None else records.logger_value(level)
        for change in self._state.apply(records.logger_key(namespace), value, offset):
            for listener in self._listeners:
                listener(change)

    def put_extension(self, key: str, value: Mapping[str, Any] | None, *, timeout: float = 30.0) -> int:
        raise AssertionError("not used")

    def put_task_configs(
        self, name: str, configs: Sequence[Mapping[str, str]], epoch: int, *, timeout: float = 30.0
    ) -> int:
        raise AssertionError("not used")

    def put_task_count_record(self, name: str, count: int, *, timeout: float = 30.0) -> int:
        raise AssertionError("not used")


class Clock:
    now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def levels(root: logging.Logger, *names: str) -> list[str]:
    return [logging.getLevelName(root.manager.getLogger(name).getEffectiveLevel()) for name in names]


def test_levels_written_before_the_worker_started_are_applied_in_log_order() -> None:
    log, root = ConfigLog(), isolated_root_logger()
    log.level("org", "DEBUG")
    log.level("org.apache", "ERROR")
    log.level("org", "INFO")  # sets org.apache too, being later

    ClusterLoggers(log, LoggerLevels(root)).start()

    assert levels(root, "org", "org.apache") == ["INFO", "INFO"]


def test_a_record_read_later_is_applied_and_dated_and_a_worker_scope_change_wins_until_the_next() -> None:
    log, root, clock = ConfigLog(), isolated_root_logger(), Clock()
    loggers = LoggerLevels(root, clock=clock)
    ClusterLoggers(log, loggers).start()

    log.level("app", "DEBUG")
    assert loggers.level("app").level == "DEBUG"
    assert loggers.level("app").last_modified == 1_700_000_000_000

    clock.now += 10
    loggers.set_level("app", "ERROR")  # this worker only
    log.level("other", "WARN")  # another namespace: app keeps this worker's level
    assert loggers.level("app").level == "ERROR"

    log.level("app", "TRACE")
    assert loggers.level("app").level == "TRACE"


def test_tombstones_and_unknown_levels_change_nothing() -> None:
    log, root = ConfigLog(), isolated_root_logger()
    log.level("app", "LOUD")
    ClusterLoggers(log, LoggerLevels(root)).start()
    log.level("app", "ERROR")
    log.level("app", None)
    log.level("app", "VERBOSE")

    assert levels(root, "app") == ["ERROR"]
