"""Contexts for driving the SQL tasks and connectors by hand against SQLite files (no tests here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from connect.api import SourceOffset, SourcePartition
from connect.testing import FakeErrantRecordReporter


class StoredOffsets:
    """An offset reader over a dict of {partition items: offset}."""

    def __init__(self, stored: dict[tuple[tuple[str, Any], ...], dict[str, Any]] | None = None) -> None:
        self.stored = stored or {}

    def offset(self, partition: SourcePartition) -> SourceOffset | None:
        return self.stored.get(tuple(sorted(partition.items())))

    def offsets(self, partitions: Iterable[SourcePartition]) -> list[tuple[SourcePartition, SourceOffset | None]]:
        return [(p, self.offset(p)) for p in partitions]

    def store(self, partition: Mapping[str, Any], offset: dict[str, Any]) -> None:
        self.stored[tuple(sorted(partition.items()))] = offset


class SourceContext:
    def __init__(self, offsets: StoredOffsets | None = None) -> None:
        self.offset_reader = offsets or StoredOffsets()
        self.transaction_context = None
        self.reconfigurations = 0

    def configs(self) -> Mapping[str, str]:
        return {}

    def request_task_reconfiguration(self) -> None:
        self.reconfigurations += 1

    def raise_error(self, error: Exception) -> None:
        raise error


class SinkContext:
    def __init__(self, reporter: FakeErrantRecordReporter | None) -> None:
        self.errant_record_reporter = reporter
        self.timeouts: list[int] = []

    def configs(self) -> Mapping[str, str]:
        return {}

    def timeout(self, timeout_ms: int) -> None:
        self.timeouts.append(timeout_ms)
