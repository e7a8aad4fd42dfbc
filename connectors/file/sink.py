"""FileStreamSink: appends the value of every record, one per line, to a file (or stdout).

Kafka's `FileStreamSinkConnector` with its one key, `file`; the topics come from the framework's
`topics`/`topics.regex`. A value is written as its text (Kafka's `println(record.value())`), so a
null value is the line `null`. Like Kafka's task, which prints each record as `put` gets it, every `put`
hands its lines to the OS at once (one write for the batch), so they are readable without waiting for a
commit; `flush` makes them durable (fsync) before the runtime commits offsets.
Every call of the task comes from the task's own thread.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from connect.api import (
    Config,
    ConfigDef,
    ConfigType,
    ConnectError,
    Importance,
    SinkConnector,
    SinkRecord,
    SinkRecordBatch,
    SinkTask,
    TopicPartition,
)
from connect.api.version import distribution_version

log = logging.getLogger(__name__)

FILE_CONFIG = "file"

CONFIG_DEF = ConfigDef().define(
    FILE_CONFIG,
    ConfigType.STRING,
    None,
    importance=Importance.HIGH,
    documentation="Destination filename. If not specified, the standard output will be used",
)


class FileStreamSinkConnector(SinkConnector):
    """Every task appends to the same file, as in Kafka (lines of different tasks interleave)."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        Config(CONFIG_DEF, props)
        self._props = dict(props)

    def task_class(self) -> type[SinkTask]:
        return FileStreamSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props) for _ in range(max_tasks)]

    def stop(self) -> None:
        pass  # no background work to end

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[TopicPartition, int | None]) -> bool:
        # The file keeps no offsets of its own: the consumer group's are all there is.
        return True


def value_text(value: Any) -> str:
    """A value as the text Kafka's sink would print (Java's `String.valueOf`) for the common types."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


class FileStreamSinkTask(SinkTask):
    """Appends each record's value and a newline to the configured file."""

    def __init__(self) -> None:
        self._filename: str | None = None
        self._out: TextIO | None = None

    def version(self) -> str:
        return distribution_version("kconnect")

    def start(self, props: Mapping[str, str]) -> None:
        self._filename = Config(CONFIG_DEF, props).get_optional_str(FILE_CONFIG) or None
        if self._filename is None:
            self._out = sys.stdout
            return
        try:
            self._out = open(self._filename, "a", encoding="utf-8", newline="")  # noqa: SIM115 - kept open until stop()
        except OSError as exc:
            raise ConnectError(f"Couldn't find or create file '{self._filename}' for FileStreamSinkTask") from exc

    def put(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            return
        out = self._require_output()
        lines = [v if (v := r.value).__class__ is str else value_text(v) for r in records]
        lines.append("")
        out.write("\n".join(lines))
        out.flush()

    def put_batches(self, batches: Sequence[SinkRecordBatch]) -> None:
        if not batches:
            return
        out = self._require_output()
        texts = []
        for batch in batches:
            values = batch.values
            try:
                texts.append("\n".join(values))  # all text (StringConverter): joined in C
            except TypeError:
                texts.append("\n".join([v if v.__class__ is str else value_text(v) for v in values]))
        texts.append("")
        out.write("\n".join(texts))
        out.flush()

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        out = self._require_output()
        log.debug("Flushing output stream for %s", self._filename or "stdout")
        out.flush()
        if self._filename is not None:
            os.fsync(out.fileno())

    def stop(self) -> None:
        if self._out is not None and self._filename is not None:
            self._out.close()
        self._out = None

    def _require_output(self) -> TextIO:
        if self._out is None:
            raise ConnectError("FileStreamSinkTask is not started")
        return self._out
