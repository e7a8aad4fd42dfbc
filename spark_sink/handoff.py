"""Where the Parquet hand-off files live (`batch.handoff`), which hand-off a session gets, and their cleanup.

Writer thread: `choose_handoff`, `write`, `delete`. Task thread: `close` (stop) and the sweeps (start, open).

Why a file at all: `spark.createDataFrame(table)` (the arrow hand-off) makes the JVM convert every
Arrow batch to rows one value at a time, the larger part of a large flush. Written by pyarrow (uncompressed,
no statistics) and loaded by Spark's vectorized Parquet reader, the same data costs much less
(`docs/spark_sink.md` has the figures); `spark_sink.frames` turns the file back into the DataFrame the
arrow hand-off would have given.

Small tables: reading a file costs Spark a fixed amount per job (planning a file scan, broadcasting
the Hadoop configuration, opening the file) that the arrow hand-off does not pay. Both hand-offs cost
the same at about the same number of rows for 100 B and 1 KB records (`docs/spark_sink.md`, "Why"),
so `auto` hands tables of fewer than `AUTO_MIN_ROWS` rows over as Arrow batches; an explicit `parquet`
uses the file for every table.

Where: the executors of a local master are the driver's own JVM, so the file goes to a directory of
the task under the system temp dir (`LocalHandoffArea`). Any other master's executors read it from
`_handoff/` under the output root (`StorageHandoffArea`: written locally, then moved there by the
`Storage`). `auto` takes the local area for local masters and the arrow hand-off for every other one:
through the output storage each flush would pay a remote write, remote reads and a delete, which were
not measured against Arrow batches travelling inside the tasks. Spark Connect always gets the arrow
hand-off: its server cannot read the client's files, and the client has no JVM to move them.

Cleanup: each file is deleted after its job. A local area is locked with flock(2) for as long as its
task lives; the sweep at a task's start deletes the areas whose lock is free (their process died). The
sweep of `_handoff/` at partition assignment cannot tell a dead writer from a live one elsewhere, so it
deletes files older than `STORAGE_GRACE_MS` only. A hand-off file is the input of one staging attempt
and nothing else: losing it fails that attempt (it is retried), leaving it behind costs space; neither
changes what the manifests commit.
"""

from __future__ import annotations

import contextlib
import enum
import fcntl
import logging
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from spark_sink.session import is_spark_connect
from spark_sink.storage import Storage

log = logging.getLogger(__name__)

AUTO_MIN_ROWS = 20_000
HANDOFF_DIR = "_handoff"
LOCK_FILE = "lock"
STORAGE_GRACE_MS = 60 * 60 * 1000
CREATE_GRACE_S = 60.0
_LOCAL_MASTER = re.compile(r"local(\[[^\]]*\])?")


class Handoff(enum.Enum):
    ARROW = "Arrow batches (createDataFrame)"
    LOCAL_FILE = "a Parquet file in a local directory"
    STORAGE_FILE = "a Parquet file under the output root"


class HandoffArea(Protocol):
    def write(self, table: pa.Table, name: str, row_groups: Sequence[int]) -> str:
        """Writes `table` as the hand-off file `name`; returns the URI Spark reads it from.

        `row_groups`: the rows of each row group, in table order."""
        ...

    def delete(self, name: str) -> None: ...

    def close(self) -> None:
        """Deletes the area's files (the task stops)."""
        ...


@dataclass(frozen=True)
class HandoffChoice:
    """What a task hands its Spark jobs: `area` for the Parquet files (None: Arrow only), from `min_rows` rows on."""

    area: HandoffArea | None
    min_rows: int = 0

    def area_for(self, rows: int) -> HandoffArea | None:
        """The area a table of `rows` rows goes through; None for Arrow batches."""
        return self.area if rows >= self.min_rows else None


def choose_handoff(setting: str, spark: Any) -> Handoff:
    """The hand-off `batch.handoff` gets in this session (Spark Connect and the master decide for `auto`)."""
    if setting == "arrow":
        return Handoff.ARROW
    if is_spark_connect(spark):
        if setting == "parquet":
            log.warning("batch.handoff=parquet: a Spark Connect server cannot read this process's files; using arrow")
        return Handoff.ARROW
    if is_local_master(str(spark.sparkContext.master)):
        return Handoff.LOCAL_FILE
    return Handoff.STORAGE_FILE if setting == "parquet" else Handoff.ARROW


def is_local_master(master: str) -> bool:
    """local, local[N], local[*], local[N,F]: executors in the driver's JVM (local-cluster is not)."""
    return _LOCAL_MASTER.fullmatch(master.strip()) is not None


