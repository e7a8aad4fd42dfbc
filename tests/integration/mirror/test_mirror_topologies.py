"""Mirroring topologies between two real clusters: active/active (each cluster's topic mirrored to the other
once, never back: MirrorMaker's cycle check), and a one-way migration with the identity policy (names kept).
Each flow runs on a standalone worker of its target cluster."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from tests.fixtures.kafka import new_topic
from tests.support.mirror_flows import flow_config, produce
from tests.support.mirrored_topics import read_records
from tests.support.standalone_workers import create_connector, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration

SOURCE_CLASS = "org.apache.kafka.connect.mirror.MirrorSourceConnector"


def topics_of(bootstrap: str) -> set[str]:
    return set(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics)


def test_active_active_mirrors_each_clusters_topic_to_the_other_once_and_never_back(
    kafka_bootstrap: str, other_kafka_bootstrap: str, tmp_path: Path
) -> None:
    a, b, prefix = kafka_bootstrap, other_kafka_bootstrap, f"aa-{uuid.uuid4().hex[:8]}"
    topic_on_a = new_topic(AdminClient({"bootstrap.servers": a}), 3, prefix=prefix)
    topic_on_b = new_topic(AdminClient({"bootstrap.servers": b}), 3, prefix=prefix)
    produce(a, topic_on_a, 30)
    produce(b, topic_on_b, 30)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        running_worker(worker_props(b, tmp_path / "b" / "offsets")) as (_, on_b),
        running_worker(worker_props(a, tmp_path / "a" / "offsets")) as (_, on_a),
    ):
        # Both filters take the remote topics too (`.*<prefix>.*`): only the cycle check keeps them home.
        a_to_b = {**flow_config(a, b, f".*{prefix}"), "connector.class": SOURCE_CLASS}
        b_to_a = {**flow_config(b, a, f".*{prefix}", "B", "A"), "connector.class": SOURCE_CLASS}
        create_connector(on_b, f"{prefix}-a-to-b", a_to_b)
        create_connector(on_a, f"{prefix}-b-to-a", b_to_a)
        wait_until(lambda: len(read_records(b, f"A.{topic_on_a}")) == 30, 60, "A's topic mirrored to B")
        wait_until(lambda: len(read_records(a, f"B.{topic_on_b}")) == 30, 60, "B's topic mirrored to A")

        # Both flows keep looking for topics every second; new records show they are live and have seen
        # the other flow's remote topics by now.
        produce(a, topic_on_a, 3)
        produce(b, topic_on_b, 3)
        wait_until(lambda: len(read_records(b, f"A.{topic_on_a}")) == 33, 60, "A's new records on B")
        wait_until(lambda: len(read_records(a, f"B.{topic_on_b}")) == 33, 60, "B's new records on A")

    looped = {t for t in topics_of(a) | topics_of(b) if t.startswith(("A.B.", "B.A."))}
    assert looped == set(), "a remote topic was mirrored back to where it came from"


def test_the_identity_policy_keeps_topic_names(
    kafka_bootstrap: str, other_kafka_bootstrap: str, tmp_path: Path
) -> None:
    a, b, prefix = kafka_bootstrap, other_kafka_bootstrap, f"identity-{uuid.uuid4().hex[:8]}"
    topic = new_topic(AdminClient({"bootstrap.servers": a}), 3, prefix=prefix)
    sent = produce(a, topic, 30)
    config = {
        **flow_config(a, b, prefix),
        "connector.class": SOURCE_CLASS,
        "replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
    }
    with running_worker(worker_props(b, tmp_path / "offsets")) as (_, on_b):
        create_connector(on_b, f"{prefix}-migration", config)
        wait_until(lambda: len(read_records(b, topic)) == 30, 60, "the topic under its own name on B")
    assert read_records(b, topic) == sorted(sent, key=lambda r: r.partition)
    assert f"A.{topic}" not in topics_of(b)
