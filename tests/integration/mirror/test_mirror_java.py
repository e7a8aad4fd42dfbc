"""kconnect's MirrorMaker and Java's read each other's records, with the Java side running: a flow whose source
connector is kconnect's and whose checkpoint connector is Java's (Kafka 4.3.1's `MirrorCheckpointConnector` on
a Java standalone worker). Java's checkpoint task reads the offset syncs kconnect wrote and translates a
consumer group's offsets with them; kconnect reads the checkpoints Java wrote, and they agree with what
kconnect's own translation says. And Java's `RemoteClusterUtils.translateOffsets`, the DR runbook's call, reads
the checkpoints kconnect's own checkpoint connector wrote.
"""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import httpx
import pytest
from confluent_kafka.admin import AdminClient

from bench.java_connect import jars as java_jars
from connect.mirror.offset_sync_store import OffsetSyncStore
from connect.mirror.records import OffsetSync
from local_kafka.jars import default_version
from tests.fixtures.kafka import new_topic
from tests.support.java_connect_worker import java_standalone_worker
from tests.support.mirror_flows import (
    PARTITIONS,
    checkpoint_flow_config,
    consume_and_commit,
    flow_config,
    produce,
)
from tests.support.mirrored_topics import latest_checkpoints, read_records
from tests.support.standalone_workers import all_running, create_connector, running_worker, worker_props
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def test_javas_checkpoint_connector_translates_with_kconnects_offset_syncs_and_kconnect_reads_its_checkpoints(
    kafka_bootstrap: str, other_kafka_bootstrap: str, tmp_path: Path
) -> None:
    prefix, target = f"mirror-java-{uuid.uuid4().hex[:8]}", other_kafka_bootstrap
    topic = new_topic(AdminClient({"bootstrap.servers": kafka_bootstrap}), PARTITIONS, prefix=prefix)
    produce(kafka_bootstrap, topic, 90)  # 30 a partition
    group = f"{prefix}-group"
    consume_and_commit(kafka_bootstrap, topic, group, 25)
    config = flow_config(kafka_bootstrap, target, prefix)

    kconnect_dir, java_dir = tmp_path / "kconnect", tmp_path / "java"
    kconnect_dir.mkdir()
    java_dir.mkdir()
    with running_worker(worker_props(target, kconnect_dir / "offsets")) as (_, kconnect):
        source = {**config, "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector"}
        create_connector(kconnect, f"{prefix}-source", source)
        wait_until(lambda: len(read_records(target, f"A.{topic}")) == 90, 60, "every record mirrored by kconnect")

        checkpoint_config = {**checkpoint_flow_config(config, prefix), "tasks.max": "1"}
        with java_standalone_worker(target, java_dir, {}) as java_url:
            response = httpx.put(
                f"{java_url}/connectors/{prefix}-checkpoints/config", json=checkpoint_config, timeout=60
            )
            assert response.status_code == 201, response.text

            wait_until(
                lambda: len(latest_checkpoints(target, "A.checkpoints.internal", group)) == PARTITIONS,
                90,
                "Java's checkpoints for every partition",
            )
            assert (
                httpx.get(f"{java_url}/connectors/{prefix}-checkpoints/status", timeout=10).json()["tasks"][0]["state"]
                == "RUNNING"
            )

        # kconnect's translation of the same offsets over the same syncs agrees with Java's.
        store = OffsetSyncStore(initialization_must_read_to_end=False)
        for record in read_records(kafka_bootstrap, "mm2-offset-syncs.B.internal"):
            store.handle(OffsetSync.read(record.key or b"", record.value or b""))
        store.read_to_end_done()
        for partition, checkpoint in latest_checkpoints(target, "A.checkpoints.internal", group).items():
            assert (checkpoint.topic, checkpoint.upstream_offset) == (f"A.{topic}", 25)
            assert checkpoint.downstream_offset == store.translate_downstream(topic, partition, 25), checkpoint
        assert all_running(kconnect, f"{prefix}-source", 1)


TRANSLATE_WITH_JAVA = """
import org.apache.kafka.connect.mirror.RemoteClusterUtils;
var props = new java.util.HashMap<String, Object>();
props.put("bootstrap.servers", "{bootstrap}");
var offsets = RemoteClusterUtils.translateOffsets(props, "A", "{group}", java.time.Duration.ofSeconds(30));
offsets.forEach((tp, om) -> System.out.println("TRANSLATED " + tp.topic() + " " + tp.partition() + " " + om.offset()));
/exit
"""


def test_javas_remote_cluster_utils_reads_kconnects_checkpoints(
    kafka_bootstrap: str, other_kafka_bootstrap: str, tmp_path: Path
) -> None:
    # The DR runbook of Java users: RemoteClusterUtils.translateOffsets against the target cluster, over the
    # checkpoints kconnect's MirrorCheckpointConnector wrote.
    prefix, target = f"mirror-rcu-{uuid.uuid4().hex[:8]}", other_kafka_bootstrap
    topic = new_topic(AdminClient({"bootstrap.servers": kafka_bootstrap}), PARTITIONS, prefix=prefix)
    produce(kafka_bootstrap, topic, 90)
    group = f"{prefix}-group"
    consume_and_commit(kafka_bootstrap, topic, group, 25)
    config = flow_config(kafka_bootstrap, target, prefix)
    with running_worker(worker_props(target, tmp_path / "offsets")) as (_, kconnect):
        source = {**config, "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector"}
        create_connector(kconnect, f"{prefix}-source", source)
        wait_until(lambda: len(read_records(target, f"A.{topic}")) == 90, 60, "every record mirrored")
        create_connector(kconnect, f"{prefix}-checkpoints", checkpoint_flow_config(config, prefix))
        wait_until(
            lambda: len(latest_checkpoints(target, "A.checkpoints.internal", group)) == PARTITIONS,
            60,
            "kconnect's checkpoints for every partition",
        )

    script = tmp_path / "translate.jsh"
    script.write_text(TRANSLATE_WITH_JAVA.replace("{bootstrap}", target).replace("{group}", group))
    classpath = java_jars.fetch(default_version()).classpath
    ran = subprocess.run(
        ["jshell", "--class-path", classpath, str(script)], capture_output=True, text=True, timeout=180, check=False
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    translated_by_java = {
        (topic_name, int(partition)): int(offset)
        for line in ran.stdout.splitlines()
        if line.startswith("TRANSLATED ")
        for topic_name, partition, offset in [line.split()[1:]]
    }
    kconnect_checkpoints = latest_checkpoints(target, "A.checkpoints.internal", group)
    assert translated_by_java == {
        (f"A.{topic}", partition): checkpoint.downstream_offset
        for partition, checkpoint in kconnect_checkpoints.items()
    }, ran.stdout
