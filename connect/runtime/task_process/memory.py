"""`release_free_memory`: hand memory that malloc keeps after a burst back to the system.

A consumer that joins its group first is given every partition until the others join, and librdkafka
prefetches for all of them on its broker thread; glibc keeps the freed buffers in that thread's arena
(64 MB regions) for reuse, so one task process of several would stay about 80 MB larger than the others
for good. `malloc_trim` releases the free pages of every arena. Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


def release_free_memory() -> None:
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    trim: Callable[[int], int] | None = getattr(ctypes.CDLL(name), "malloc_trim", None)
    return trim
