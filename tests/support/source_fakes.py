"""Source-side fakes for the task runner tests: a source task that polls what a test scripts, a converter
that refuses some values, a transformation chain that drops and changes some records."""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping
from typing import Any

from connect.api import DataError, SourceRecord, SourceTask
from connect.converters import StringConverter


class ScriptedSourceTask(SourceTask):
    """Returns the batches put on `script` (an Exception is raised instead); None when there is none."""

    def __init__(self) -> None:
        self.script: queue.Queue[list[SourceRecord] | BaseException] = queue.Queue()
        self.polls = 0
        self.started: Mapping[str, str] | None = None
        self.stop_thread: str | None = None
        self.commits = 0

    def start(self, props: Mapping[str, str]) -> None:
        self.started = props

    def stop(self) -> None:
        self.stop_thread = threading.current_thread().name

    def poll(self) -> list[SourceRecord] | None:
        self.polls += 1
        try:
            item = self.script.get(timeout=0.01)
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        return item

    def commit(self) -> None:
        self.commits += 1


class PickyConverter(StringConverter):
    """Refuses values starting with 'bad'."""

    def from_connect_data(self, topic: str, schema: Any, value: Any, headers: Any = ()) -> bytes | None:
        if isinstance(value, str) and value.startswith("bad"):
            raise DataError(f"cannot convert {value}")
        return super().from_connect_data(topic, schema, value, headers)


class DropTransformer:
    def __init__(self) -> None:
        self.closed = False

    def apply_batch(self, records: list[SourceRecord]) -> list[SourceRecord]:
        return [r.with_(value=r.value.upper()) for r in records if r.value != "drop"]

    def close(self) -> None:
        self.closed = True
