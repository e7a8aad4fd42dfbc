"""`kconnect standalone` with `task.isolation=process` (two processes: one per task), as a user runs it:
a clean SIGTERM stops them all, and a worker killed with SIGKILL leaves no task process behind."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.support.processes import is_alive, live_children, task_processes_of
from tests.support.standalone_workers import KconnectProcess, all_running, line_count
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e


def _pipeline(kafka_bootstrap: str, topic: str, tmp_path: Path) -> tuple[Path, list[Path], Path, Path]:
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={kafka_bootstrap}\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
        f"offset.storage.file.filename={tmp_path / 'connect.offsets'}\n"
        "offset.flush.interval.ms=500\n"
        "listeners=http://127.0.0.1:0\n"
        "task.isolation=process\n"
        "task.processes.max=2\n"
        "task.shutdown.graceful.timeout.ms=5000\n"
    )
    source = tmp_path / "source.properties"
    source.write_text(f"name=p-source\nconnector.class=FileStreamSource\nfile={source_file}\ntopic={topic}\n")
    sink = tmp_path / "sink.properties"
    sink.write_text(f"name=p-sink\nconnector.class=FileStreamSink\nfile={sink_file}\ntopics={topic}\n")
    source_file.write_text("".join(f"event {i}\n" for i in range(1000)))
    return worker, [source, sink], source_file, sink_file


def test_sigterm_stops_every_task_process_and_the_worker_cleanly(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    worker, connectors, _, sink_file = _pipeline(kafka_bootstrap, topic_factory(partitions=1), tmp_path)
    process = KconnectProcess(worker, connectors, tmp_path / "worker.log")
    try:
        with httpx.Client(base_url=process.url(), timeout=30) as client:
            wait_until(lambda: all_running(client, "p-source", 1) and all_running(client, "p-sink", 1), 60, "RUNNING")
            wait_until(lambda: line_count(sink_file) >= 1000, 60, "every line in the sink file")
        children = task_processes_of(process.process.pid)
        assert len(children) == 2, children  # one process per task
        helpers = live_children(process.process.pid)  # the fork server, multiprocessing's resource tracker
    finally:
        code = process.terminate()
    assert code == 0, process.log_tail()
    wait_until(lambda: not any(is_alive(pid) for pid in children | helpers), 10, "every process of the worker to end")


def test_a_worker_killed_with_sigkill_leaves_no_task_process_behind(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    worker, connectors, _, _ = _pipeline(kafka_bootstrap, topic_factory(partitions=1), tmp_path)
    process = KconnectProcess(worker, connectors, tmp_path / "worker.log")
    children: set[int] = set()
    try:
        with httpx.Client(base_url=process.url(), timeout=30) as client:
            wait_until(lambda: all_running(client, "p-source", 1) and all_running(client, "p-sink", 1), 60, "RUNNING")
        children = task_processes_of(process.process.pid)
        assert len(children) == 2, children
        children |= live_children(process.process.pid)  # and the fork server, the resource tracker
        os.kill(process.process.pid, signal.SIGKILL)
        assert process.process.wait(30) == -signal.SIGKILL
        # Each task process sees its worker's end of the channel close, stops its task and exits.
        wait_until(lambda: not any(is_alive(pid) for pid in children), 15, "the orphaned processes to exit")
    finally:
        for pid in children | task_processes_of(process.process.pid):
            if is_alive(pid):
                os.kill(pid, signal.SIGKILL)
        process.kill()
