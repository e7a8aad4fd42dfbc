"""Tasks in their own processes (`task.isolation=process`) against a real broker: data, offsets and
statuses cross the process boundary; a killed task process fails its task alone, and a restart resumes."""

from __future__ import annotations

import logging
import os
import signal
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from connect.runtime.config.worker_config import WorkerConfig
from connect.runtime.domain.states import ConnectorTaskId, State, TargetState
from connect.runtime.offsets import OffsetStorageReader
from connect.runtime.plugins import PluginRegistry
from connect.runtime.stores.local_offset_store import MemoryOffsetStore
from connect.runtime.stores.memory_status_store import MemoryStatusStore
from connect.runtime.task_process import ProcessWorkerTask
from connect.runtime.worker import Worker
from tests.support.processes import is_alive
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


class Harness:
    def __init__(self, bootstrap: str, processes_max: int = 8) -> None:
        config = WorkerConfig.from_props(
            {
                "bootstrap.servers": bootstrap,
                "key.converter": "StringConverter",
                "value.converter": "StringConverter",
                "offset.flush.interval.ms": "200",
                "task.shutdown.graceful.timeout.ms": "5000",
                "task.isolation": "process",
                "task.processes.max": str(processes_max),  # by default a process per task
                # A killed sink task's consumer leaves its group within 6 s, not the default 45 s.
                "consumer.session.timeout.ms": "6000",
            }
        )
        self.status = MemoryStatusStore("it-worker")
        self.store = MemoryOffsetStore()
        self.worker = Worker(
            worker_id="it-worker",
            config=config,
            plugins=PluginRegistry.discover(),
            offset_store=self.store,
            status=self.status,
        )
        self.worker.start()

    def run(self, name: str, config: dict[str, str]) -> ConnectorTaskId:
        config = {"name": name, "tasks.max": "1", **config}
        self.worker.start_connector(name, config, TargetState.STARTED, lambda _: None)
        [task_config] = self.worker.connector_task_configs(name, 1)
        task_id = ConnectorTaskId(name, 0)
        self.worker.start_task(task_id, config, task_config, TargetState.STARTED)
        return task_id

    def restart(self, task_id: ConnectorTaskId, config: dict[str, str]) -> None:
        self.worker.stop_tasks([task_id])
        config = {"name": task_id.connector, "tasks.max": "1", **config}
        [task_config] = self.worker.connector_task_configs(task_id.connector, 1)
        self.worker.start_task(task_id, config, task_config, TargetState.STARTED)

    def state(self, task_id: ConnectorTaskId) -> State | None:
        status = self.status.task_status(task_id)
        return None if status is None else status.state

    def process_of(self, task_id: ConnectorTaskId) -> ProcessWorkerTask:
        runner = self.worker.task(task_id)
        assert isinstance(runner, ProcessWorkerTask), runner
        return runner


@pytest.fixture
def harness(kafka_bootstrap: str) -> Iterator[Harness]:
    h = Harness(kafka_bootstrap)
    yield h
    h.worker.stop()


@pytest.fixture
def one_process_harness(kafka_bootstrap: str) -> Iterator[Harness]:
    h = Harness(kafka_bootstrap, processes_max=1)
    yield h
    h.worker.stop()


def _append(path: Path, start: int, count: int) -> list[str]:
    lines = [f"line {i}" for i in range(start, start + count)]
    with path.open("a") as handle:
        handle.write("".join(line + "\n" for line in lines))
    return lines


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


class FilePipeline:
    """A FileStreamSource into `topic` and a FileStreamSink out of it."""

    def __init__(self, harness: Harness, topic: str, directory: Path) -> None:
        self.source_file, self.sink_file = directory / "in.txt", directory / "out.txt"
        self.source_config = {"connector.class": "FileStreamSource", "file": str(self.source_file), "topic": topic}
        self.source = harness.run(f"src-{uuid.uuid4().hex[:6]}", self.source_config)
        self.sink_config = {"connector.class": "FileStreamSink", "file": str(self.sink_file), "topics": topic}
        self.sink = harness.run(f"snk-{uuid.uuid4().hex[:6]}", self.sink_config)


