"""`Storage` for every non-local scheme (hdfs://, s3a://, ...) through Hadoop's FileSystem via py4j.

Uses the SparkSession's Hadoop configuration, so whatever `spark.hadoop.*` settings the user gave
(credentials, endpoints, HA name services) apply here too. Any thread (py4j pins each Python thread
to its own JVM thread).

The exclusive create (the manifest, the sink's commit point) is `createFile(path).overwrite(false)`:
atomic on HDFS, where the name exists from the create on and a reader that finds a manifest still
being written treats it as unreadable for a moment (see `recovery`). On an object store such as S3A,
`overwrite(false)` is only a check before the upload, so two writers could both pass it and the
second upload would silently replace the first manifest. Where the filesystem declares conditional
create (`fs.option.create.conditional.overwrite`: S3A from Hadoop 3.4.2 puts with `If-None-Match: *`)
the sink requires it, and the loser learns at `close` that the object exists. A store without it
gets a warning: exclusivity there rests on the group's fencing alone.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from spark_sink.storage.base import Entry

log = logging.getLogger(__name__)

# Hadoop's createFile() option (Options.CreateFileOptionKeys): fail at close if the object exists.
CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite"
# Schemes of object stores, whose create(overwrite=false) is a check, not an atomic create.
_OBJECT_STORES = frozenset({"s3a", "s3", "s3n", "gs", "oss", "cosn", "obs", "wasb", "wasbs", "abfs", "abfss"})
# What losing the conditional create raises at close: 412 Precondition Failed (S3A), or the name taken.
_LOST_RACE = frozenset(
    {"org.apache.hadoop.fs.s3a.RemoteFileChangedException", "org.apache.hadoop.fs.FileAlreadyExistsException"}
)


class HadoopStorage:
    def __init__(self, root: str, spark: Any) -> None:
        self._root = root.rstrip("/")
        self._jvm = spark._jvm
        self._conf = spark._jsc.hadoopConfiguration()
        self._fs = self._path(self._root).getFileSystem(self._conf)
        self.conditional_create = self._declares(CONDITIONAL_CREATE)
        scheme = str(self._fs.getScheme())
        if not self.conditional_create and scheme in _OBJECT_STORES:
            log.warning(
                "%s:// does not declare conditional create (%s): a manifest create there is a check followed by"
                " an upload, so two writers racing for one commit could both succeed. Use a Hadoop client that"
                " supports it (hadoop-aws 3.4.2 or later, fs.s3a.create.conditional.enabled=true).",
                scheme,
                CONDITIONAL_CREATE,
            )

    def _declares(self, capability: str) -> bool:
        try:
            return bool(self._fs.hasPathCapability(self._path(self._root), capability))
        except Exception:  # a filesystem that cannot answer does not have it
            return False

    @property
    def root(self) -> str:
        return self._root

    def uri(self, path: str) -> str:
        return f"{self._root}/{path}" if path else self._root

    def _path(self, uri: str) -> Any:
        return self._jvm.org.apache.hadoop.fs.Path(uri)

    def exists(self, path: str) -> bool:
        return bool(self._fs.exists(self._path(self.uri(path))))

    def list_dir(self, path: str) -> list[Entry]:
        try:
            statuses = self._fs.listStatus(self._path(self.uri(path)))
        except Exception as exc:
            if _is_java(exc, "java.io.FileNotFoundException"):
                return []
            raise
        entries = [
            Entry(str(s.getPath().getName()), bool(s.isDirectory()), int(s.getModificationTime())) for s in statuses
        ]
        return [e for e in entries if not e.name.startswith(".")]

    def walk(self, path: str) -> list[tuple[str, bool]]:
        prefix = self._fs.makeQualified(self._path(self._root)).toString().rstrip("/") + "/"
        found: list[tuple[str, bool]] = []
        pending = [self._path(self.uri(path))]
        while pending:
            try:
                statuses = self._fs.listStatus(pending.pop())
            except Exception as exc:
                if _is_java(exc, "java.io.FileNotFoundException"):
                    continue
                raise
            for status in statuses:
                full = str(status.getPath().toString())
                found.append((full[len(prefix) :] if full.startswith(prefix) else full, bool(status.isDirectory())))
                if status.isDirectory():
                    pending.append(status.getPath())
        return found

    def read(self, path: str) -> bytes:
        stream = self._fs.open(self._path(self.uri(path)))
        try:
            return bytes(self._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
        finally:
            stream.close()

    def create_exclusive(self, path: str, data: bytes) -> bool:
        out = self.open_exclusive(path)
        return out is not None and self.finish_exclusive(out, data)

    def open_exclusive(self, path: str) -> Any:
        """The first half of `create_exclusive`: an output stream, or None when `path` exists already.

        Split out so that a test can interleave two writers (both open, then both finish) the way a
        zombie and its successor can; nothing else needs the halves."""
        # recursive(): the builder's default is HDFS's createNonRecursive, which fails without the parent.
        builder = self._fs.createFile(self._path(self.uri(path))).overwrite(False).recursive()
        if self.conditional_create:
            builder = builder.must(CONDITIONAL_CREATE, True)
        try:
            return builder.build()
        except Exception as exc:
            if _is_java(exc, "org.apache.hadoop.fs.FileAlreadyExistsException") or self.exists(path):
                return None
            raise

    def finish_exclusive(self, out: Any, data: bytes) -> bool:
        """Write `data` and close: True when the file is ours, False when another writer's create won."""
        try:
            out.write(bytearray(data))
            if out.hasCapability("hsync"):  # an object store's stream has nothing to sync before close
                out.hsync()
        except Exception:
            _discard(out)
            raise
        try:
            out.close()
        except Exception as exc:
            if self.conditional_create and _java_class(exc) in _LOST_RACE:
                return False
            raise
        return True

    def rename(self, source: str, target: str) -> bool:
        destination = self._path(self.uri(target))
        self._fs.mkdirs(destination.getParent())
        if not self._fs.exists(self._path(self.uri(source))):
            return False
        return bool(self._fs.rename(self._path(self.uri(source)), destination))

    def upload(self, local_file: str, path: str) -> None:
        # The JVM copies the bytes (py4j would carry them as text).
        source = self._path(f"file://{os.path.abspath(local_file)}")
        source_fs = source.getFileSystem(self._conf)
        copy = self._jvm.org.apache.hadoop.fs.FileUtil.copy
        if not copy(source_fs, source, self._fs, self._path(self.uri(path)), True, True, self._conf):
            raise OSError(f"Could not copy {local_file} to {self.uri(path)}")

    def delete(self, path: str) -> None:
        self._fs.delete(self._path(self.uri(path)), True)


def _java_class(exc: Exception) -> str | None:
    java = getattr(exc, "java_exception", None)
    return None if java is None else str(java.getClass().getName())


def _is_java(exc: Exception, class_name: str) -> bool:
    return _java_class(exc) == class_name


def _discard(out: Any) -> None:
    """Give up a half-written stream: an object store's upload happens at close, so abort it there
    rather than publish a truncated manifest."""
    try:
        if out.hasCapability("fs.capability.outputstream.abortable"):
            out.abort()
        else:
            out.close()
    except Exception:  # the write's own error is the one worth reporting
        log.debug("discarding a failed exclusive create also failed", exc_info=True)
