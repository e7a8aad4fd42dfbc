"""`Storage` for file:// roots with plain os calls (fast, and no JVM needed for recovery).

The exclusive create writes the full content to a hidden temporary file, fsyncs it, then hard-links
it to the final name: link(2) fails if the name exists, so the manifest appears atomically and
complete, never half-written. Any thread.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from urllib.parse import unquote, urlparse

from spark_sink.storage.base import Entry


class LocalStorage:
    def __init__(self, root: str) -> None:
        parsed = urlparse(root)
        if parsed.scheme not in ("", "file"):
            raise ValueError(f"LocalStorage needs a file:// root, got {root}")
        self._root = root.rstrip("/")
        self.base = unquote(parsed.path) if parsed.scheme else root

    @property
    def root(self) -> str:
        return self._root

    def uri(self, path: str) -> str:
        return f"{self._root}/{path}" if path else self._root

    def local(self, path: str) -> str:
        return os.path.join(self.base, path) if path else self.base

    def exists(self, path: str) -> bool:
        return os.path.exists(self.local(path))

    def list_dir(self, path: str) -> list[Entry]:
        try:
            with os.scandir(self.local(path)) as entries:
                return [
                    Entry(e.name, e.is_dir(), int(e.stat().st_mtime * 1000))
                    for e in entries
                    if not e.name.startswith(".")
                ]
        except (FileNotFoundError, NotADirectoryError):
            return []

    def walk(self, path: str) -> list[tuple[str, bool]]:
        found: list[tuple[str, bool]] = []
        for directory, directories, files in os.walk(self.local(path)):
            relative = os.path.relpath(directory, self.base).replace(os.sep, "/")
            found.extend((f"{relative}/{name}", True) for name in directories)
            found.extend((f"{relative}/{name}", False) for name in files)
        return found

    def read(self, path: str) -> bytes:
        with open(self.local(path), "rb") as f:
            return f.read()

    def create_exclusive(self, path: str, data: bytes) -> bool:
        target = self.local(path)
        directory = os.path.dirname(target)
        os.makedirs(directory, exist_ok=True)
        temporary = os.path.join(directory, f".{os.path.basename(target)}.{uuid.uuid4().hex}.tmp")
        with open(temporary, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temporary, target)
        except FileExistsError:
            return False
        finally:
            os.unlink(temporary)
        _fsync_dir(directory)
        return True

    def rename(self, source: str, target: str) -> bool:
        destination = self.local(target)
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        try:
            os.rename(self.local(source), destination)
        except FileNotFoundError:
            return False
        return True

    def upload(self, local_file: str, path: str) -> None:
        destination = self.local(path)
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        shutil.move(local_file, destination)  # a rename on the same filesystem

    def delete(self, path: str) -> None:
        target = self.local(path)
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target)


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
