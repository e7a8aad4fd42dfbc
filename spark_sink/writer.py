"""The task's writer thread: takes closed batches off a queue and runs one commit epoch at a time.

`put` never waits for Spark: it hands batches over with `submit` and returns, so the consumer keeps
polling within `max.poll.interval.ms`. Everything queued while an epoch runs becomes the next epoch
(one Spark job for many partitions instead of one each). The queue holds batches, bounded in bytes by
the task's back-pressure (which pauses partitions), never by blocking `put`. The thread also serves
as the task's timer: it asks the runtime for a commit when a wall-clock rotation is due or an epoch
finished, so `pre_commit` runs soon and publishes offsets / resumes partitions.
Threads: `submit`, `take_outcomes`, `pending_bytes` and `stop` from the task thread; the loop on its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from spark_sink.buffers import ClosedBatch
from spark_sink.commit import EpochCommitter, EpochOutcome

log = logging.getLogger(__name__)

TICK_S = 0.5


class WriterThread:
    def __init__(
        self,
        name: str,
        committer: EpochCommitter,
        request_commit: Callable[[], None],
        cancel: Callable[[str], None],
    ) -> None:
        self._committer = committer
        self._request_commit = request_commit
        self._cancel = cancel
        self._cond = threading.Condition()
        self._queue: list[ClosedBatch] = []
        self._in_flight_bytes = 0
        self._queued_bytes = 0
        self._outcomes: list[EpochOutcome] = []
        self._stopping = False
        self._busy = False
        self.error: BaseException | None = None
        self.due_ms: float | None = None
        """Wall-clock ms when the task wants a commit call (a scheduled rotation); set by the task thread."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, batches: list[ClosedBatch]) -> None:
        if not batches:
            return
        with self._cond:
            self._queue.extend(batches)
            self._queued_bytes += sum(b.nbytes for b in batches)
            self._cond.notify_all()

    @property
    def pending_bytes(self) -> int:
        with self._cond:
            return self._queued_bytes + self._in_flight_bytes

    @property
    def idle(self) -> bool:
        with self._cond:
            return not self._queue and not self._busy

    def take_outcomes(self) -> list[EpochOutcome]:
        with self._cond:
            outcomes, self._outcomes = self._outcomes, []
            return outcomes

    def wait_idle(self, timeout_s: float) -> bool:
        """Blocks until nothing is queued or running (tests and `stop`); False on timeout or failure."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while (self._queue or self._busy) and self.error is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return self.error is None

    def stop(self, timeout_s: float) -> None:
        """Drops queued batches, lets a running epoch finish for up to `timeout_s`, then cancels its job."""
        with self._cond:
            self._stopping = True
            self._queue.clear()
            self._queued_bytes = 0
            self._cond.notify_all()
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            log.warning(
                "%s: the running flush did not finish within %.0f s; cancelling it", self._thread.name, timeout_s
            )
            self._cancel(self._committer.current_epoch or "")
            self._thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait(TICK_S)
                    self._tick()
                if self._stopping:
                    return
                batches, self._queue = self._queue, []
                self._in_flight_bytes, self._queued_bytes = self._queued_bytes, 0
                self._busy = True
            try:
                outcome = self._committer.run(batches)
            except BaseException as exc:
                log.error("%s: flush failed; the task fails and recovers on restart", self._thread.name, exc_info=True)
                with self._cond:
                    self.error = exc
                    self._busy = False
                    self._in_flight_bytes = 0
                    self._cond.notify_all()
                self._request_commit()
                return
            with self._cond:
                self._outcomes.append(outcome)
                self._busy = False
                self._in_flight_bytes = 0
                self._cond.notify_all()
            self._request_commit()

    def _tick(self) -> None:
        due = self.due_ms
        if due is not None and time.time() * 1000 >= due:
            self.due_ms = None
            self._request_commit()
