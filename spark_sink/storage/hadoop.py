"""`Storage` for every non-local scheme (hdfs://, s3a://, ...) through Hadoop's FileSystem via py4j.

Uses the SparkSession's Hadoop configuration, so whatever `spark.hadoop.*` settings the user gave
(credentials, endpoints, HA name services) apply here too. The exclusive create is
`FileSystem.create(path, overwrite=false)`, atomic on HDFS; the content follows in the same call, and
a reader that finds a manifest still being written treats it as unreadable for a moment (see
`recovery`). S3 needs a conditional PUT for true exclusivity: not done here yet. Any thread (py4j
pins each Python thread to its own JVM thread).
"""

from __future__ import annotations

import os
from typing import Any

from spark_sink.storage.base import Entry


class HadoopStorage:
    def __init__(self, root: str, spark: Any) -> None:
        self._root = root.rstrip("/")
        self._jvm = spark._jvm
        self._conf = spark._jsc.hadoopConfiguration()
        self._fs = self._path(self._root).getFileSystem(self._conf)

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
        try:
            out = self._fs.create(self._path(self.uri(path)), False)
        except Exception as exc:
            if _is_java(exc, "org.apache.hadoop.fs.FileAlreadyExistsException") or self.exists(path):
                return False
            raise
        try:
            out.write(bytearray(data))
            out.hsync()
        finally:
            out.close()
        return True

    def rename(self, source: str, target: str) -> bool:
        destination = self._path(self.uri(target))
        self._fs.mkdirs(destination.getParent())
        if not self._fs.exists(self._path(self.uri(source))):
            return False
        return bool(self._fs.rename(self._path(self.uri(source)), destination))

    def upload(self, local_file: str, path: str) -> None:
        # The JVM copies the bytes (py4j would carry them as text). Not copyFromLocalFile: it needs
        # fs.file.impl to be the checksumming LocalFileSystem, which the sink's session replaces.
        source = self._path(f"file://{os.path.abspath(local_file)}")
        source_fs = source.getFileSystem(self._conf)
        copy = self._jvm.org.apache.hadoop.fs.FileUtil.copy
        if not copy(source_fs, source, self._fs, self._path(self.uri(path)), True, True, self._conf):
            raise OSError(f"Could not copy {local_file} to {self.uri(path)}")

    def delete(self, path: str) -> None:
        self._fs.delete(self._path(self.uri(path)), True)


def _is_java(exc: Exception, class_name: str) -> bool:
    java = getattr(exc, "java_exception", None)
    return java is not None and str(java.getClass().getName()) == class_name
