"""FileStreamSource and FileStreamSink, driven directly with a small fake task context."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest

import connectors.file.source as file_source
from connect.api import (
    ConfigError,
    ConnectError,
    ExactlyOnceSupport,
    RecordListBatch,
    SinkRecord,
    SourceRecord,
    Struct,
    TopicPartition,
    Utf8Strings,
)
from connect.api.data import INT32_SCHEMA, STRING_SCHEMA, Schema
from connect.testing import FakeSourceTaskContext
from connectors.file.lines import split_lines
from connectors.file.sink import FileStreamSinkConnector, FileStreamSinkTask
from connectors.file.source import FileStreamSourceConnector, FileStreamSourceTask


@pytest.fixture
def short_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty polls wait 0.1 s instead of 1 s, so that tests asserting 'nothing new' stay quick."""
    monkeypatch.setattr(file_source, "_IDLE_WAIT_S", 0.1)


def start_source(
    path: Path | None,
    stored: Mapping[str, Mapping[str, Any]] | None = None,
    props: Mapping[str, str] | None = None,
) -> FileStreamSourceTask:
    task = FileStreamSourceTask()
    task.initialize(
        FakeSourceTaskContext(offsets=[({"filename": name}, offset) for name, offset in (stored or {}).items()])
    )
    config = {"topic": "lines", **(props or {})}
    if path is not None:
        config["file"] = str(path)
    task.start(config)
    return task


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:
        f.write(data)


def values_and_positions(records: list[SourceRecord] | None) -> list[tuple[str, int]]:
    assert records is not None
    return [(r.value, r.source_offset["position"]) for r in records if r.source_offset is not None]


# --- source task ---------------------------------------------------------------------------------


def test_source_reads_lines_with_byte_positions_and_kafka_record_shape(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes("a\nbb\nccé\n".encode())
    task = start_source(path)
    records = task.poll()
    assert values_and_positions(records) == [("a", 2), ("bb", 5), ("ccé", 10)]
    assert records is not None
    first = records[0]
    assert first.topic == "lines"
    assert first.source_partition == {"filename": str(path)}
    assert first.key is None and first.key_schema is None
    assert first.value_schema == STRING_SCHEMA
    assert first.timestamp is not None and abs(first.timestamp - time.time() * 1000) < 60_000
    task.stop()


def test_source_knows_kafka_line_ends_including_split_crlf(tmp_path: Path, short_idle: None) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"a\r\nb\rc\nd\r")
    task = start_source(path)
    # The final \r may be half of \r\n, so "d" waits for the next byte.
    assert values_and_positions(task.poll()) == [("a", 3), ("b", 5), ("c", 7)]
    assert task.poll() is None
    append(path, b"\ne\n")
    assert values_and_positions(task.poll()) == [("d", 10), ("e", 12)]
    task.stop()


def test_source_waits_for_the_rest_of_a_partial_line(tmp_path: Path, short_idle: None) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"one\ntw")
    task = start_source(path)
    assert values_and_positions(task.poll()) == [("one", 4)]
    assert task.poll() is None
    append(path, b"o\nthree")
    assert values_and_positions(task.poll()) == [("two", 8)]
    append(path, b"\n")
    assert values_and_positions(task.poll()) == [("three", 14)]
    task.stop()


def test_source_follows_a_growing_file(tmp_path: Path, short_idle: None) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"")
    task = start_source(path)
    assert task.poll() is None
    for i in range(3):
        append(path, f"line-{i}\n".encode())
        assert values_and_positions(task.poll()) == [(f"line-{i}", 7 * (i + 1))]
    task.stop()


def test_source_resumes_after_the_stored_position(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"a\nbb\nccc\n")
    task = start_source(path, stored={str(path): {"position": 5}})
    assert values_and_positions(task.poll()) == [("ccc", 9)]
    task.stop()


def test_source_rejects_a_stored_position_of_the_wrong_type(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"a\n")
    task = start_source(path, stored={str(path): {"position": "5"}})
    with pytest.raises(ConnectError, match="incorrect type"):
        task.poll()


