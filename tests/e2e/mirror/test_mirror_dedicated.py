"""Dedicated mode (`kconnect mirror mm2.properties`) as a DR team runs it, between two real clusters: three
processes started with one file form one cluster per flow and share its work; a changed file rolled out by
restarting them one at a time is applied, and no record is lost on the way; a one-way mirror also runs the
reverse flow for the heartbeats it mirrors back; the DR runbook's commands and the flows page in a browser
answer about a running flow.

Each test names its clusters with aliases of its own, so its internal topics (`mm2-*.<alias>.internal`), its
groups (`<alias>-mm2`) and its remote topics are its own on the shared brokers."""

from __future__ import annotations

import json
import re
import signal
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from connect.mirror.records import Heartbeat
from local_kafka import LocalKafka
from tests.fixtures.kafka import new_topic
from tests.fixtures.tcp_ports import free_port
from tests.support.mirror_flows import PARTITIONS, consume_and_commit, produce
from tests.support.mirror_nodes import CONNECTORS, MirrorNode, mirrored_values, mm2_file, produce_values
from tests.support.mirrored_topics import read_records
from tests.support.waiting import wait_until
from tests.unit.ctl.support import ctl

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.e2e


def committed_offsets(bootstrap: str, group: str, topic: str, partitions: int) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        found = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
    finally:
        consumer.close()
    return {tp.partition: tp.offset for tp in found if tp.offset >= 0}


def unit_owners(node: MirrorNode, flow_path: str) -> set[str] | None:
    """The worker ids running the flow's connectors and tasks, once all three connectors run; else None."""
    owners: set[str] = set()
    with httpx.Client(base_url=node.url + flow_path, timeout=10) as http:
        for name in CONNECTORS:
            answer = http.get(f"/connectors/{name}/status")
            if answer.status_code != 200 or answer.json()["connector"]["state"] != "RUNNING":
                return None
            status: dict[str, Any] = answer.json()
            owners.add(status["connector"]["worker_id"])
            owners |= {task["worker_id"] for task in status["tasks"] if task["state"] == "RUNNING"}
    return owners


@pytest.mark.slow
def test_three_nodes_share_a_flow_and_a_rolling_restart_applies_a_changed_file_losing_nothing(
    kafka_bootstrap: str, other_kafka_bootstrap: str, tmp_path: Path, mirror_nodes: list[MirrorNode]
) -> None:
    a, b, tag = kafka_bootstrap, other_kafka_bootstrap, uuid.uuid4().hex[:6]
    source, target = f"dc{tag}", f"dr{tag}"
    admin = AdminClient({"bootstrap.servers": a})
    first = new_topic(admin, 4, prefix=f"orders-{tag}")
    second = new_topic(admin, 2, prefix=f"payments-{tag}")
    sent_first = [f"order-{n}" for n in range(40)]
    produce_values(a, first, sent_first)
    produce_values(a, second, [f"payment-{n}" for n in range(20)])

    props = mm2_file(source, target, a, b, first)
    for n in range(3):
        node = MirrorNode(f"mm{n}", {**props, "listeners": f"http://127.0.0.1:{free_port()}"}, tmp_path)
        mirror_nodes.append(node)
        node.start()
    for node in mirror_nodes:
        wait_until(node.healthy, 90, f"{node.name} healthy", interval=0.2)

    forward, reverse = f"/{source}/{target}", f"/{target}/{source}"
    assert httpx.get(mirror_nodes[0].url + "/", timeout=10).json()["flows"].keys() == {
        f"{source}->{target}",
        f"{target}->{source}",
    }
    # Every record, and no other (at least once: the first task configs are replaced as soon as the heartbeats
    # topic appears, and like Java's workers each node restarts its own tasks under the new configs without
    # waiting for the others, so a partition may be mirrored twice for a moment).
    wait_until(lambda: set(mirrored_values(b, f"{source}.{first}")) == set(sent_first), 90, "the topic on the target")
    # One cluster per flow: the flow's connectors and tasks (3 source tasks, a heartbeat task) on all three.
    everyone = {node.worker_id for node in mirror_nodes}
    wait_until(lambda: unit_owners(mirror_nodes[0], forward) == everyone, 60, "the flow's work on all three nodes")
    assert mirrored_values(b, f"{source}.{second}") == [], "a topic the file does not select was mirrored"

    # The reverse flow runs only for its heartbeats: they are written on the source cluster and mirrored back.
    def heartbeat_mirrored_back() -> bool:
        records = read_records(b, f"{source}.heartbeats")
        beats = [Heartbeat.read(r.key or b"", r.value or b"") for r in records]
        return any(beat.source_cluster_alias == target and beat.target_cluster_alias == source for beat in beats)

    wait_until(heartbeat_mirrored_back, 60, "the reverse flow's heartbeats mirrored to the target")
    reverse_source = httpx.get(f"{mirror_nodes[0].url}{reverse}/connectors/MirrorSourceConnector/status", timeout=10)
    assert reverse_source.json()["tasks"] == [], "the reverse flow mirrors nothing"

    # The rollout: each node stopped, given the new file and started again, while records keep coming.
    changed = mm2_file(source, target, a, b, f"{first},{second}")
    sent_during = []
    for round_, node in enumerate(mirror_nodes):
        batch = [f"rollout-{round_}-{n}" for n in range(10)]
        produce_values(a, first, batch)
        sent_during += batch
        node.signal(signal.SIGTERM)
        assert node.wait_exit(60) == 0, node.log_tail()
        node.rewrite({**changed, "listeners": node.url})
        node.start()
        wait_until(node.healthy, 90, f"{node.name} healthy again", interval=0.2)

    config = httpx.get(f"{mirror_nodes[2].url}{forward}/connectors/MirrorSourceConnector/config", timeout=10).json()
    assert config["topics"] == f"{first},{second}"
    wait_until(
        lambda: mirrored_values(b, f"{source}.{second}") == sorted(f"payment-{n}" for n in range(20)),
        90,
        "the topic the changed file adds, on the target",
    )
    expected_first = sorted(sent_first + sent_during)
    wait_until(
        lambda: set(mirrored_values(b, f"{source}.{first}")) == set(expected_first),
        90,
        "every record sent during the rollout on the target",
    )
    wait_until(lambda: unit_owners(mirror_nodes[0], forward) == everyone, 60, "the flow's work back on all three nodes")


