"""`close_quietly`: closing the parts of a task (converters, chain, reporters, clients) on the way out.

One failing part must not leave the others open, and a close that fails is worth a log line, not a
failed task: the task has finished (or never started) by then.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

log = logging.getLogger(__name__)


@runtime_checkable
class Closeable(Protocol):
    def close(self) -> None: ...


def close_quietly(parts: Iterable[Closeable | None], owner: str) -> None:
    """Close every part that is not None, logging (not raising) each failure; `owner` starts the log line."""
    for part in parts:
        if part is None:
            continue
        try:
            part.close()
        except Exception:
            log.exception("%s: closing %r failed", owner, part)