def test_source_respects_batch_size(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"".join(f"{i}\n".encode() for i in range(5)))
    task = start_source(path, props={"batch.size": "2"})
    batches = [task.poll() for _ in range(3)]
    assert [[r.value for r in b or []] for b in batches] == [["0", "1"], ["2", "3"], ["4"]]
    task.stop()


def test_source_reads_many_lines_across_chunks_in_order(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    lines = [f"{i:07d}-" + "x" * (i % 50) for i in range(60_000)]  # about 2.3 MB: more than one read chunk
    path.write_text("".join(f"{line}\n" for line in lines))
    task = start_source(path, props={"batch.size": "7000"})
    got: list[SourceRecord] = []
    while len(got) < len(lines):
        batch = task.poll()
        assert batch, "the file holds more lines than were returned"
        assert len(batch) <= 7000
        got += batch
    assert [r.value for r in got] == lines
    assert got[-1].source_offset == {"position": path.stat().st_size}
    task.stop()


def test_source_waits_for_a_missing_file_to_appear(tmp_path: Path, short_idle: None) -> None:
    path = tmp_path / "later.txt"
    task = start_source(path)
    assert task.poll() is None
    path.write_bytes(b"here\n")
    assert values_and_positions(task.poll()) == [("here", 5)]
    task.stop()


def test_stop_ends_a_waiting_poll_at_once(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"")
    task = start_source(path)
    assert task.poll() is None  # opened; at the end of the file
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(task.poll()))
    thread.start()
    thread.join(0.1)
    assert thread.is_alive(), "the poll should be waiting for new lines"
    started = time.monotonic()
    task.stop()
    thread.join(5)
    assert not thread.is_alive()
    assert time.monotonic() - started < 0.5
    assert result == [None]


def test_source_reads_stdin_without_offsets(monkeypatch: pytest.MonkeyPatch, short_idle: None) -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as fake_stdin:
        monkeypatch.setattr("sys.stdin", fake_stdin)
        task = start_source(None)
        assert task.poll() is None
        os.write(write_fd, b"typed\n")
        os.close(write_fd)
        records = task.poll()
        assert records is not None and [r.value for r in records] == ["typed"]
        assert records[0].source_partition is None and records[0].source_offset is None
        task.stop()


def test_split_lines_matches_bytes_splitlines_for_unicode_separators() -> None:
    # U+2028 and \x0c are line breaks for str.splitlines but not for Kafka: they stay inside the line.
    data = "a\u2028b\r\nc\x0cd\n".encode()
    split = split_lines(data, 10)
    assert split.lines == ["a\u2028b", "c\x0cd"]
    assert split.ends == [10 + len("a\u2028b\r\n".encode()), 10 + len(data)]
    assert split.consumed == len(data)


# --- source connector ----------------------------------------------------------------------------


def errors_by_key(connector: FileStreamSourceConnector, props: Mapping[str, str]) -> dict[str, list[str]]:
    return {v.name: v.error_messages for v in connector.validate(props)}


def test_source_connector_runs_one_task_whatever_tasks_max_says(tmp_path: Path) -> None:
    connector = FileStreamSourceConnector()
    props = {"file": str(tmp_path / "x"), "topic": "t", "tasks.max": "4"}
    connector.start(props)
    assert connector.task_configs(4) == [props]
    assert connector.task_class() is FileStreamSourceTask


def test_source_connector_requires_a_single_topic() -> None:
    connector = FileStreamSourceConnector()
    assert errors_by_key(connector, {"topic": "a"})["topic"] == []
    missing = errors_by_key(connector, {"file": "x"})["topic"]
    assert missing == ['Missing required configuration "topic" which has no default value.']
    listed = errors_by_key(connector, {"topic": "a,b"})["topic"]
    assert len(listed) == 1 and "single topic" in listed[0]
    with pytest.raises(ConfigError, match="single topic"):
        connector.start({"topic": "a, b"})
    with pytest.raises(ConfigError, match="Missing required configuration"):
        connector.start({"file": "x"})


