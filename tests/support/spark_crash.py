"""kill -9 of a real worker process at a named step of the Spark sink's commit protocol.

`SPARK_SINK_CRASH_AT=<STEP>[:<n>]` in a worker's environment makes every `CrashingSparkParquetSinkTask`
of that process SIGKILL the whole process the n-th time (1 by default) it reaches STEP, a `CommitStep`
name (`STAGED`, `pre_commit`, ...; case does not matter). `SPARK_JOB` kills the process while the
epoch's Spark job has a running stage; `FILE_MOVED` after the first of several moves is a crash during
publication; `PRE_COMMIT` is after publication but before the runtime commits the offsets to Kafka.
The e2e tests name `CRASHING_SINK` as their connector's class (a worker imports it from the checkout:
the tests run the worker from the repository's root) and set the variable for the process to kill.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from connect.api import ConfigError, SinkTask, TopicPartition
from spark_sink.connector import SparkParquetSinkConnector
from spark_sink.faults import CommitStep
from spark_sink.task import SparkParquetSinkTask

log = logging.getLogger(__name__)

CRASH_AT_ENV = "SPARK_SINK_CRASH_AT"
CRASHING_SINK = f"{__name__}.CrashingSparkParquetSinkConnector"
JOB_WATCH_INTERVAL_S = 0.002
JOB_WATCH_TIMEOUT_S = 60.0


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


class CrashingSparkParquetSinkTask(SparkParquetSinkTask):
    """The sink's task, with a `CrashSwitch` as its fault injector when `SPARK_SINK_CRASH_AT` is set."""

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        crash = CrashSpec.from_environ(os.environ)
        if crash is not None:
            log.warning("Crash switch armed: this process is killed at %s #%d", crash.step.name, crash.occurrence)
            self.fault_injector = CrashSwitch(crash, self.spark_resources.job_running)


class CrashingSparkParquetSinkConnector(SparkParquetSinkConnector):
    def task_class(self) -> type[SinkTask]:
        return CrashingSparkParquetSinkTask
