"""Plug-ins for the distributed e2e tests, loaded by the workers by their dotted class names.

Both leave evidence in a directory that the test reads afterwards: every task instance writes its own
*run file* (`<task>.<pid>.<ns>.run`): `start <time>` when it starts, `stop <time>` when it stops, so that
two instances of one task running at the same time (on two workers) show as overlapping intervals. The
recording sink also writes, per batch it is given, `put <time> <count>` and the key of every record, synced
to disk before the framework commits the offsets (at-least-once: a record is in some run file once its
offset is committed). No test functions live here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from connect.api import ConfigDef, ConfigType, Importance, SinkConnector, SinkRecord, SinkTask, SourceTask
from connect.api.records import TopicPartition
from connectors.datagen.connector import DatagenConnector
from connectors.datagen.task import DatagenTask

RUN_DIR_CONFIG = "run.dir"


def open_run_file(directory: str, task: str) -> TextIO:
    path = Path(directory) / f"{task}.{os.getpid()}.{time.time_ns()}.run"
    out = path.open("a", encoding="utf-8")
    out.write(f"start {time.time()}\n")
    out.flush()
    return out


def close_run_file(out: TextIO | None) -> None:
    if out is not None and not out.closed:
        out.write(f"stop {time.time()}\n")
        out.flush()
        os.fsync(out.fileno())
        out.close()


class MarkedDatagenConnector(DatagenConnector):
    """Datagen whose tasks leave run files."""

    def task_class(self) -> type[SourceTask]:
        return MarkedDatagenTask

    def config(self) -> ConfigDef:
        return (
            super().config().merged(ConfigDef().define(RUN_DIR_CONFIG, ConfigType.STRING, importance=Importance.HIGH))
        )


class MarkedDatagenTask(DatagenTask):
    def __init__(self) -> None:
        super().__init__()
        self._run: TextIO | None = None

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        self._run = open_run_file(props[RUN_DIR_CONFIG], f"{props['name']}-{props['datagen.task.id']}")

    def stop(self) -> None:
        super().stop()
        close_run_file(self._run)


FAIL_ON_START_CONFIG = "recording.fail.on.start"
"""`true`: every task fails as it starts."""


class RecordingSinkConnector(SinkConnector):
    """A sink whose tasks record the key of every record, each task instance in its own run file."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    def task_class(self) -> type[SinkTask]:
        return RecordingSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self._props, "recording.task": str(i)} for i in range(max_tasks)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define(RUN_DIR_CONFIG, ConfigType.STRING, importance=Importance.HIGH)


class RecordingSinkTask(SinkTask):
    def __init__(self) -> None:
        self._run: TextIO | None = None

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        if props.get(FAIL_ON_START_CONFIG) == "true":
            raise RuntimeError("asked to fail on start")
        self._run = open_run_file(props[RUN_DIR_CONFIG], f"{props['name']}-{props['recording.task']}")

    def put(self, records: Sequence[SinkRecord]) -> None:
        if self._run is not None and records:
            self._run.write(f"put {time.time()} {len(records)}\n" + "".join(f"key {r.key}\n" for r in records))

    def flush(self, offsets: Mapping[TopicPartition, int]) -> None:
        if self._run is not None:
            self._run.flush()
            os.fsync(self._run.fileno())

    def stop(self) -> None:
        close_run_file(self._run)
        self._run = None


@dataclass(frozen=True)
class Run:
    """One task instance's run file, read back."""

    task: str
    pid: int
    start: float
    stop: float | None
    keys: tuple[str, ...]
    puts: tuple[float, ...] = ()  # when each batch was handed to the sink task


def read_runs(directory: Path) -> list[Run]:
    runs = []
    for path in sorted(directory.glob("*.run")):
        task, pid, _ = path.name.removesuffix(".run").rsplit(".", 2)
        start: float | None = None
        stop: float | None = None
        keys: list[str] = []
        puts: list[float] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            kind, _, value = line.partition(" ")
            if kind == "start":
                start = float(value)
            elif kind == "stop":
                stop = float(value)
            elif kind == "key":
                keys.append(value)
            elif kind == "put":
                puts.append(float(value.split(" ", 1)[0]))
        if start is not None:
            runs.append(Run(task, int(pid), start, stop, tuple(keys), tuple(puts)))
    return runs
