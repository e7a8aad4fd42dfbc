"""When to close a topic partition's open files, and how much to buffer: pure decisions, no I/O.

Triggers (storage-common's, evaluated per record where a record decides, and on every call into the
task for the wall-clock ones so idle partitions still rotate): `flush.size` records, record time
spanning `rotate.interval.ms`, the wall-clock schedule `rotate.schedule.interval.ms` aligned to
midnight, too many open encoded partitions, a schema change, and memory (`flush.max.bytes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from connect.api import TopicPartition
from spark_sink.timezones import LocalClock


def rows_until_full(consumed: int, flush_size: int) -> int:
    """How many more records the open file takes before `flush.size` closes it (at least 1)."""
    return max(1, flush_size - consumed)


def interval_cut(times: pa.Array, base_ms: int | None, interval_ms: int) -> int | None:
    """The first row whose time is `interval_ms` or more past the file's base (the first row's time
    when the file is new); None when every row fits. Row 0 never cuts a new file."""
    if interval_ms <= 0 or len(times) == 0:
        return None
    base = times[0].as_py() if base_ms is None else base_ms
    beyond = pc.greater_equal(pc.subtract(times, base), interval_ms)
    index = pc.index(beyond, True).as_py()
    if index < 0 or (index == 0 and base_ms is None):
        return None
    return int(index)


def next_scheduled_rotation(now_ms: int, interval_ms: int, clock: LocalClock) -> int:
    """The next multiple of `interval_ms` after `now_ms`, counted from local midnight."""
    midnight = clock.start_of_day_ms(now_ms)
    return midnight + ((now_ms - midnight) // interval_ms + 1) * interval_ms


def early_flushes(sizes: Mapping[TopicPartition, int], max_bytes: int) -> list[TopicPartition]:
    """Open buffers to close now because together they hold half of `flush.max.bytes`: the largest
    first, until a quarter is left. Keeps memory bounded with many partitions, none of them full."""
    total = sum(sizes.values())
    if total < max_bytes // 2:
        return []
    chosen: list[TopicPartition] = []
    for tp, size in sorted(sizes.items(), key=lambda item: item[1], reverse=True):
        if total < max_bytes // 4 or size == 0:
            break
        chosen.append(tp)
        total -= size
    return chosen


@dataclass
class BackPressure:
    """Pauses every partition while buffered plus unwritten bytes reach `max_bytes`; resumes at three
    quarters. Not lower: files can be a large part of the bound (100 MB of 1 KB records against the
    default 256 MB), and resuming at half then kept the task idle until a second Spark job ended,
    while the writer went on to wait for the file the task had not read yet."""

    max_bytes: int
    paused: set[TopicPartition] = field(default_factory=set)

    def decide(
        self, total_bytes: int, assigned: set[TopicPartition]
    ) -> tuple[set[TopicPartition], set[TopicPartition]]:
        """(to pause, to resume) given the bytes held now."""
        self.paused &= assigned
        if total_bytes >= self.max_bytes:
            to_pause = assigned - self.paused
            self.paused |= to_pause
            return to_pause, set()
        if self.paused and total_bytes <= self.max_bytes * 3 // 4:
            to_resume, self.paused = self.paused, set()
            return set(), to_resume
        return set(), set()
