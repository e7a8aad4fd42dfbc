"""The process's one SparkSession, shared by every task of the sink there through reference counting.

Why a process-wide registry (the one module-level object of the sink): a SparkSession owns a JVM,
and PySpark allows one active SparkContext per process; every task of every Spark-sink connector in
a process therefore has to share it: the worker's with `task.isolation=thread`, each task process's
with `task.isolation=process` (one JVM per task process that runs a Spark sink task). The first task
that needs Spark starts it (lazily, so tasks that never write do not pay the seconds of JVM start),
the last `release` stops it. JVM-level settings (`spark.driver.memory`, jars) only take effect when
the session starts: a later task asking for different ones gets a warning, not a second JVM.
Thread-safe; pyspark is imported only here.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from connect.api import ConnectError

log = logging.getLogger(__name__)

# Settings the sink relies on; user `spark.*` keys override them (except the Arrow switches, see below).
DEFAULT_OPTIONS = {
    "spark.app.name": "kconnect-spark-sink",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.sources.partitionOverwriteMode": "static",
    # No _metadata / _common_metadata summary files (the key replacing the deprecated
    # parquet.enable.summary-metadata, which made every job log a deprecation warning).
    "spark.hadoop.parquet.summary.metadata.level": "NONE",
    "spark.hadoop.mapreduce.fileoutputcommitter.marksuccessfuljobs": "false",
    "spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version": "1",
    # createDataFrame makes one partition per Arrow batch, and converting many small batches costs the
    # arrow hand-off much of its speed (Spark's default is 10,000 rows; `docs/spark_sink.md`). `spark_job` bounds
    # the batches by bytes instead, so a batch still fits into one task message on a cluster.
    "spark.sql.execution.arrow.maxRecordsPerBatch": "1000000",
    # Spark 3.4+ plans a sort by the partition columns into every partitioned write ("planned write").
    # A job of several groups (`partitionBy(_g)`) then took longer than with the writer's own handling
    # (`docs/spark_sink.md`, "Planned writes off").
    "spark.sql.optimizer.plannedWrite.enabled": "false",
}
# Batches must reach Spark as Arrow, or fail loudly: a silent fallback to rows would be far slower.
REQUIRED_OPTIONS = {
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "false",
}


def import_pyspark() -> Any:
    try:
        import pyspark.sql
    except ImportError as exc:
        raise ConnectError("The Spark Parquet sink needs pyspark and pyarrow: pip install 'kconnect[spark]'") from exc
    return pyspark.sql


class SessionLease:
    """A task's claim on the shared session; `release` once (later calls do nothing)."""

    def __init__(self, registry: SparkSessionRegistry, spark: Any) -> None:
        self._registry = registry
        self.spark = spark
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._registry.release()


class SparkSessionRegistry:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spark: Any = None
        self._owned = False
        self._refs = 0
        self._options: dict[str, str] = {}

    def acquire(self, options: Mapping[str, str]) -> SessionLease:
        with self._lock:
            if self._spark is None:
                self._spark, self._owned = _start(options)
                self._options = dict(options)
            elif dict(options) != self._options:
                changed = sorted(k for k in set(options) | set(self._options) if options.get(k) != self._options.get(k))
                log.warning(
                    "The worker's SparkSession is already running; these settings keep their values: %s", changed
                )
            self._refs += 1
            return SessionLease(self, self._spark)

    def release(self) -> None:
        with self._lock:
            self._refs -= 1
            if self._refs > 0 or self._spark is None:
                return
            spark, owned = self._spark, self._owned
            self._spark, self._owned, self._options = None, False, {}
        if owned:
            log.info("Stopping the SparkSession: its last task stopped")
            try:
                spark.stop()
            except Exception as exc:
                # A signal to the whole process group ends the JVM first; nothing is left to stop then.
                log.warning("Stopping the SparkSession failed (its JVM may be gone already): %s", exc)

    @property
    def references(self) -> int:
        return self._refs


def is_spark_connect(spark: Any) -> bool:
    """A Spark Connect client session: no JVM in this process, so no SparkContext and no Hadoop classes."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def _start(options: Mapping[str, str]) -> tuple[Any, bool]:
    sql = import_pyspark()
    existing = sql.SparkSession.getActiveSession()
    master = options.get("spark.master", "local[*]")
    if master.startswith("sc://"):
        return _start_remote(sql, master, options), True
    builder = sql.SparkSession.builder.master(master)
    settings = {**DEFAULT_OPTIONS, **_local_defaults(master), **options, **REQUIRED_OPTIONS}
    for key, value in settings.items():
        if key != "spark.master":
            builder = builder.config(key, value)
    log.info("Starting the SparkSession (master %s)", master)
    spark = builder.getOrCreate()
    for key, value in REQUIRED_OPTIONS.items():
        spark.conf.set(key, value)  # a session that existed before ignored the builder's SQL settings
    return spark, existing is None


def _start_remote(sql: Any, address: str, options: Mapping[str, str]) -> Any:
    """A Spark Connect session: only SQL settings (`spark.sql.*`) are per session; the server's own
    launch settings (driver, executors, `spark.hadoop.*`) are the server's, and the Arrow switches are
    not settings there (a Connect client always sends Arrow)."""
    settings = {**DEFAULT_OPTIONS, **options}
    per_session = {k: v for k, v in settings.items() if k.startswith("spark.sql.") and k not in REQUIRED_OPTIONS}
    ignored = sorted(k for k in options if k != "spark.master" and k not in per_session)
    if ignored:
        log.warning("Spark Connect: these settings belong to the server and are not sent: %s", ", ".join(ignored))
    builder = sql.SparkSession.builder.remote(address)
    for key, value in per_session.items():
        builder = builder.config(key, value)
    log.info("Connecting to the Spark Connect server %s", address)
    return builder.getOrCreate()


def _local_defaults(master: str) -> dict[str, str]:
    if not master.startswith("local"):
        return {}
    cores = str(os.cpu_count() or 2)
    return {"spark.sql.shuffle.partitions": cores, "spark.ui.enabled": "false"}


SESSIONS = SparkSessionRegistry()
"""The process-wide registry (see the module docstring for why there is exactly one)."""