def write_parquet(table: pa.Table, path: str, row_groups: Sequence[int]) -> None:
    # Uncompressed and without statistics: the file is read once, right away, from the page cache.
    if sum(row_groups) != table.num_rows:
        raise ValueError(f"row groups of {sum(row_groups)} rows for a table of {table.num_rows}")
    with pq.ParquetWriter(path, table.schema, compression="none", write_statistics=False) as writer:
        start = 0
        for rows in filter(None, row_groups):
            writer.write_table(table.slice(start, rows), row_group_size=rows)
            start += rows


def local_parent() -> str:
    """Where local areas live: one directory per user under the system temp dir (TMPDIR)."""
    return os.path.join(tempfile.gettempdir(), f"kconnect-spark-handoff-{os.getuid()}")


class LocalHandoffArea:
    """A task's directory of hand-off files on this machine, locked while the task lives."""

    def __init__(self, parent: str) -> None:
        os.makedirs(parent, mode=0o700, exist_ok=True)
        name = f"task-{uuid.uuid4().hex}"
        # Locked before it gets its visible name: a sweep never sees it unlocked while this task lives.
        pending = os.path.join(parent, "." + name)
        os.mkdir(pending, 0o700)
        self._lock = open(os.path.join(pending, LOCK_FILE), "wb")  # noqa: SIM115 - held until close
        fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.directory = os.path.join(parent, name)
        os.rename(pending, self.directory)

    def path(self, name: str) -> str:
        return os.path.join(self.directory, f"{name}.parquet")

    def write(self, table: pa.Table, name: str, row_groups: Sequence[int]) -> str:
        path = self.path(name)
        write_parquet(table, path, row_groups)
        return f"file://{path}"

    def delete(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path(name))

    def close(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)
        self._lock.close()


class StorageHandoffArea:
    """Hand-off files under `<root>/_handoff/`, for executors that do not share the driver's disk."""

    def __init__(self, storage: Storage, scratch: LocalHandoffArea) -> None:
        self._storage = storage
        self._scratch = scratch

    def write(self, table: pa.Table, name: str, row_groups: Sequence[int]) -> str:
        self._scratch.write(table, name, row_groups)
        try:
            self._storage.upload(self._scratch.path(name), self._path(name))
        finally:
            self._scratch.delete(name)
        return self._storage.uri(self._path(name))

    def delete(self, name: str) -> None:
        self._storage.delete(self._path(name))

    def close(self) -> None:
        self._scratch.close()

    @staticmethod
    def _path(name: str) -> str:
        return f"{HANDOFF_DIR}/{name}.parquet"


def sweep_local(parent: str, now_s: float | None = None) -> list[str]:
    """Deletes the local areas of processes that died; returns their names."""
    now = time.time() if now_s is None else now_s
    deleted: list[str] = []
    try:
        entries = list(os.scandir(parent))
    except FileNotFoundError:
        return deleted
    for entry in entries:
        try:
            if _dead_area(entry, now):
                shutil.rmtree(entry.path, ignore_errors=True)
                deleted.append(entry.name)
        except OSError as exc:  # another user's, or gone meanwhile
            log.debug("Not sweeping %s: %s", entry.path, exc)
    if deleted:
        log.info("Deleted %d hand-off director(ies) of stopped processes under %s", len(deleted), parent)
    return deleted


def _dead_area(entry: os.DirEntry[str], now: float) -> bool:
    if not entry.is_dir(follow_symlinks=False):
        return False
    if entry.name.startswith("."):  # its task died while creating it, or is creating it now
        return now - entry.stat(follow_symlinks=False).st_mtime > CREATE_GRACE_S
    try:
        fd = os.open(os.path.join(entry.path, LOCK_FILE), os.O_RDONLY)
    except FileNotFoundError:
        return True  # areas get their name only once locked
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False  # a live task holds it
    finally:
        os.close(fd)  # also releases the lock taken to test it; the delete follows at once
    return True


def sweep_storage(storage: Storage, now_ms: int, grace_ms: int = STORAGE_GRACE_MS) -> list[str]:
    """Deletes hand-off files under the output root older than `grace_ms`; returns their names."""
    deleted = [e.name for e in storage.list_dir(HANDOFF_DIR) if now_ms - e.mtime_ms >= grace_ms]
    for name in deleted:
        storage.delete(f"{HANDOFF_DIR}/{name}")
    if deleted:
        log.info("Deleted %d hand-off file(s) left in %s", len(deleted), storage.uri(HANDOFF_DIR))
    return deleted
