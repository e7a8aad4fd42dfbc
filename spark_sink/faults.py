"""Named steps of the commit protocol where tests inject failures, and the crash switch for real processes.

The writer calls the task's `fault_injector(step, tp)` at each step; the default does nothing. An
exception raised there stops the writer exactly at that point, leaving storage as a crash would, and
fails the task; a new task instance must then recover (the Spark tier's harness tests do this).

Test hook for real worker processes: `KCONNECT_SPARK_SINK_CRASH_AT=<STEP>[:<n>]` in a worker's
environment makes every Spark-sink task of that process SIGKILL the whole process the n-th time (1 by
default) it reaches STEP, a `CommitStep` name (`STAGED`, `pre_commit`, ...; case does not matter).
`SPARK_JOB` kills the process while the epoch's Spark job has a running stage; `FILE_MOVED` after
the first of several moves is a crash during publication; `PRE_COMMIT` is after publication but before
the runtime commits the offsets to Kafka. Never set it outside tests: it exists to prove that a kill -9
at each step loses and duplicates nothing.
"""

from __future__ import annotations

import enum
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from connect.api import ConfigError, TopicPartition

log = logging.getLogger(__name__)

CRASH_AT_ENV = "KCONNECT_SPARK_SINK_CRASH_AT"
JOB_WATCH_INTERVAL_S = 0.002
JOB_WATCH_TIMEOUT_S = 60.0


class CommitStep(enum.Enum):
    SPARK_JOB = "spark_job"
    """The epoch's Spark job is about to be submitted (the crash switch arms a kill inside the job here)."""
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


@dataclass(frozen=True)
class CrashSpec:
    step: CommitStep
    occurrence: int = 1

    @staticmethod
    def parse(text: str) -> CrashSpec:
        name, _, count = text.strip().partition(":")
        try:
            step = CommitStep[name.strip().upper()]
            occurrence = int(count) if count.strip() else 1
        except (KeyError, ValueError):
            steps = ", ".join(s.name for s in CommitStep)
            raise ConfigError(f"{CRASH_AT_ENV}={text!r}: expected <STEP>[:<n>] with STEP one of {steps}") from None
        if occurrence < 1:
            raise ConfigError(f"{CRASH_AT_ENV}={text!r}: the occurrence must be at least 1")
        return CrashSpec(step, occurrence)

    @staticmethod
    def from_environ(environ: Mapping[str, str]) -> CrashSpec | None:
        value = environ.get(CRASH_AT_ENV, "")
        return CrashSpec.parse(value) if value.strip() else None


class CrashSwitch:
    """A fault injector that SIGKILLs its own process at the n-th occurrence of a step (any thread).

    `job_running()` tells whether a Spark job of this process has an active stage; for `SPARK_JOB` a
    watcher thread kills the process as soon as it does, so the kill lands inside the job.
    """

    def __init__(
        self, spec: CrashSpec, job_running: Callable[[], bool], kill: Callable[[], None] | None = None
    ) -> None:
        self.spec = spec
        self._job_running = job_running
        self._kill = kill or _kill_this_process
        self._lock = threading.Lock()
        self._seen = 0

    def __call__(self, step: CommitStep, tp: TopicPartition | None) -> None:
        if step is not self.spec.step:
            return
        with self._lock:
            self._seen += 1
            due = self._seen == self.spec.occurrence
        if not due:
            return
        if step is CommitStep.SPARK_JOB:
            threading.Thread(target=self._kill_inside_job, name="spark-sink-crash-switch", daemon=True).start()
        else:
            self._fire(f"at {step.name} ({tp or 'epoch'})")

    def _kill_inside_job(self) -> None:
        deadline = time.monotonic() + JOB_WATCH_TIMEOUT_S
        while not self._job_running():
            if time.monotonic() > deadline:
                self._fire("after waiting in vain for the Spark job to run")
                return
            time.sleep(JOB_WATCH_INTERVAL_S)
        self._fire("inside the running Spark job")

    def _fire(self, where: str) -> None:
        log.warning("%s=%s: killing this process %s", CRASH_AT_ENV, self.spec.step.name, where)
        for handler in logging.getLogger().handlers:
            handler.flush()
        self._kill()


def _kill_this_process() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
    os._exit(137)  # not reached: SIGKILL cannot be caught