def test_clusters_limits_a_node_to_the_flows_into_the_named_clusters(
    kafka_bootstrap: str, other_kafka_bootstrap: str, tmp_path: Path, mirror_nodes: list[MirrorNode]
) -> None:
    tag = uuid.uuid4().hex[:6]
    source, target = f"dc{tag}", f"dr{tag}"
    props = mm2_file(source, target, kafka_bootstrap, other_kafka_bootstrap, f"nothing-{tag}")
    node = MirrorNode("mm", {**props, "listeners": f"http://127.0.0.1:{free_port()}"}, tmp_path)
    node.extra_args = ["--clusters", target]
    mirror_nodes.append(node)
    node.start()
    wait_until(node.healthy, 90, "the node healthy", interval=0.2)
    assert list(httpx.get(node.url + "/", timeout=10).json()["flows"]) == [f"{source}->{target}"]
    topics = AdminClient({"bootstrap.servers": kafka_bootstrap}).list_topics(timeout=10).topics
    assert f"mm2-configs.{target}.internal" not in topics, "the flow into the other cluster was started"


def see_the_flows_in_the_browser(chromium: Browser, url: str, source: str, target: str, topic: str) -> None:
    """The node's `/ui` shows both flows with their state and each mirrored partition caught up, and a flow's
    link opens that flow's own dashboard (its worker's, under the flow's path) with its connectors running."""
    page = chromium.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.set_default_timeout(60_000)
    response = page.goto(url + "/ui")
    assert response is not None and response.status == 200
    page.locator("#live:not(.stale)").wait_for()
    forward = page.locator(f'#flows tr[data-flow="{source}->{target}"]')
    forward.locator("td.mirrors", has_text="yes").wait_for()
    forward.locator('[data-connector="MirrorSourceConnector"]', has_text="RUNNING").wait_for()
    page.locator(f'#flows tr[data-flow="{target}->{source}"] td.mirrors', has_text="heartbeats only").wait_for()
    for partition in range(PARTITIONS):
        lag = page.locator(f'#partitions tr[data-topic="{topic}"][data-partition="{partition}"] td.lag')
        lag.filter(has_text=re.compile(r"^0$")).wait_for()
    forward.locator("a").click()
    page.wait_for_url(f"**/{source}/{target}/ui")
    page.locator('#rows tr[data-name="MirrorSourceConnector"] .state', has_text="RUNNING").wait_for()
    page.context.close()


