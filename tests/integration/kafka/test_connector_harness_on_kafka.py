"""connect.testing's harness over a real broker (the kit's kafka_connector_harness fixture, on the session
broker): the same calls a plug-in author's tests make in memory, with Kafka's own topics and groups."""

from __future__ import annotations

import uuid
from pathlib import Path

from connect.api.records import TopicPartition
from connect.testing import ConnectorHarness, wait_for
from connectors.file.sink import FileStreamSinkConnector
from connectors.file.source import FileStreamSourceConnector


def test_a_source_writes_to_a_real_topic_and_a_sink_group_commits_on_the_broker(
    kafka_connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    topic = f"harness-{uuid.uuid4().hex[:8]}"
    kafka_connector_harness.create_topic(topic, partitions=2)
    source = tmp_path / "in.txt"
    source.write_text("".join(f"line-{n}\n" for n in range(20)), encoding="utf-8")
    kafka_connector_harness.start(
        "src", {"connector.class": FileStreamSourceConnector, "file": str(source), "topic": topic}
    )
    assert sorted(kafka_connector_harness.read_values(topic, 20)) == sorted(f"line-{n}" for n in range(20))

    out = tmp_path / "out.txt"
    kafka_connector_harness.start(
        "sink", {"connector.class": FileStreamSinkConnector, "tasks.max": "2", "file": str(out), "topics": topic}
    )

    def written() -> list[str] | None:
        lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
        return lines if len(lines) >= 20 else None

    assert sorted(wait_for(written, 60, "the sink's 20 lines")) == sorted(f"line-{n}" for n in range(20))
    # Every partition's records were written, so its offset is committed: an empty partition's may be 0 or
    # none at all (the file source's unkeyed records may all go to one partition).
    ends = {TopicPartition(topic, p): n for p, n in enumerate(_per_partition(kafka_connector_harness, topic))}

    def committed() -> dict[TopicPartition, int]:
        offsets = kafka_connector_harness.committed_offsets("sink")
        return {partition: offsets.get(partition, 0) for partition in ends}

    try:
        wait_for(lambda: committed() == ends, 30, f"the group to commit {ends}")
    except TimeoutError as timeout:
        state = kafka_connector_harness.state("sink")
        raise AssertionError(f"{timeout}; committed: {committed()}; sink: {state}") from None


def _per_partition(harness: ConnectorHarness, topic: str) -> list[int]:
    records = harness.read(topic, 20)
    return [sum(1 for r in records if r.partition == p) for p in range(2)]
