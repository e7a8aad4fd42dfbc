"""FileStreamSource: each line of a file (or of stdin) becomes one record of a single topic.

Kafka's `FileStreamSourceConnector` with its keys (`file`, `topic`, `batch.size`), one task, and its
record shape: value = the line as a STRING, no key, source partition `{"filename": file}` and
source offset `{"position": <byte position after the line>}`. The task follows a growing file like
`tail -f`: a partial last line waits for its terminator, and `poll` returns None after waiting
briefly when nothing new has been written. The runtime polls it through `poll_batches`: the lines read
(up to `batch.size`) go as one `SourceRecordBatch`, without a record object per line.

`poll` runs on the task's thread; `stop` comes from another thread and ends any wait at once.
"""

from __future__ import annotations

import io
import logging
import os
import select
import sys
import threading
import time
from collections.abc import Mapping, Sequence

from connect.api import (
    NO_DEFAULT,
    Config,
    ConfigDef,
    ConfigType,
    ConnectError,
    ExactlyOnceSupport,
    Importance,
    OffsetsToAlter,
    Range,
    SourceConnector,
    SourceRecord,
    SourceRecordBatch,
    SourceTask,
    Utf8Strings,
    single_topic,
)
from connect.api.batch import FieldOffsets
from connect.api.data import STRING_SCHEMA
from connect.api.version import distribution_version
from connectors.file.lines import LineEnds, split_lines

log = logging.getLogger(__name__)

FILE_CONFIG = "file"
TOPIC_CONFIG = "topic"
TASK_BATCH_SIZE_CONFIG = "batch.size"
DEFAULT_TASK_BATCH_SIZE = 2000

FILENAME_FIELD = "filename"
POSITION_FIELD = "position"

CONFIG_DEF = (
    ConfigDef()
    .define(
        FILE_CONFIG,
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        documentation="Source filename. If not specified, the standard input will be used",
    )
    .define(
        TOPIC_CONFIG,
        ConfigType.STRING,
        NO_DEFAULT,
        single_topic,
        Importance.HIGH,
        "The topic to publish data to (a single topic)",
    )
    .define(
        TASK_BATCH_SIZE_CONFIG,
        ConfigType.INT,
        DEFAULT_TASK_BATCH_SIZE,
        Range.at_least(1),
        Importance.LOW,
        "The maximum number of records the source task can read from the file each time it is polled",
    )
)


