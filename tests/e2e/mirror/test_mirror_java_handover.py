"""A flow moves from Java's MirrorMaker 2 (Kafka 4.3.1's `org.apache.kafka.connect.mirror.MirrorMaker` in dedicated
mode, from Maven Central's jars) to `kconnect mirror` and back, with the same mm2.properties, without mirroring a
record twice or skipping one: each resumes from the Connect offsets the other stored in the flow's internal topics
on the target (`mm2-offsets.<source>.internal`), and reads the connector and task configs the other wrote."""

from __future__ import annotations

import signal
import subprocess
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from bench.java_connect import jars as java_jars
from bench.systems.mirror import JavaMirror
from local_kafka.jars import default_version
from tests.fixtures.kafka import new_topic
from tests.fixtures.tcp_ports import free_port
from tests.support.jvm import QUICK_JVM_OPTIONS
from tests.support.mirror_nodes import MirrorNode, mirrored_values, mm2_file, produce_values
from tests.support.processes import end_process
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e

PARTITIONS = 3


@contextmanager
def java_mirror_maker(props: Mapping[str, str], workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Java's MirrorMaker 2 running `props`; stopped with SIGTERM (a graceful stop, which commits offsets) on exit.
    Its log is `workdir/mirror-maker.log`."""
    workdir.mkdir()
    version = default_version()
    system = JavaMirror(java_jars.fetch(version), version, QUICK_JVM_OPTIONS)
    assert system.unavailable_reason() is None, system.unavailable_reason()
    properties = workdir / "mm2.properties"
    properties.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    with (workdir / "stdout.log").open("wb") as out:
        process = subprocess.Popen(system.command(properties, workdir), stdout=out, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        end_process(process, 90)


@pytest.mark.slow
def test_a_flow_moves_from_java_mirrormaker_to_kconnect_and_back_without_repeating_or_losing_a_record(
    kafka_bootstrap: str, other_kafka_bootstrap: str, tmp_path: Path
) -> None:
    a, b, tag = kafka_bootstrap, other_kafka_bootstrap, uuid.uuid4().hex[:6]
    source, target = f"dc{tag}", f"dr{tag}"
    topic = new_topic(AdminClient({"bootstrap.servers": a}), PARTITIONS, prefix=f"orders-{tag}")
    remote = f"{source}.{topic}"
    props = {**mm2_file(source, target, a, b, topic), "listeners": f"http://127.0.0.1:{free_port()}"}
    sent: list[str] = []

    def mirrored_exactly(what: str) -> None:
        # Mirrored in order per partition: a record mirrored again would be on the target before the new ones.
        wait_until(lambda: len(mirrored_values(b, remote)) >= len(sent), 150, what, interval=0.5)
        assert mirrored_values(b, remote) == sorted(sent), f"{what}: records repeated or lost"

    def produce(batch: str) -> None:
        values = [f"{batch}-{n}" for n in range(30)]
        produce_values(a, topic, values)
        sent.extend(values)

    produce("java")
    with java_mirror_maker(props, tmp_path / "java-1") as java:
        mirrored_exactly("Java's MirrorMaker mirrored the first records")
        assert java.poll() is None, (tmp_path / "java-1" / "mirror-maker.log").read_text()[-3000:]

    produce("kconnect")
    node = MirrorNode("kconnect", props, tmp_path)
    node.start()
    try:
        mirrored_exactly("kconnect went on where Java stopped")
    finally:
        node.signal(signal.SIGTERM)
        assert node.wait_exit(60) == 0, node.log_tail()

    produce("java-again")
    with java_mirror_maker(props, tmp_path / "java-2"):
        mirrored_exactly("Java's MirrorMaker went on where kconnect stopped")