def test_source_connector_rejects_a_batch_size_below_one() -> None:
    assert errors_by_key(FileStreamSourceConnector(), {"topic": "t", "batch.size": "0"})["batch.size"]


def test_source_connector_exactly_once_only_for_a_real_file() -> None:
    connector = FileStreamSourceConnector()
    assert connector.exactly_once_support({"topic": "t", "file": "f"}) is ExactlyOnceSupport.SUPPORTED
    assert connector.exactly_once_support({"topic": "t"}) is ExactlyOnceSupport.UNSUPPORTED


def test_source_connector_validates_offsets_to_alter() -> None:
    connector = FileStreamSourceConnector()
    props = {"topic": "t", "file": "f"}
    assert connector.alter_offsets(props, [({"filename": "f"}, {"position": 12}), ({"filename": "old"}, None)])
    bad: list[tuple[dict[str, Any], dict[str, Any], str]] = [
        ({"filename": "f"}, {"pos": 1}, "contain the key 'position'"),
        ({"filename": "f"}, {"position": "1"}, "Long value"),
        ({"filename": "f"}, {"position": True}, "Long value"),
        ({"filename": "f"}, {"position": -1}, "non-negative"),
        ({"file": "f"}, {"position": 1}, "contain the key 'filename'"),
    ]
    for partition, offset, message in bad:
        with pytest.raises(ConnectError, match=message):
            connector.alter_offsets(props, [(partition, offset)])
    with pytest.raises(ConnectError, match="stdin"):
        connector.alter_offsets({"topic": "t"}, [({"filename": "f"}, {"position": 1})])


def test_connectors_report_a_version() -> None:
    for plugin in (FileStreamSourceConnector(), FileStreamSinkConnector(), FileStreamSourceTask()):
        assert isinstance(plugin.version(), str) and plugin.version()


# --- sink ----------------------------------------------------------------------------------------


def sink_record(value: Any, offset: int, schema: Schema | None = STRING_SCHEMA) -> SinkRecord:
    return SinkRecord("t", 0, None, None, schema, value, offset)


