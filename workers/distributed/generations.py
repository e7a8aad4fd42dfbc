"""`Generations`: which generation each status this worker writes is stamped with.

A worker's **generation** is the offset of its latest registration record in the config log
(`coordinator.py` writes one before starting new work); a connector instance or task runs under the
generation it was started with (its **epoch**). Every status of a unit carries that epoch, also one written
while or shortly after the unit stops, so that what an instance writes late stays older than whatever
replaced it; a unit with no epoch known here is stamped with the worker's current generation. Kafka's
`AbstractHerder` stamps its `generation()` the same way; kconnect's per-unit epochs are finer.

The coordinator advances the generation and `LocalWork` records epochs as it starts and stops units, on
their threads (holding the work lock); `StampedStatusListener` reads both lock-free from task threads,
which a stop holding that lock may be waiting for (one dict read, or an int).
"""

from __future__ import annotations

from workers.distributed.placement import Unit


class Generations:
    def __init__(self) -> None:
        self._current = -1
        self._running: dict[Unit, int] = {}
        self._stopped: dict[Unit, tuple[int, float]] = {}  # epoch, and when it stopped (monotonic)

    @property
    def current(self) -> int:
        """The worker's generation: -1 until its first registration record."""
        return self._current

    def advance(self, generation: int) -> None:
        self._current = generation

    def started(self, unit: Unit, epoch: int) -> None:
        self._running[unit] = epoch

    def stopped(self, unit: Unit, at: float) -> None:
        """`unit` stopped at `at` (monotonic); its late statuses keep its epoch until `forget_stopped`."""
        epoch = self._running.get(unit)
        if epoch is not None:
            self._stopped[unit] = (epoch, at)  # before it leaves `_running`: a reader never finds neither
            del self._running[unit]

    def forget_stopped(self, before: float) -> None:
        """Forget the epochs of units that stopped before `before` (monotonic); their statuses are written."""
        self._stopped = {u: e for u, e in self._stopped.items() if e[1] >= before}

    def epoch_of(self, unit: Unit) -> int | None:
        """The epoch the unit runs (or lately ran) under here, if any."""
        epoch = self._running.get(unit)
        if epoch is not None:
            return epoch
        stopped = self._stopped.get(unit)
        return stopped[0] if stopped is not None else None

    def of_status(self, unit: Unit) -> int:
        """The generation a status of `unit` written now carries."""
        epoch = self.epoch_of(unit)
        return epoch if epoch is not None else self._current
