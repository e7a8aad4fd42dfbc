"""`AuditTrail`: where audit records go. A record is a JSON object (see `rest.audit.record`); each sink gets
every record, and a sink that fails is logged without keeping the change or the other sinks from going on."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
# The log stream of the trail: one INFO line per change, its message the record as JSON.
AUDIT_LOGGER = logging.getLogger("kconnect.audit")

AuditSink = Callable[[Mapping[str, Any]], None]


class AuditTrail:
    def __init__(self, worker_id: str, sinks: Sequence[AuditSink], closers: Sequence[Callable[[], None]] = ()) -> None:
        self.worker_id = worker_id
        self._sinks = list(sinks)
        self._closers = list(closers)

    def record(self, entry: Mapping[str, Any]) -> None:
        for sink in self._sinks:
            try:
                sink(entry)
            except Exception:
                log.exception("An audit sink failed to take the record of %s", entry.get("action"))

    def close(self) -> None:
        for close in self._closers:
            try:
                close()
            except Exception:
                log.exception("Error while closing an audit sink")


def json_line(entry: Mapping[str, Any]) -> str:
    """A record as every sink writes it: compact JSON, keys sorted."""
    return json.dumps(entry, separators=(",", ":"), sort_keys=True)


def log_sink(entry: Mapping[str, Any]) -> None:
    """The record as one line of the `kconnect.audit` logger."""
    AUDIT_LOGGER.info("%s", json_line(entry))


class JsonLinesFile:
    """Appends each record as a line of JSON to a file (`audit.log.file`), flushed at once."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def __call__(self, entry: Mapping[str, Any]) -> None:
        line = json_line(entry)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()
