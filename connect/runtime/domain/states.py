"""What the user asked for (`TargetState`) and what is happening (`State`), as Kafka Connect names them."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar


class TargetState(enum.Enum):
    """User intent, persisted with the connector config. REST's initial_state RUNNING maps to STARTED."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"

    @staticmethod
    def from_initial_state(text: str) -> TargetState:
        """REST `initial_state` (RUNNING|PAUSED|STOPPED, any case) → target state; ValueError if unknown."""
        upper = text.strip().upper()
        if upper == "RUNNING":
            return TargetState.STARTED
        if upper in ("PAUSED", "STOPPED"):
            return TargetState(upper)
        raise ValueError(text)


class State(enum.Enum):
    """The status of a connector or task instance."""

    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    STOPPED = "STOPPED"
    DESTROYED = "DESTROYED"


@dataclass(frozen=True, slots=True, order=True)
class ConnectorTaskId:
    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"


_V = TypeVar("_V")


def tasks_of(tasks: Mapping[ConnectorTaskId, _V], connector: str) -> dict[int, _V]:
    """The entries of one connector's tasks, by task number in order. Filters before it sorts: a
    cluster-wide status read calls this once per connector."""
    return dict(sorted((t.task, v) for t, v in tasks.items() if t.connector == connector))


def tasks_by_connector(tasks: Mapping[ConnectorTaskId, _V]) -> dict[str, dict[int, _V]]:
    """`tasks_of` for every connector at once, in one pass: what a read of all connectors' statuses
    uses instead of filtering every task once per connector."""
    grouped: dict[str, dict[int, _V]] = {}
    for task, value in tasks.items():
        grouped.setdefault(task.connector, {})[task.task] = value
    return {connector: dict(sorted(by_number.items())) for connector, by_number in grouped.items()}
