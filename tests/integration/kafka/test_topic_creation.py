"""Source topic creation (KIP-158) on a real broker, through a standalone worker's REST API.

The test broker auto-creates topics (`auto.create.topics.enable=true`, one partition, broker defaults), so
every test checks what auto-creation would not give: the group's partition count, replication factor and
topic configs, read back with the admin client.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import KafkaError, KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import ConfigResource
from confluent_kafka.admin._resource import ResourceType

from connect.api import TopicPartition
from connect.runtime.kafka import KafkaAdmin
from tests.support.standalone_workers import all_running, running_worker, status_of, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

LINES = 5


@dataclass(frozen=True)
class TopicInfo:
    partitions: int
    replication_factor: int
    configs: dict[str, str]


def describe(admin: AdminClient, topic: str) -> TopicInfo | None:
    """Partitions, replicas and configs of `topic`, or None if it does not exist (described, never listed by
    name: a metadata request for it would make the broker create it)."""
    try:
        description = admin.describe_topics(TopicCollection([topic]))[topic].result(timeout=10)
    except KafkaException as exc:
        if exc.args[0].code() in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC):
            return None
        raise
    resource = ConfigResource(ResourceType.TOPIC, topic)
    entries = admin.describe_configs([resource])[resource].result(timeout=10)
    return TopicInfo(
        len(description.partitions),
        len(description.partitions[0].replicas),
        {name: entry.value for name, entry in entries.items()},
    )


def record_count(admin: AdminClient, topic: str) -> int:
    info = describe(admin, topic)
    if info is None:
        return 0
    # KafkaAdmin retries while the new partitions' leaders settle.
    ends = KafkaAdmin(admin).end_offsets([TopicPartition(topic, p) for p in range(info.partitions)])
    return sum(ends.values())


class Env:
    def __init__(self, client: httpx.Client, admin: AdminClient, data: Path) -> None:
        self.client = client
        self.admin = admin
        self.data = data
        self.prefix = f"tc-{uuid.uuid4().hex[:10]}"

    def source(self, name: str, topic: str, **topic_creation: str) -> dict[str, str]:
        source = self.data / f"{name}.in"
        source.write_text("".join(f"{name} line {i}\n" for i in range(LINES)))
        return {
            "connector.class": "FileStreamSource",
            "file": str(source),
            "topic": topic,
            # Keyed records: a compacted topic refuses records without a key.
            "transforms": "hoist,key",
            "transforms.hoist.type": "org.apache.kafka.connect.transforms.HoistField$Value",
            "transforms.hoist.field": "line",
            "transforms.key.type": "org.apache.kafka.connect.transforms.ValueToKey",
            "transforms.key.fields": "line",
            **topic_creation,
        }

    def grouped(self) -> dict[str, str]:
        """A `compacted` group for this test's topics except `*-raw`, and a default group."""
        return {
            "topic.creation.groups": "compacted",
            "topic.creation.compacted.include": f"{self.prefix}-.*",
            "topic.creation.compacted.exclude": ".*-raw",
            "topic.creation.compacted.partitions": "3",
            "topic.creation.compacted.cleanup.policy": "compact",
            "topic.creation.compacted.min.compaction.lag.ms": "60000",
            "topic.creation.default.replication.factor": "-1",
            "topic.creation.default.partitions": "2",
            "topic.creation.default.compression.type": "lz4",
        }

    def create(self, name: str, config: dict[str, str]) -> None:
        response = self.client.post("/connectors", json={"name": name, "config": config})
        assert response.status_code == 201, response.text

    def all_sent(self, name: str, topic: str) -> None:
        wait_until(lambda: all_running(self.client, name, 1), 60, f"{name} running")
        wait_until(lambda: record_count(self.admin, topic) == LINES, 60, f"{LINES} records in {topic}")


