"""Named steps of the commit protocol where tests inject failures (a crash between two steps).

The writer calls the task's `fault_injector(step, tp)` after each step; the default does nothing.
An exception raised there stops the writer exactly at that point, leaving storage as a crash would,
and fails the task; a new task instance must then recover. Later crash tests with real processes
can map the same names to `os._exit`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from connect.api import TopicPartition


class CommitStep(enum.Enum):
    STAGED = "staged"
    """Spark wrote the epoch's files to staging; no manifest yet."""
    MANIFEST_CREATED = "manifest_created"
    """One partition's manifest exists (committed); its files are still in staging."""
    FILE_MOVED = "file_moved"
    """One file of a committed partition was moved into place."""
    PUBLISHED = "published"
    """Every file of the epoch is in place; staging is not deleted yet."""
    STAGING_DELETED = "staging_deleted"
    """The epoch's staging directory is gone."""


FaultInjector = Callable[[CommitStep, TopicPartition | None], None]


def no_faults(step: CommitStep, tp: TopicPartition | None) -> None:
    """The production injector: nothing happens."""
