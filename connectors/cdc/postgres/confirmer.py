"""`SlotConfirmer`: confirms the slot up to the commit of the stored offset, on a thread of its own.

The runtime calls `SourceTask.commit()` once offsets are stored, which with exactly-once delivery is after
every transaction, so after every poll. Reading the stored offset back reads the offsets topic to its end (as
Kafka Connect's offset reader does), which takes a while; on the task's thread it would hold up every poll.
Here the read runs beside the task: requests that come while one runs make one more read, not one each.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from connectors.cdc.postgres.offsets import PostgresOffset

log = logging.getLogger(__name__)

STOP_WAIT_S = 5.0


class SlotConfirmer:
    def __init__(self, read_stored: Callable[[], Mapping[str, Any] | None], confirm: Callable[[int], None]) -> None:
        """`read_stored`: the stored offset of the task's partition; `confirm`: confirm the slot up to an LSN
        (from any thread)."""
        self._read_stored, self._confirm = read_stored, confirm
        self._wanted, self._stopping = threading.Event(), False
        self._thread = threading.Thread(target=self._run, name="cdc-slot-confirmer", daemon=True)
        self._thread.start()

    def request(self) -> None:
        """Offsets were stored: confirm the slot up to them soon."""
        self._wanted.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            if self._stopping:
                return
            self._wanted.clear()
            try:
                stored = self._read_stored()
                confirmable = PostgresOffset.from_map(stored).confirmable_lsn if stored else None
                if confirmable is not None:
                    self._confirm(confirmable)
            except Exception:  # the next request tries again; the slot only waits longer meanwhile
                log.warning("Could not read the stored offset to confirm the slot", exc_info=True)

    def close(self) -> None:
        self._stopping = True
        self._wanted.set()
        self._thread.join(STOP_WAIT_S)
