"""A standalone worker's audit trail over the real broker: the JSON-lines file of `audit.log.file` and the topic
of `audit.topic` hold the same records, one per change, with no secret; the topic is made as documented
(one partition, time-retained); and the worker's config history is kept in memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from tests.support.distributed_workers import topic_records
from tests.support.standalone_workers import running_worker, worker_props

pytestmark = pytest.mark.integration

SECRET = "pw-audit-standalone-9931"


def test_the_audit_file_and_topic_hold_each_change_once_without_its_secrets(
    kafka_bootstrap: str, kafka_admin: AdminClient, unique_topic: str, tmp_path: Path
) -> None:
    audit_file = tmp_path / "audit" / "audit.jsonl"
    audit_topic = f"{unique_topic}-audit"
    props = worker_props(
        kafka_bootstrap,
        tmp_path / "connect.offsets",
        **{"audit.log.file": str(audit_file), "audit.topic": audit_topic, "audit.topic.replication.factor": "1"},
    )
    config = {"connector.class": "FileStreamSource", "file": "/dev/null", "topic": unique_topic, "db.password": SECRET}
    with running_worker(props) as (_, client):
        assert client.put("/connectors/audited/config", json=config).status_code == 201
        assert client.put("/connectors/audited/pause").status_code == 202
        assert client.put("/connectors/audited/config", json={**config, "tasks.max": "2"}).status_code == 200
        assert client.get("/connectors/audited/status").status_code == 200  # a read: not audited
        history = client.get("/connectors/audited/history").json()

    lines = [json.loads(line) for line in audit_file.read_text().splitlines()]
    assert [(r["action"], r["user"], r["outcome"]) for r in lines] == [
        ("connector.create", None, "success"),
        ("connector.pause", None, "success"),
        ("connector.update", None, "success"),
    ]
    assert lines[2]["diff"] == {"added": {"tasks.max": "2"}, "removed": {}, "changed": {}}
    records = topic_records(kafka_bootstrap, audit_topic)
    assert [json.loads(value or b"") for _, value in records] == lines
    assert SECRET not in audit_file.read_text()
    assert all(SECRET.encode() not in (value or b"") for _, value in records)

    described = kafka_admin.describe_configs([ConfigResource(ResourceType.TOPIC, audit_topic)])
    settings = next(iter(described.values())).result(timeout=30)
    assert settings["cleanup.policy"].value == "delete"
    assert settings["retention.ms"].value == str(90 * 24 * 3600 * 1000)
    assert len(kafka_admin.list_topics(audit_topic, timeout=10).topics[audit_topic].partitions) == 1

    assert [(v["version"], v["user"], v["config"]["db.password"]) for v in history] == [
        (1, None, SECRET),
        (2, None, SECRET),
    ]
