"""Where a status read runs: on the event loop when the herder's status reads never wait, else on the
thread pool like every other herder call (`connect.runtime.herder.SupportsInstantStatusReads`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from starlette.concurrency import run_in_threadpool

from connect.runtime.herder import Herder, SupportsInstantStatusReads

T = TypeVar("T")


async def read_status(herder: Herder, read: Callable[[], T]) -> T:
    if isinstance(herder, SupportsInstantStatusReads) and herder.status_reads_are_instant():
        return read()
    return await run_in_threadpool(read)
