"""The file operations the commit protocol needs, as a Protocol over paths relative to the output root.

Implementations: `LocalStorage` (file://, plain os calls: no JVM needed) and `HadoopStorage`
(every other scheme, through the Hadoop FileSystem of the SparkSession). Both are safe to call from
the task thread and the writer thread at once; every delete tolerates a path that is already gone,
because a recovering writer and a late one may clean up the same things.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Entry:
    name: str
    is_dir: bool
    mtime_ms: int


class Storage(Protocol):
    @property
    def root(self) -> str:
        """The output root URI (no trailing slash)."""
        ...

    def uri(self, path: str) -> str:
        """The full URI of a relative path (what Spark writes to)."""
        ...

    def exists(self, path: str) -> bool: ...

    def list_dir(self, path: str) -> list[Entry]:
        """The entries of a directory, skipping names that start with '.'; [] when it does not exist."""
        ...

    def walk(self, path: str) -> list[tuple[str, bool]]:
        """(relative path, is directory) of everything below `path`, recursively; [] when it does not exist."""
        ...

    def read(self, path: str) -> bytes: ...

    def create_exclusive(self, path: str, data: bytes) -> bool:
        """Create `path` holding `data` unless it exists (atomically); False when it existed already."""
        ...

    def rename(self, source: str, target: str) -> bool:
        """Move a file, creating the target's parents; False when `source` does not exist."""
        ...

    def upload(self, local_file: str, path: str) -> None:
        """Move the local file `local_file` to `path` (replacing what is there), creating the parents."""
        ...

    def delete(self, path: str) -> None:
        """Remove a file or a directory tree; nothing when it does not exist."""
        ...
