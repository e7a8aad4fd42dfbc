"""The file connectors run through the worker's record path in connect.testing's harness (Kafka in memory):
what a user of FileStreamSource/FileStreamSink sees, and what a plug-in author's own tests can do with the
kit (connector_harness is the kit's pytest fixture)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connect.api.errors import ConfigError, ConnectError
from connect.api.records import TopicPartition
from connect.testing import ConnectorHarness, wait_for
from connectors.file.sink import FileStreamSinkConnector

pytest_plugins = ["pytester"]

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


def lines_of(path: Path, count: int) -> list[str]:
    """The file's lines once it has at least `count` of them."""

    def enough() -> list[str] | None:
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        return lines if len(lines) >= count else None

    return wait_for(enough, 10, f"{count} line(s) in {path.name}")


def test_a_source_s_lines_reach_its_topic_in_the_converter_s_format(
    connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("a\nb\nc\n", encoding="utf-8")
    connector_harness.start("lines", {"connector.class": SOURCE, "file": str(source), "topic": "lines"})

    assert connector_harness.read_values("lines", 3) == ["a", "b", "c"]
    # The worker's JsonConverter (schemas on, Kafka's default) made the bytes on the topic.
    first = json.loads(connector_harness.read("lines", 3)[0].value or b"")
    assert first == {"schema": {"type": "string", "optional": False}, "payload": "a"}


def test_a_restarted_source_resumes_after_its_committed_offset(
    connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n", encoding="utf-8")
    connector_harness.start("lines", {"connector.class": SOURCE, "file": str(source), "topic": "lines"})
    connector_harness.read("lines", 2)
    partition = {"filename": str(source)}
    wait_for(lambda: connector_harness.source_offset("lines", partition), 10, "the source's offset commit")

    connector_harness.restart("lines")
    with source.open("a", encoding="utf-8") as out:
        out.write("c\n")
    connector_harness.read("lines", 3)
    connector_harness.stop("lines")
    assert connector_harness.read_values("lines", 3) == ["a", "b", "c"]  # nothing read twice


def test_sink_tasks_share_a_topic_s_partitions_and_commit_what_they_wrote(
    connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    connector_harness.create_topic("events", partitions=4)
    out = tmp_path / "out.txt"
    connector_harness.start(
        "sink", {"connector.class": FileStreamSinkConnector, "tasks.max": "2", "file": str(out), "topics": "events"}
    )
    connector_harness.wait_for_running("sink")
    for n in range(40):
        connector_harness.send("events", f"event-{n}", key=f"key-{n}")

    assert sorted(lines_of(out, 40)) == sorted(f"event-{n}" for n in range(40))
    kafka = connector_harness.kafka
    assert kafka is not None
    ends = {TopicPartition("events", p): kafka.end_offset(TopicPartition("events", p)) for p in range(4)}
    assert all(ends.values()), ends  # the keys spread the records over every partition
    wait_for(lambda: connector_harness.committed_offsets("sink") == ends, 10, f"the sink to commit {ends}")


def test_a_record_the_converter_refuses_goes_to_the_dead_letter_queue_and_the_rest_to_the_sink(
    connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    out = tmp_path / "out.txt"
    connector_harness.start(
        "sink",
        {
            "connector.class": FileStreamSinkConnector,
            "file": str(out),
            "topics": "events",
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": "events-dlq",
            "errors.deadletterqueue.context.headers.enable": "true",
        },
    )
    connector_harness.send("events", "first")
    connector_harness.send_bytes("events", b"not json")
    connector_harness.send("events", "last")

    assert lines_of(out, 2) == ["first", "last"]
    [refused] = connector_harness.read("events-dlq", 1)
    assert refused.value == b"not json"
    headers = dict(refused.headers)
    assert headers["__connect.errors.exception.class.name"] == b"connect.api.errors.DataError"
    assert headers["__connect.errors.topic"] == b"events"


def test_transformations_of_the_config_apply_between_the_topic_and_the_sink(
    connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    out = tmp_path / "out.txt"
    connector_harness.start(
        "sink",
        {
            "connector.class": FileStreamSinkConnector,
            "file": str(out),
            "topics": "events",
            "transforms": "keep",
            "transforms.keep.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.keep.predicate": "isOld",
            "transforms.keep.negate": "false",
            "predicates": "isOld",
            "predicates.isOld.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
            "predicates.isOld.name": "old",
        },
    )
    connector_harness.send("events", "dropped", headers={"old": b"yes"})
    connector_harness.send("events", "kept")
    assert lines_of(out, 1) == ["kept"]


def test_an_invalid_config_is_refused_with_every_problem_named(connector_harness: ConnectorHarness) -> None:
    with pytest.raises(ConfigError) as refusal:
        connector_harness.start("lines", {"connector.class": SOURCE, "batch.size": "0"})
    assert "topic: " in str(refusal.value)
    assert "batch.size: " in str(refusal.value)


def test_a_task_that_cannot_start_is_failed_with_its_trace(connector_harness: ConnectorHarness, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "out.txt"
    connector_harness.start("sink", {"connector.class": FileStreamSinkConnector, "file": str(missing), "topics": "t"})
    with pytest.raises(ConnectError, match="FAILED") as failure:
        connector_harness.wait_for_running("sink")
    assert "no-such-folder" in str(failure.value)
    assert connector_harness.state("sink").tasks == {0: "FAILED"}


def test_a_harness_over_a_real_cluster_needs_its_address(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kit's plug-in fails (never skips) a test that asks for the broker-backed harness without one."""
    monkeypatch.delenv("KCONNECT_BOOTSTRAP_SERVERS", raising=False)
    pytester.makepyfile("def test_it(kafka_connector_harness):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "ignore")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*kafka_connector_harness needs a Kafka cluster: pass --kafka-bootstrap*"])


def test_a_connector_class_that_is_not_installed_is_refused_and_its_name_stays_free(
    connector_harness: ConnectorHarness, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=r"connector\.class"):
        connector_harness.start("lines", {"connector.class": "no.such.Connector", "topic": "t"})
    with pytest.raises(ConnectError, match="not running"):
        connector_harness.stop("lines")
    source = tmp_path / "in.txt"
    source.write_text("a\n", encoding="utf-8")
    connector_harness.start("lines", {"connector.class": SOURCE, "file": str(source), "topic": "lines"})
    assert connector_harness.read_values("lines", 1) == ["a"]
