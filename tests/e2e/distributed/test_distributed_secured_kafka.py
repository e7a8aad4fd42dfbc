"""A distributed worker whose internal topics and connector clients all go through a SASL_SSL listener,
configured with Kafka Connect's keys (exactly-once sources and a sink); and one with a wrong password or
an untrusted broker certificate, which stops with a clear error."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from connect.runtime.kafka.client_config import to_librdkafka
from tests.support.certificates import make_tls_files
from tests.support.distributed_workers import (
    Cluster,
    WorkerProcess,
    datagen_config,
    expected_keys,
    sink_config,
    worker_props,
)
from tests.support.recording_plugins import read_runs
from tests.support.topic_reads import messages_to_end
from tests.support.waiting import wait_until

pytestmark = pytest.mark.e2e


def _props(keys: dict[str, str], group: str) -> dict[str, str]:
    security = {k: v for k, v in keys.items() if k != "bootstrap.servers"}
    return {
        **worker_props(keys["bootstrap.servers"], group),
        **security,
        **{f"{client}.{k}": v for client in ("producer", "consumer", "admin") for k, v in security.items()},
    }


def test_a_distributed_worker_over_sasl_ssl_with_exactly_once_sources_and_a_sink(
    secured_kafka_keys: dict[str, str], tmp_path: Path
) -> None:
    keys = secured_kafka_keys
    group = f"kc-sasl-{uuid.uuid4().hex[:8]}"
    topic = f"{group}-data"
    admin = AdminClient(to_librdkafka(keys, "admin"))
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(30)
    cluster = Cluster(keys["bootstrap.servers"], group, tmp_path, tmp_path / "runs")
    cluster.runs.mkdir()
    props = {**_props(keys, group), "exactly.once.source.support": "enabled"}
    cluster.workers.append(WorkerProcess(f"{group}-w1", props, tmp_path))
    try:
        cluster.start(*cluster.workers)
        cluster.create("src", datagen_config(cluster, topic, tasks=2, rate=100, records=400))
        cluster.create("sink", sink_config(cluster, topic, tasks=2))
        wait_until(lambda: cluster.running_on(["src", "sink"], 4, cluster.workers), 60, "all four tasks RUNNING")
        expected = expected_keys(2, 400)

        def sunk() -> set[str]:
            return {key for run in read_runs(cluster.runs) if run.task.startswith("sink-") for key in run.keys}

        wait_until(lambda: sunk() >= expected, 90, "every record through SASL_SSL into the sink", interval=0.5)
        # Committed transactions only, each record once.
        assert sorted(topic_keys_over(keys, topic)) == sorted(expected)
        assert keys["sasl.jaas.config"].split('password="')[1].rstrip('";') not in cluster.workers[0].log_text()
    finally:
        cluster.stop()


def topic_keys_over(keys: dict[str, str], topic: str) -> list[str]:
    """Every committed record key of `topic`, read through the secured listener."""
    settings = {**to_librdkafka(keys, "consumer"), "isolation.level": "read_committed", "auto.offset.reset": "earliest"}
    return [(message.key() or b"").decode() for message in messages_to_end(settings, topic)]


@pytest.mark.parametrize("wrong", ["password", "trust store"])
@pytest.mark.slow
def test_a_wrong_password_or_trust_store_stops_the_worker_with_a_clear_error(
    secured_kafka_keys: dict[str, str], tmp_path: Path, wrong: str
) -> None:
    keys = {**secured_kafka_keys}
    if wrong == "password":
        keys["sasl.jaas.config"] = keys["sasl.jaas.config"].replace('password="', 'password="wrong-')
        expected = "SASL authentication error: Authentication failed"
    else:
        keys.update(
            {"ssl.truststore.type": "PEM", "ssl.truststore.location": str(make_tls_files(tmp_path).other_ca_pem)}
        )
        expected = "certificate verify failed"
    group = f"kc-sasl-{uuid.uuid4().hex[:8]}"
    worker = WorkerProcess(f"{group}-w1", _props(keys, group), tmp_path)
    worker.start()
    try:
        code = worker.wait_exit(120)
        log = worker.log_text()
        assert code != 0, log
        stop_line = next(line for line in log.splitlines() if "Stopping due to error" in line)
        assert expected in stop_line, stop_line
        assert "wrong-" not in log
    finally:
        worker.kill()