def test_source_and_sink_tasks_run_in_their_own_processes_with_offsets_in_the_worker(
    harness: Harness, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    pipeline = FilePipeline(harness, topic, tmp_path)
    source, sink = pipeline.source, pipeline.sink
    source_file, sink_file = pipeline.source_file, pipeline.sink_file
    expected = _append(source_file, 0, 500)

    wait_until(lambda: _lines(sink_file) == expected, 60, what="every line through Kafka into the sink file")
    pids = {harness.process_of(task).pid for task in (source, sink)}
    assert os.getpid() not in pids and None not in pids and len(pids) == 2
    assert harness.state(source) is State.RUNNING and harness.state(sink) is State.RUNNING
    # Offsets live in the worker's store, written through the channel.
    reader = OffsetStorageReader(source.connector, harness.store)
    wait_until(
        lambda: (reader.offset({"filename": str(source_file)}) or {}).get("position") == source_file.stat().st_size,
        30,
        what="the source offset in the worker's store",
    )
    assert harness.worker.active_topics(source.connector) == {topic}

    harness.worker.stop_tasks([source, sink])
    assert harness.state(source) is State.UNASSIGNED and harness.state(sink) is State.UNASSIGNED
    wait_until(lambda: not any(is_alive(pid) for pid in pids if pid is not None), 10, what="the task processes to exit")


def test_a_killed_task_process_fails_its_task_alone_and_a_restart_resumes(
    harness: Harness, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    pipeline = FilePipeline(harness, topic, tmp_path)
    source, sink = pipeline.source, pipeline.sink
    source_file, sink_file, source_config = pipeline.source_file, pipeline.sink_file, pipeline.source_config
    expected = _append(source_file, 0, 300)
    wait_until(lambda: _lines(sink_file) == expected, 60, what="the first lines")

    killed = harness.process_of(source).pid
    assert killed is not None
    os.kill(killed, signal.SIGKILL)
    wait_until(lambda: harness.state(source) is State.FAILED, 20, what="the killed task to be FAILED")
    status = harness.status.task_status(source)
    assert status is not None and status.trace is not None and "SIGKILL" in status.trace
    assert harness.state(sink) is State.RUNNING  # the other task runs on

    harness.restart(source, source_config)
    wait_until(lambda: harness.state(source) is State.RUNNING, 30, what="the restarted task to run")
    assert harness.process_of(source).pid != killed
    expected += _append(source_file, 300, 200)
    # At-least-once across the crash: every line arrives; lines after the last stored offset may repeat.
    wait_until(lambda: set(_lines(sink_file)) >= set(expected), 60, what="every line after the restart")
    assert list(dict.fromkeys(_lines(sink_file))) == expected


def test_pause_resume_and_the_tasks_log_cross_the_process_boundary(
    harness: Harness, topic_factory: Callable[..., str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    topic = topic_factory(partitions=1)
    source_file = tmp_path / "in.txt"
    _append(source_file, 0, 10)
    name = f"src-{uuid.uuid4().hex[:6]}"
    with caplog.at_level(logging.INFO):
        source = harness.run(name, {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic})
        wait_until(lambda: harness.state(source) is State.RUNNING, 30, what="RUNNING")
        harness.worker.set_target_state(name, TargetState.PAUSED)
        wait_until(lambda: harness.state(source) is State.PAUSED, 30, what="PAUSED")
        harness.worker.set_target_state(name, TargetState.STARTED)
        wait_until(lambda: harness.state(source) is State.RUNNING, 30, what="RUNNING again")
        pid = harness.process_of(source).pid

        def started_line_logged() -> bool:
            return any(
                r.name == "connect.runtime.tasks.worker_source_task"
                and "started" in r.getMessage()
                and r.process == pid
                and getattr(r, "connector_context", "") == f"{name}|task-0"
                for r in caplog.records
            )

        wait_until(started_line_logged, 10, what="the task's log line, relayed with its context")


def test_a_logger_level_set_on_the_worker_reaches_its_task_processes(
    harness: Harness, topic_factory: Callable[..., str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    topic = topic_factory(partitions=1)
    source_file = tmp_path / "in.txt"
    name = f"src-{uuid.uuid4().hex[:6]}"
    # The offset commits log at DEBUG (`SourceOffsetCommitter`, one of the source task runner's parts).
    source_logger = logging.getLogger("connect.runtime.tasks.source_offset_committer")
    with caplog.at_level(logging.INFO):
        source = harness.run(name, {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic})
        wait_until(lambda: harness.state(source) is State.RUNNING, 30, what="RUNNING")
        pid = harness.process_of(source).pid
        try:
            caplog.handler.setLevel(logging.DEBUG)  # the worker's root stays at INFO
            source_logger.setLevel(logging.DEBUG)  # as PUT /admin/loggers/<its name> does

            def debug_line_from_the_task() -> bool:
                _append(source_file, 0, 5)  # something to commit, so that the commit logs at DEBUG
                return any(
                    r.levelno == logging.DEBUG and r.name == source_logger.name and r.process == pid
                    for r in caplog.records
                )

            wait_until(debug_line_from_the_task, 15, what="a DEBUG line of the task process", interval=0.5)
        finally:
            source_logger.setLevel(logging.NOTSET)


def test_tasks_beyond_the_process_limit_share_a_process_that_a_crash_fails_together_and_that_exits_when_idle(
    one_process_harness: Harness, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    harness = one_process_harness
    topic = topic_factory(partitions=1)
    pipeline = FilePipeline(harness, topic, tmp_path)
    source, sink = pipeline.source, pipeline.sink
    expected = _append(pipeline.source_file, 0, 300)
    wait_until(lambda: _lines(pipeline.sink_file) == expected, 60, what="the lines through one shared process")
    shared = harness.process_of(source).pid
    assert shared is not None and harness.process_of(sink).pid == shared

    os.kill(shared, signal.SIGKILL)
    for task in (source, sink):
        wait_until(lambda task=task: harness.state(task) is State.FAILED, 20, what=f"{task} FAILED")  # type: ignore[misc]
        status = harness.status.task_status(task)
        assert (
            status is not None and status.trace is not None and f"pid {shared}) was killed by SIGKILL" in status.trace
        )

    harness.restart(source, pipeline.source_config)
    harness.restart(sink, pipeline.sink_config)
    wait_until(lambda: harness.state(source) is State.RUNNING and harness.state(sink) is State.RUNNING, 30, "RUNNING")
    again = harness.process_of(source).pid
    assert again not in (None, shared) and harness.process_of(sink).pid == again
    expected += _append(pipeline.source_file, 300, 200)
    wait_until(lambda: set(_lines(pipeline.sink_file)) >= set(expected), 60, what="every line after the restart")

    harness.worker.stop_tasks([source, sink])
    assert again is not None
    wait_until(lambda: not is_alive(again), 10, what="the idle task process to exit")
