"""`MemoryOffsetStore` and `FileOffsetStore`: standalone mode's `OffsetStore`s (`connect.runtime.offsets`).

`set` stages values (immediately visible to `get`), `flush` makes everything staged durable. A None
value is a tombstone: the key is removed. Keys and values are the bytes of `offsets.codec`, so a
store backed by a compacted Kafka topic (distributed mode) has the same shape as these.

Thread safety: every method may be called from any task thread and from the herder; each store
serializes access with its own lock.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

import orjson

from connect.api.errors import ConnectError

log = logging.getLogger(__name__)


class MemoryOffsetStore:
    """Offsets that live as long as the process: for tests and throw-away standalone workers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[bytes, bytes] = {}

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def get(self, keys: Iterable[bytes]) -> dict[bytes, bytes]:
        with self._lock:
            return {key: self._data[key] for key in keys if key in self._data}

    def set(self, values: Mapping[bytes, bytes | None]) -> None:
        with self._lock:
            _apply(self._data, values)

    def flush(self, timeout: float | None = None) -> None:
        pass

    def snapshot(self) -> dict[bytes, bytes]:
        with self._lock:
            return dict(self._data)


class FileOffsetStore(MemoryOffsetStore):
    """Offsets in one JSON file (`offset.storage.file.filename`), rewritten atomically on each flush.

    The file holds `{"version": 1, "offsets": [[key, value], ...]}` with keys and values as the JSON
    text of the encoded bytes. A crash during a flush leaves the previous file intact: the new content
    goes to a temporary file in the same directory, is fsynced, then renamed over the old one.
    """

    FORMAT_VERSION = 1

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self._dirty = False
        self._write_lock = threading.Lock()

    def start(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            log.info("No offsets file at %s yet; starting with no stored offsets", self.path)
            return
        except OSError as exc:
            raise ConnectError(f"Could not read the offsets file {self.path}: {exc}") from exc
        try:
            parsed = orjson.loads(raw)
            entries = {str(k).encode(): str(v).encode() for k, v in parsed["offsets"]}
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ConnectError(f"The offsets file {self.path} is not in kconnect's format: {exc}") from exc
        with self._lock:
            self._data = entries
        log.info("Loaded %d source offsets from %s", len(entries), self.path)

    def set(self, values: Mapping[bytes, bytes | None]) -> None:
        with self._lock:
            _apply(self._data, values)
            self._dirty = True

    def flush(self, timeout: float | None = None) -> None:
        # The write lock keeps flushes in order: a later snapshot never lands before an earlier one.
        with self._write_lock:
            with self._lock:
                if not self._dirty:
                    return
                snapshot = list(self._data.items())
                self._dirty = False
            try:
                self._write(snapshot)
            except OSError as exc:
                with self._lock:
                    self._dirty = True
                raise ConnectError(f"Could not write the offsets file {self.path}: {exc}") from exc

    def stop(self) -> None:
        self.flush()

    def _write(self, entries: list[tuple[bytes, bytes]]) -> None:
        content = orjson.dumps(
            {"version": self.FORMAT_VERSION, "offsets": [[k.decode(), v.decode()] for k, v in entries]}
        )
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as tmp:
                tmp.write(content)
                tmp.flush()
                os.fsync(tmp.fileno())
            os.replace(tmp_name, self.path)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        _fsync_directory(directory)


def _apply(data: dict[bytes, bytes], values: Mapping[bytes, bytes | None]) -> None:
    for key, value in values.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value


def _fsync_directory(directory: Path) -> None:
    # The rename is durable only once the directory entry is; not every platform can open a directory.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
