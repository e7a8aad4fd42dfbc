"""The named steps of the commit protocol (`commit.py`), where a fault injector is called.

The writer calls the task's `fault_injector(step, tp)` at each step; the default does nothing. An
exception raised there stops the writer exactly at that point, leaving storage as a crash would, and
fails the task; a new task instance must then recover. The tests use this seam to prove that a crash
at each step loses and duplicates nothing: in process (the Spark tier's harness), and with kill -9 of
real worker processes (a sink task subclass of the tests' own).
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from connect.api import TopicPartition


class CommitStep(enum.Enum):
    SPARK_JOB = "spark_job"
    """The epoch's Spark job is about to be submitted (an injector that acts inside the job starts here)."""
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
    PRE_COMMIT = "pre_commit"
    """`pre_commit` is about to return newly published offsets; the runtime commits them to Kafka after."""


FaultInjector = Callable[[CommitStep, TopicPartition | None], None]


def no_faults(step: CommitStep, tp: TopicPartition | None) -> None:
    """The production injector: nothing happens."""
