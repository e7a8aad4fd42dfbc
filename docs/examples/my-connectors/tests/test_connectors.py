"""tests/test_connectors.py"""

from __future__ import annotations

import json
from pathlib import Path

from connect.api import SinkRecord, TopicPartition
from connect.testing import ConnectorHarness, FakeSinkTaskContext, FakeSourceTaskContext, wait_for

from my_connectors.http_source import HttpSourceTask
from my_connectors.jsonl_sink import JsonLinesSinkConnector, JsonLinesSinkTask


def test_the_sink_writes_each_value_as_a_json_line(tmp_path: Path) -> None:
    out, partition = tmp_path / "items.jsonl", TopicPartition("items", 0)
    task = JsonLinesSinkTask()
    task.initialize(FakeSinkTaskContext(assignment=[partition]))
    task.start({"file": str(out)})
    task.put([SinkRecord("items", 0, None, None, None, {"id": 1}, kafka_offset=0)])
    task.pre_commit({partition: 1})  # flushes: what the worker does before committing offset 1
    task.stop()
    assert [json.loads(line) for line in out.read_text().splitlines()] == [{"id": 1}]


def test_the_source_resumes_after_its_stored_offset() -> None:
    url = "http://localhost:8000/items"
    task = HttpSourceTask()
    task.initialize(FakeSourceTaskContext(offsets=[({"url": url}, {"id": 41})]))
    task.start({"url": url, "topic": "items"})
    assert task.after == 41  # the next poll asks for the items after 41
    task.stop()


def test_the_sink_in_a_worker_writes_what_its_topic_holds(connector_harness: ConnectorHarness, tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    connector_harness.start(
        "items-file", {"connector.class": JsonLinesSinkConnector, "topics": "items", "file": str(out)}
    )
    for n in (1, 2):
        connector_harness.send("items", {"id": n})  # converted by the worker's JsonConverter, as a source's would be

    def written() -> list[object] | None:
        lines = out.read_text().splitlines() if out.exists() else []
        return [json.loads(line) for line in lines] if len(lines) >= 2 else None

    assert wait_for(written, 10, "two lines") == [{"id": 1}, {"id": 2}]
    assert connector_harness.committed_offsets("items-file") == {TopicPartition("items", 0): 2}
