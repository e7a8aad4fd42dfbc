"""The slot is confirmed up to the stored offset's commit, read off the task's thread; a failed read is tried
again at the next request."""

from __future__ import annotations

import threading
from typing import Any

from connectors.cdc.postgres.confirmer import SlotConfirmer
from tests.support.waiting import wait_until


def test_requests_confirm_the_stored_commit_and_a_failed_read_waits_for_the_next() -> None:
    stored: list[dict[str, Any] | None] = [None]
    confirmed: list[int] = []
    reads = threading.Semaphore(0)
    failing = [True]

    def read() -> dict[str, Any] | None:
        reads.release()
        if failing[0]:
            failing[0] = False
            raise RuntimeError("the offsets topic did not answer")
        return stored[0]

    confirmer = SlotConfirmer(read, confirmed.append)
    try:
        confirmer.request()
        assert reads.acquire(timeout=5)  # the failed read
        stored[0] = {"lsn": 300, "lsn_proc": 300, "lsn_commit": 250}
        confirmer.request()
        wait_until(lambda: confirmed == [250], 5, "the stored commit confirmed")
        stored[0] = {"lsn": 400, "lsn_proc": 400}  # no commit yet: the last change processed
        confirmer.request()
        wait_until(lambda: confirmed == [250, 400], 5, "lsn_proc confirmed")
    finally:
        confirmer.close()
