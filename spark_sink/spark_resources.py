"""`SparkResources`: the Spark side of one sink task: its SparkSession lease, the storage its files go to,
and how batches reach Spark (`batch.handoff`).

Made at the task's `start`; nothing starts until first asked for: the session on the first flush (or the
first storage call on a Hadoop filesystem), the hand-off choice with it. Shared by the task thread (recovery,
sweeps) and the writer thread (`EpochCommitter`), under one lock; `release` at `stop` gives the lease back
(`session.SESSIONS` keeps one SparkSession per process) and removes this task's hand-off files.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from connect.api import ConnectError
from spark_sink.config import SinkSettings
from spark_sink.handoff import (
    AUTO_MIN_ROWS,
    Handoff,
    HandoffArea,
    HandoffChoice,
    LocalHandoffArea,
    StorageHandoffArea,
    choose_handoff,
    local_parent,
)
from spark_sink.session import SESSIONS, SessionLease, is_spark_connect
from spark_sink.spark_job import cancel_jobs
from spark_sink.storage import Storage
from spark_sink.storage.hadoop import HadoopStorage
from spark_sink.storage.local import LocalStorage

log = logging.getLogger(__name__)


class SparkResources:
    def __init__(self, settings: SinkSettings, writer_id: str) -> None:
        self._settings = settings
        self._writer_id = writer_id
        self._lock = threading.Lock()
        self._lease: SessionLease | None = None
        self._storage: Storage | None = None
        self._handoff: Handoff | None = None
        self._handoff_area: LocalHandoffArea | None = None

    @property
    def handoff(self) -> Handoff | None:
        """How batches reach Spark, once decided (on the first flush)."""
        return self._handoff

    def spark(self) -> Any:
        """The SparkSession, started on first use."""
        with self._lock:
            if self._lease is None:
                self._lease = SESSIONS.acquire(self._settings.spark_options)
            return self._lease.spark

    def storage(self) -> Storage:
        """The storage under `path`: local files directly, anything else through Spark's Hadoop classes."""
        if self._storage is None:
            root = self._settings.root
            if root.startswith("file://"):
                self._storage = LocalStorage(root)
            else:
                spark = self.spark()
                if is_spark_connect(spark):
                    # Manifests and moves go through the Hadoop classes in this process's JVM, which a
                    # Spark Connect client does not have.
                    raise ConnectError(
                        f"path {root}: with Spark Connect (spark.master=sc://...) the sink writes to file:// "
                        "paths only, on storage this worker and the Spark Connect server both see"
                    )
                self._storage = HadoopStorage(root, spark)
        return self._storage

    def handoff_choice(self) -> HandoffChoice:
        """How the Spark jobs get their tables (`batch.handoff`); decided on the first flush."""
        spark = self.spark()
        with self._lock:
            if self._handoff is None:
                self._handoff = choose_handoff(self._settings.handoff, spark)
                log.info("Spark sink task %s hands batches to Spark as %s", self._writer_id, self._handoff.value)
            if self._handoff is Handoff.ARROW:
                return HandoffChoice(None)
            if self._handoff_area is None:
                self._handoff_area = LocalHandoffArea(local_parent())
            local = self._handoff_area
        area: HandoffArea = local
        if self._handoff is Handoff.STORAGE_FILE:
            area = StorageHandoffArea(self.storage(), local)
        return HandoffChoice(area, AUTO_MIN_ROWS if self._settings.handoff == "auto" else 0)

    def job_running(self) -> bool:
        """Whether a Spark stage runs now (a classic session only; Spark Connect cannot tell)."""
        with self._lock:
            lease = self._lease
        if lease is None or is_spark_connect(lease.spark):
            return False
        return bool(lease.spark.sparkContext.statusTracker().getActiveStageIds())

    def cancel_jobs(self, group: str) -> None:
        with self._lock:
            if self._lease is not None:
                cancel_jobs(self._lease.spark, group)

    def release(self) -> None:
        """Remove this task's hand-off files and give the session back."""
        with self._lock:
            if self._handoff_area is not None:
                self._handoff_area.close()
                self._handoff_area = None
            if self._lease is not None:
                self._lease.release()
                self._lease = None