class FileStreamSourceConnector(SourceConnector):
    """Reads one file (or stdin) with one task, whatever `tasks.max` says: only one stream makes sense."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG_DEF, props)
        self._props = dict(props)
        log.info("Starting file source connector reading from %s", config.get(FILE_CONFIG) or "standard input")

    def task_class(self) -> type[SourceTask]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass  # no background work to end

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        # Offsets make replays exact for a real file that is only appended to; stdin has no offsets.
        filename = Config(CONFIG_DEF, props).get(FILE_CONFIG)
        return ExactlyOnceSupport.SUPPORTED if filename else ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(self, props: Mapping[str, str], offsets: OffsetsToAlter) -> bool:
        if not Config(CONFIG_DEF, props).get(FILE_CONFIG):
            raise ConnectError(
                f"Offsets cannot be modified if the '{FILE_CONFIG}' configuration is unspecified. "
                "This is because stdin is used for input and offsets are not tracked."
            )
        # Partitions of earlier files may be listed too, so any filename is accepted.
        for partition, offset in offsets:
            if offset is None:
                continue  # a reset is always allowed, so that garbage can be cleaned up
            if POSITION_FIELD not in offset:
                raise ConnectError(f"Offset objects should either be null or contain the key '{POSITION_FIELD}'")
            position = offset[POSITION_FIELD]
            if not isinstance(position, int) or isinstance(position, bool):
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset is expected to be a Long value"
                )
            if position < 0:
                raise ConnectError(
                    f"The value for the '{POSITION_FIELD}' key in the offset should be a non-negative value"
                )
            if partition is None:
                raise ConnectError("Partition objects cannot be null")
            if FILENAME_FIELD not in partition:
                raise ConnectError(f"Partition objects should contain the key '{FILENAME_FIELD}'")
        # Whether the position fits the file is checked by the task when it starts.
        return True


_CHUNK_BYTES = 1 << 20
_IDLE_WAIT_S = 1.0
_RECHECK_S = 0.05


class FileStreamSourceTask(SourceTask):
    """Reads lines from the configured file (or stdin) and turns each into a STRING record."""

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # stop() closes the stream while poll() may be reading it
        self._filename: str | None = None
        self._topic = ""
        self._batch_size = DEFAULT_TASK_BATCH_SIZE
        self._stream: io.FileIO | None = None
        self._stdin_fd: int | None = None
        self._partition: dict[str, str] | None = None
        self._pending = b""
        self._position = 0  # stream position of the first byte of _pending
        self._lines: list[str] | Utf8Strings = []
        self._ends: list[int] | LineEnds = []
        self._next = 0  # index of the first line in _lines not yet returned

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        config = Config(CONFIG_DEF, props)
        self._filename = config.get_optional_str(FILE_CONFIG) or None
        self._topic = config.get_str(TOPIC_CONFIG)
        self._batch_size = config.get_int(TASK_BATCH_SIZE_CONFIG)
        self._stopping.clear()
        if self._filename is None:
            # Tracking offsets for stdin makes no sense: its records carry none.
            if sys.stdin is None or sys.stdin.closed:
                raise ConnectError("FileStreamSourceTask has no 'file' to read and this worker has no standard input")
            self._stdin_fd = sys.stdin.fileno()
        else:
            self._partition = {FILENAME_FIELD: self._filename}

    def poll(self) -> list[SourceRecord] | None:
        batches = self.poll_batches()
        return [record for batch in batches for record in batch] if batches else None

    def poll_batches(self) -> list[SourceRecordBatch] | None:
        deadline = time.monotonic() + _IDLE_WAIT_S
        while not self._stopping.is_set():
            if self._next < len(self._lines) or self._read_lines():
                return [self._take_batch()]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            # Re-check often so that a growing file is followed with little delay.
            self._stopping.wait(min(_RECHECK_S, remaining))
        return None

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            if self._stream is not None:
                self._stream.close()
                self._stream = None

    def _take_batch(self) -> SourceRecordBatch:
        start, end = self._next, min(self._next + self._batch_size, len(self._lines))
        ends: Sequence[int]
        if start == 0 and end == len(self._lines):
            lines, ends = self._lines, self._ends  # the common case: no copy
        elif isinstance(self._ends, LineEnds):
            lines, ends = self._lines[start:end], self._ends.part(start, end)
        else:
            lines, ends = self._lines[start:end], self._ends[start:end]
        if end == len(self._lines):
            self._lines, self._ends, self._next = [], [], 0
        else:
            self._next = end
        partition = self._partition
        return SourceRecordBatch(
            self._topic,
            lines,
            STRING_SCHEMA,
            source_partition=partition,
            source_offsets=None if partition is None else FieldOffsets(POSITION_FIELD, ends),
            # Kafka's FileStreamSourceTask stamps each record with the time it read it; the producer's
            # stamp at send time is that within a few milliseconds, and saves a column.
            timestamp_at_send=True,
        )

    def _read_lines(self) -> bool:
        """Reads what is available until a batch is complete; True if there are new lines."""
        while len(self._lines) - self._next < self._batch_size:
            chunk = self._read_chunk()
            if not chunk:
                break
            data = self._pending + chunk if self._pending else chunk
            split = split_lines(data, self._position)
            self._pending = data[split.consumed :]
            self._position += split.consumed
            if not self._lines:
                self._lines, self._ends = split.lines, split.ends
            elif split.lines:
                self._append(split.lines, split.ends)
        return self._next < len(self._lines)

    def _append(self, lines: list[str] | Utf8Strings, ends: list[int] | LineEnds) -> None:
        held_lines, held_ends = self._lines, self._ends
        if (
            isinstance(held_lines, Utf8Strings)
            and isinstance(lines, Utf8Strings)
            and isinstance(held_ends, LineEnds)
            and isinstance(ends, LineEnds)
        ):
            held_lines.encoded += lines.encoded  # still contiguous ASCII lines (no batch holds this list)
            self._ends = held_ends.grown(held_lines.encoded)
            return
        # A mix: the lines as strings and the position of every line, as lists.
        self._lines, self._ends = [*held_lines, *lines], [*held_ends, *ends]

    def _read_chunk(self) -> bytes:
        if self._stdin_fd is not None:
            # select() keeps the read from blocking, so stop() is never stuck behind it.
            readable, _, _ = select.select([self._stdin_fd], [], [], 0)
            return os.read(self._stdin_fd, _CHUNK_BYTES) if readable else b""
        with self._lock:
            if self._stream is None and not self._open():
                return b""
            assert self._stream is not None
            return self._stream.read(_CHUNK_BYTES) or b""

    def _open(self) -> bool:
        """Opens the file at the stored offset; False (after a warning) when it does not exist yet."""
        if self._stopping.is_set() or self._filename is None or self._partition is None:
            return False
        position = self._stored_position()
        try:
            stream = open(self._filename, "rb", buffering=0)  # noqa: SIM115 - kept open across polls
        except FileNotFoundError:
            log.warning("Couldn't find file %s for FileStreamSourceTask, waiting for it to be created", self._filename)
            return False
        except OSError as exc:
            raise ConnectError(f"Couldn't open file {self._filename} for FileStreamSourceTask: {exc}") from exc
        if position:
            size = os.fstat(stream.fileno()).st_size
            if position > size:
                log.warning("Stored position %d is past the end of %s (%d bytes)", position, self._filename, size)
            stream.seek(position, io.SEEK_SET)
        log.debug("Opened %s for reading at position %d", self._filename, position)
        self._stream, self._position, self._pending = stream, position, b""
        self._lines, self._ends, self._next = [], [], 0
        return True

    def _stored_position(self) -> int:
        assert self._partition is not None
        offset = self.context.offset_reader.offset(self._partition)
        position = None if offset is None else offset.get(POSITION_FIELD)
        if position is None:
            return 0
        if not isinstance(position, int) or isinstance(position, bool):
            raise ConnectError("Offset position is the incorrect type")
        return position
