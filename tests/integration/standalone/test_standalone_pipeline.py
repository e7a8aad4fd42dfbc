"""A standalone worker moves data end to end: file source → Kafka → file sink, without loss or reordering,
and a restarted `kconnect standalone` process resumes from its stored offsets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from confluent_kafka.admin import AdminClient

from connect.api.records import TopicPartition
from connect.runtime.kafka import KafkaAdmin
from tests.support.standalone_workers import (
    KconnectProcess,
    all_running,
    line_count,
    running_worker,
    worker_props,
)
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

LINES = 100_000


def _source(name: str, file: Path, topic: str) -> dict[str, object]:
    return {"name": name, "config": {"connector.class": "FileStreamSource", "file": str(file), "topic": topic}}


def _sink(name: str, file: Path, topic: str) -> dict[str, object]:
    return {"name": name, "config": {"connector.class": "FileStreamSink", "file": str(file), "topics": topic}}


def test_file_round_trip_of_100k_lines_keeps_every_line_in_order(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    # Lines of varying length and content, including characters that need UTF-8 multi-byte encoding.
    source_file.write_text("".join(f"line {i} {'x' * (i % 37)} ünïcødé {i * 7919 % 100003}\n" for i in range(LINES)))

    with running_worker(worker_props(kafka_bootstrap, tmp_path / "connect.offsets")) as (_, client):
        assert client.post("/connectors", json=_source("rt-source", source_file, topic)).status_code == 201
        assert client.post("/connectors", json=_sink("rt-sink", sink_file, topic)).status_code == 201
        wait_until(lambda: line_count(sink_file) >= LINES, 180, f"{LINES} lines in the sink file", interval=0.5)
        assert all_running(client, "rt-source", 1) and all_running(client, "rt-sink", 1)

    assert sink_file.read_bytes() == source_file.read_bytes()


def _write_lines(path: Path, start: int, count: int) -> list[str]:
    lines = [f"record-{i}" for i in range(start, start + count)]
    with path.open("a") as handle:
        handle.write("".join(line + "\n" for line in lines))
    return lines


def _end_offset(bootstrap: str, topic: str) -> int:
    admin = KafkaAdmin(AdminClient({"bootstrap.servers": bootstrap}))
    return admin.end_offsets([TopicPartition(topic, 0)])[TopicPartition(topic, 0)]


def _worker_file(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    return path


def test_restarted_standalone_process_resumes_from_stored_offsets(
    kafka_bootstrap: str, topic_factory: Callable[..., str], tmp_path: Path
) -> None:
    topic = topic_factory(partitions=1)
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    offsets = tmp_path / "connect.offsets"
    # First run: offsets are flushed only every 10 minutes, so only the final commit of a graceful stop can
    # save them. The FileStreamSink writes its file on commits too, so the second run commits every second.
    first_worker = _worker_file(
        tmp_path / "first.properties", worker_props(kafka_bootstrap, offsets, **{"offset.flush.interval.ms": "600000"})
    )
    second_worker = _worker_file(tmp_path / "second.properties", worker_props(kafka_bootstrap, offsets))
    source_props = tmp_path / "source.properties"
    source_props.write_text(
        f"name=resume-source\nconnector.class=FileStreamSource\ntasks.max=1\nfile={source_file}\ntopic={topic}\n"
    )
    sink_json = tmp_path / "sink.json"
    sink_json.write_text(json.dumps(_sink("resume-sink", sink_file, topic)))  # the POST /connectors shape

    expected = _write_lines(source_file, 0, 500)
    first = KconnectProcess(first_worker, [source_props, sink_json], tmp_path / "first.log")
    try:
        url = first.url()
        with httpx.Client(base_url=url, timeout=30) as client:
            wait_until(lambda: all_running(client, "resume-sink", 1), 60, "the sink connector to run")
        wait_until(lambda: _end_offset(kafka_bootstrap, topic) == 500, 60, "500 records in the topic")
        assert not offsets.exists(), "no offset flush before the stop"
    finally:
        code = first.terminate()
    assert code == 0, first.log_tail()
    assert "Stop requested" in first.log_tail(200)
    assert offsets.exists(), "the graceful stop flushed the source offsets"

    expected += _write_lines(source_file, 500, 300)  # appended while no worker runs
    second = KconnectProcess(second_worker, [source_props, sink_json], tmp_path / "second.log")
    try:
        second.url()
        wait_until(lambda: line_count(sink_file) >= 800, 60, "all 800 lines in the sink file")
        # Every record the source produced is in the topic once: the restart re-read nothing.
        assert _end_offset(kafka_bootstrap, topic) == 800
    finally:
        assert second.terminate() == 0, second.log_tail()

    assert sink_file.read_text().splitlines() == expected