def test_sink_appends_values_as_lines_and_flushes(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("existing\n")
    task = FileStreamSinkTask()
    task.start({"file": str(path), "topics": "t"})
    struct_schema = Schema.struct([("n", INT32_SCHEMA)])
    task.put([sink_record("a", 0), sink_record(7, 1, INT32_SCHEMA), sink_record(None, 2, None)])
    task.put([])
    task.put([sink_record("é", 3), sink_record(Struct(struct_schema, {"n": 1}), 4, struct_schema)])
    task.flush({TopicPartition("t", 0): 5})
    assert path.read_text(encoding="utf-8") == "existing\na\n7\nnull\né\nStruct{n=1}\n"
    task.put([sink_record("later", 5)])
    task.stop()
    assert path.read_text(encoding="utf-8").endswith("\nlater\n")


def test_sink_lines_are_readable_as_soon_as_put_returns(tmp_path: Path) -> None:
    # Kafka's task prints each record as put() gets it; waiting for the next commit's flush would delay
    # every line by up to offset.flush.interval.ms.
    path = tmp_path / "out.txt"
    task = FileStreamSinkTask()
    task.start({"file": str(path), "topics": "t"})
    try:
        task.put([sink_record("first", 0), sink_record("second", 1)])
        assert path.read_text(encoding="utf-8") == "first\nsecond\n"
        task.put([sink_record("third", 2)])
        assert path.read_text(encoding="utf-8") == "first\nsecond\nthird\n"
    finally:
        task.stop()


def test_sink_batches_write_the_same_lines_as_records_and_are_readable_at_once(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    task = FileStreamSinkTask()
    task.start({"file": str(path), "topics": "t"})
    struct_schema = Schema.struct([("n", INT32_SCHEMA)])
    try:
        text = RecordListBatch([sink_record("a", 0), sink_record("é", 1)])
        mixed = RecordListBatch([sink_record(7, 2, None), sink_record(None, 3, None), sink_record(b"b", 4, None)])
        structs = RecordListBatch([sink_record(Struct(struct_schema, {"n": 1}), 5, struct_schema)])
        task.put_batches([text, mixed])
        assert path.read_text(encoding="utf-8") == "a\né\n7\nnull\nb\n"
        task.put_batches([])
        task.put_batches([structs])
        assert path.read_text(encoding="utf-8").endswith("\nb\nStruct{n=1}\n")
    finally:
        task.stop()


def test_sink_writes_to_stdout_without_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    task = FileStreamSinkTask()
    task.start({"topics": "t"})
    task.put([sink_record("to stdout", 0)])
    task.flush({})
    task.stop()
    assert capsys.readouterr().out == "to stdout\n"


def test_sink_fails_to_start_when_the_file_cannot_be_created(tmp_path: Path) -> None:
    with pytest.raises(ConnectError, match="Couldn't find or create file"):
        FileStreamSinkTask().start({"file": str(tmp_path / "no-such-dir" / "out.txt")})


def test_sink_connector_gives_every_task_the_config_and_accepts_offset_changes() -> None:
    connector = FileStreamSinkConnector()
    props = {"file": "out.txt", "topics": "a,b"}
    connector.start(props)
    assert connector.task_configs(3) == [props, props, props]
    assert connector.task_class() is FileStreamSinkTask
    assert connector.alter_offsets(props, {TopicPartition("a", 0): 3, TopicPartition("b", 1): None})


def test_poll_batches_gives_the_lines_as_one_batch_ending_at_the_last_position(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"one\ntwo\nthree\n")
    task = start_source(path, props={"batch.size": "2"})
    (batch,) = task.poll_batches() or []
    assert (batch.topic, list(batch.values), batch.value_schema) == ("lines", ["one", "two"], STRING_SCHEMA)
    assert batch.source_partition == {"filename": str(path)}
    assert batch.last_source_offset == {"position": 8}
    assert [r.source_offset for r in batch] == [{"position": 4}, {"position": 8}]
    (rest,) = task.poll_batches() or []
    assert list(rest.values) == ["three"] and rest.last_source_offset == {"position": 14}
    task.stop()


@pytest.mark.parametrize(
    "content",
    [
        pytest.param([f"line-{i}" + "x" * (i % 13) for i in range(400)], id="ascii"),
        pytest.param([f"l{i}" + ("é" if i % 97 == 50 else "") for i in range(400)], id="ascii-then-utf8"),
        pytest.param(["a"] * 150 + ["b\r", "c"] + [str(i) for i in range(200)], id="ascii-then-cr"),
    ],
)
def test_every_record_and_every_batch_ends_at_its_byte_position_across_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: list[str]
) -> None:
    monkeypatch.setattr(file_source, "_CHUNK_BYTES", 97)  # many reads, each ending mid-line
    path = tmp_path / "in.txt"
    data = "".join(f"{line}\n" for line in content).encode()
    path.write_bytes(data)
    expected_ends = list(accumulate(map(len, data.splitlines(keepends=True))))
    task = start_source(path, props={"batch.size": "7"})
    batches = []
    while sum(len(b) for b in batches) < len(expected_ends):
        polled = task.poll_batches()
        assert polled, "fewer lines than the file holds"
        batches += polled
    ends = [position for b in batches for position in (o["position"] for o in b.source_offsets or [])]
    assert ends == expected_ends
    lasts = [b.last_source_offset["position"] for b in batches if b.last_source_offset]
    assert lasts == [expected_ends[taken - 1] for taken in accumulate(len(b) for b in batches)]
    assert [v for b in batches for v in b.values] == data.decode().splitlines()
    # ASCII lines stay bytes until read, so the String converter sends them as they are.
    assert isinstance(batches[0].values, Utf8Strings)
    task.stop()