@pytest.fixture(scope="module")
def env(kafka_bootstrap: str, kafka_admin: AdminClient, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    data = tmp_path_factory.mktemp("topic-creation")
    with running_worker(worker_props(kafka_bootstrap, data / "connect.offsets")) as (_, client):
        yield Env(client, kafka_admin, data)


def test_a_source_creates_its_topic_with_the_settings_of_the_group_that_matches_it(env: Env) -> None:
    topic = f"{env.prefix}-state"
    assert describe(env.admin, topic) is None
    env.create("tc-compacted", env.source("tc-compacted", topic, **env.grouped()))
    env.all_sent("tc-compacted", topic)
    info = describe(env.admin, topic)
    assert info is not None
    assert (info.partitions, info.replication_factor) == (3, 1)  # auto-creation would give 1 partition
    assert info.configs["cleanup.policy"] == "compact"
    assert info.configs["min.compaction.lag.ms"] == "60000"
    assert info.configs["compression.type"] == "producer"  # the default group's topic configs are its own


def test_an_excluded_topic_falls_through_to_the_default_group(env: Env) -> None:
    topic = f"{env.prefix}-raw"
    env.create("tc-raw", env.source("tc-raw", topic, **env.grouped()))
    env.all_sent("tc-raw", topic)
    info = describe(env.admin, topic)
    assert info is not None
    assert (info.partitions, info.replication_factor) == (2, 1)
    assert info.configs["compression.type"] == "lz4"
    assert info.configs["cleanup.policy"] == "delete"


def test_more_replicas_than_brokers_fail_the_task_and_create_nothing(env: Env) -> None:
    topic = f"{env.prefix}-replicated"
    config = env.source("tc-replicated", topic, **env.grouped(), **{"topic.creation.compacted.replication.factor": "2"})
    env.create("tc-replicated", config)

    def task_trace() -> str:
        status = status_of(env.client, "tc-replicated") or {}
        tasks = status.get("tasks") or [{}]
        return str(tasks[0].get("trace")) if tasks[0].get("state") == "FAILED" else ""

    trace = wait_until(task_trace, 60, "the task to fail")
    assert f"Task failed to create new topic {topic}" in trace
    assert "replication factor" in trace.lower()
    assert describe(env.admin, topic) is None


def test_invalid_topic_creation_settings_are_reported_and_refused(env: Env) -> None:
    config = {
        **env.source("tc-invalid", f"{env.prefix}-invalid"),
        "topic.creation.groups": "compacted",
        "topic.creation.default.replication.factor": "0",
        "topic.creation.default.partitions": "0",
    }
    validated = env.client.put("/connector-plugins/FileStreamSource/config/validate", json={**config, "name": "x"})
    assert validated.status_code == 200
    body: dict[str, Any] = validated.json()
    assert {"Topic Creation: default", "Topic Creation: compacted"} <= set(body["groups"])
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"] and c["value"]["errors"]}
    assert set(errors) == {
        "topic.creation.default.replication.factor",
        "topic.creation.default.partitions",
        "topic.creation.compacted.include",
    }
    assert body["error_count"] == 3
    refused = env.client.post("/connectors", json={"name": "tc-invalid", "config": config})
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert message.startswith("Connector configuration is invalid and contains the following 3 error(s):")
    assert "Number of partitions must be positive, or -1 to use the broker's default" in message
    assert env.client.get("/connectors/tc-invalid").status_code == 404


def test_with_topic_creation_disabled_on_the_worker_the_broker_creates_the_topic(
    kafka_bootstrap: str, kafka_admin: AdminClient, tmp_path: Path
) -> None:
    props = worker_props(kafka_bootstrap, tmp_path / "connect.offsets", **{"topic.creation.enable": "false"})
    with running_worker(props) as (_, client):
        env = Env(client, kafka_admin, tmp_path)
        topic = f"{env.prefix}-state"
        env.create("tc-disabled", env.source("tc-disabled", topic, **env.grouped()))
        env.all_sent("tc-disabled", topic)
    info = describe(kafka_admin, topic)
    assert info is not None
    # The broker's auto-creation: its num.partitions and defaults, none of the group's settings.
    assert info.partitions == 1
    assert info.configs["cleanup.policy"] == "delete"
    assert info.configs["min.compaction.lag.ms"] == "0"