def test_the_runbook_commands_show_the_flow_and_fail_a_group_over_with_its_translated_offsets(
    kafka_bootstrap: str,
    other_kafka_bootstrap: str,
    tmp_path: Path,
    mirror_nodes: list[MirrorNode],
    capsys: pytest.CaptureFixture[str],
    chromium: Browser,
) -> None:
    a, b, tag = kafka_bootstrap, other_kafka_bootstrap, uuid.uuid4().hex[:6]
    source, target = f"dc{tag}", f"dr{tag}"
    topic = new_topic(AdminClient({"bootstrap.servers": a}), PARTITIONS, prefix=f"orders-{tag}")
    group = f"billing-{tag}"
    produce(a, topic, 30 * PARTITIONS)
    consume_and_commit(a, topic, group, 20)
    props = {
        **mm2_file(source, target, a, b, topic),
        f"{source}->{target}.groups": group,
        "offset.lag.max": "5",
        "emit.checkpoints.interval.seconds": "1",
        "refresh.groups.interval.seconds": "1",
        f"{target}.offset.flush.interval.ms": "1000",  # the flow's worker commits (and sends delayed syncs) each second
    }
    node = MirrorNode("mm", {**props, "listeners": f"http://127.0.0.1:{free_port()}"}, tmp_path)
    mirror_nodes.append(node)
    node.start()
    wait_until(node.healthy, 90, "the node healthy", interval=0.2)
    remote = f"{source}.{topic}"

    def translated() -> dict[int, int] | None:
        answer = ctl(capsys, "mirror", "translate", "--group", group, "--url", node.url, "-o", "json")
        if answer.code != 0:
            return None
        offsets = json.loads(answer.out)["offsets"]
        found = {o["partition"]: o["offset"] for o in offsets if o["topic"] == remote}
        assert all(offset <= 20 for offset in found.values()), f"translated ahead of the group: {found}"
        return found if len(found) == PARTITIONS else None

    def translated_precisely() -> dict[int, int] | None:
        # Checkpoints follow the offset syncs as they are read: early ones may be coarser, never ahead.
        found = translated()
        return found if found is not None and all(offset >= 20 - 5 for offset in found.values()) else None

    # Never ahead of what the group read (20 a partition), and behind it by less than offset.lag.max.
    wait_until(translated_precisely, 90, "the group's offsets of every partition translated within offset.lag.max")

    def status() -> dict[str, Any] | None:
        answer = ctl(capsys, "mirror", "status", "--url", node.url, "-o", "json")
        flow = json.loads(answer.out)[f"{source}->{target}"] if answer.code == 0 else None
        if flow is None or flow["heartbeat_age_ms"] is None:
            return None
        # The topic's partitions caught up (the heartbeats partition grows every second: its lag, measured from
        # the offsets the flow has committed, is rarely 0).
        lags = {p["partition"]: p["lag"] for p in flow["partitions"] if p["topic"] == topic}
        return flow if lags == dict.fromkeys(range(PARTITIONS), 0) else None

    flow = wait_until(status, 60, "the flow caught up, with a heartbeat mirrored back")
    assert flow["enabled"] is True
    assert flow["connectors"]["MirrorSourceConnector"]["state"] == "RUNNING"
    assert 0 <= flow["heartbeat_age_ms"] < 30_000
    # The group's checkpoints were translated above: the newest is younger than this test.
    assert flow["checkpoint_age_ms"] is not None and 0 <= flow["checkpoint_age_ms"] < 300_000
    table = ctl(capsys, "mirror", "status", "--url", node.url)
    assert f"{source}->{target}" in table.out and "heartbeats only" in table.out and "LAST CHECKPOINT" in table.out
    see_the_flows_in_the_browser(chromium, node.url, source, target, topic)

    # Failover: refused while the group runs on the target, written once its consumers are stopped.
    member = Consumer({"bootstrap.servers": b, "group.id": group, "auto.offset.reset": "earliest"})
    member.subscribe([remote])
    wait_until(lambda: member.poll(0.2) is not None or member.assignment(), 30, "a member of the group on the target")
    refused = ctl(capsys, "mirror", "translate", "--group", group, "--apply", "--url", node.url)
    member.close()
    assert refused.code == 1 and "stop its consumers" in refused.err, refused
    applied = wait_until(
        lambda: ctl(capsys, "mirror", "translate", "--group", group, "--apply", "--url", node.url).code == 0,
        30,
        "the offsets written once the group is empty",
        interval=1,
    )
    assert applied
    committed = committed_offsets(b, group, remote, PARTITIONS)
    assert committed == translated()


@pytest.mark.slow
def test_the_mirror_rides_out_a_target_outage_under_load_and_loses_nothing(
    kafka_bootstrap: str, restartable_kafka: LocalKafka, tmp_path: Path, mirror_nodes: list[MirrorNode]
) -> None:
    a, b, tag = kafka_bootstrap, restartable_kafka.bootstrap_servers, uuid.uuid4().hex[:6]
    source, target = f"dc{tag}", f"dr{tag}"
    topic = new_topic(AdminClient({"bootstrap.servers": a}), 3, prefix=f"orders-{tag}")
    props = {**mm2_file(source, target, a, b, topic), "listeners": f"http://127.0.0.1:{free_port()}"}
    node = MirrorNode("mm", props, tmp_path)
    mirror_nodes.append(node)
    node.start()
    wait_until(node.healthy, 90, "the node healthy", interval=0.2)

    sent: list[str] = []

    def produce_batch(name: str) -> None:
        values = [f"{name}-{n}" for n in range(50)]
        produce_values(a, topic, values)
        sent.extend(values)

    produce_batch("before")
    wait_until(lambda: len(mirrored_values(b, f"{source}.{topic}")) >= 50, 90, "mirroring under way", interval=0.5)

    # The target goes away while the source keeps getting records, and comes back.
    restartable_kafka.stop()
    for round_ in range(5):
        produce_batch(f"during-{round_}")
    # Down long enough for the flow's worker to notice: the process says so on /health.
    wait_until(lambda: node.health()[0] != 200, 60, "the node unhealthy while its target is down", interval=1)
    restartable_kafka.start()
    produce_batch("after")

    # At least once, as Java's MirrorMaker (without exactly-once): every record arrives, none is lost.
    wait_until(
        lambda: set(mirrored_values(b, f"{source}.{topic}")) >= set(sent),
        180,
        "every record produced before, during and after the outage on the target",
        interval=1,
    )
    assert node.alive(), node.log_tail()
