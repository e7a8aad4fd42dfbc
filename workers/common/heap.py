"""`settle_heap`: once a worker process has started, keep what it built out of the garbage collector's way.

What exists when a worker has started (imported modules, the plug-in registry, the REST app, the
herder) lives as long as the process. CPython's full collections scan every tracked object each time,
and they stop every thread while they run, REST's included: about 16 ms for a freshly started worker,
which showed as the REST tail latency under load. `gc.freeze` moves the objects alive now to a
generation that collections skip, so a full collection scans only what came after. The price: a frozen
object that later becomes cyclic garbage (a connector created from the command line and deleted later)
is not freed; what is built after start-up is collected as usual.
"""

from __future__ import annotations

import gc


def settle_heap() -> None:
    gc.collect()
    gc.freeze()
