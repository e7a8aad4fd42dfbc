"""Workers against a secured Kafka listener (`kconnect kafka start --security sasl_ssl`: TLS and SCRAM-SHA-512
users, certificates made at start), configured with Kafka Connect's own client keys: `security.protocol`,
`sasl.mechanism`, `sasl.jaas.config`, `ssl.truststore.*` as PKCS12, and their `producer.`/`consumer.` forms."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from connect.runtime.kafka.client_config import to_librdkafka
from tests.support.standalone_workers import all_running, line_count, running_worker, worker_props
from tests.support.topic_reads import messages_to_end
from tests.support.waiting import wait_until

pytestmark = pytest.mark.integration


def _admin(keys: dict[str, str]) -> AdminClient:
    return AdminClient({**to_librdkafka(keys, "admin"), "log_level": 0})


def test_kafkas_client_keys_reach_the_secured_listener_and_a_wrong_password_does_not(
    secured_kafka_keys: dict[str, str],
) -> None:
    keys = secured_kafka_keys
    assert keys["security.protocol"] == "SASL_SSL"
    assert keys["ssl.truststore.type"] == "PKCS12"
    assert 1 in _admin(keys).list_topics(timeout=15).brokers
    wrong = {**keys, "sasl.jaas.config": keys["sasl.jaas.config"].replace('password="', 'password="x')}
    with pytest.raises(KafkaException):
        _admin(wrong).list_topics(timeout=5)
    untrusted = {**keys, "ssl.truststore.location": "", "ssl.truststore.type": ""}
    with pytest.raises(KafkaException):
        _admin(untrusted).list_topics(timeout=5)


@pytest.mark.parametrize("listener", ["secured_kafka_keys", "ssl_kafka_keys"])
def test_a_standalone_worker_moves_lines_over_sasl_ssl_and_over_ssl_with_a_client_certificate(
    request: pytest.FixtureRequest, tmp_path: Path, listener: str
) -> None:
    keys: dict[str, str] = request.getfixturevalue(listener)
    topic = f"secured-{uuid.uuid4().hex[:8]}"
    security = {k: v for k, v in keys.items() if k != "bootstrap.servers"}
    props = worker_props(
        keys["bootstrap.servers"],
        tmp_path / "connect.offsets",
        **security,
        **{f"producer.{k}": v for k, v in security.items()},
        **{f"consumer.{k}": v for k, v in security.items()},
        **{f"admin.{k}": v for k, v in security.items()},
    )
    source_file, sink_file = tmp_path / "in.txt", tmp_path / "out.txt"
    source_file.write_text("".join(f"secured line {i}\n" for i in range(500)))
    source = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": topic}
    sink = {"connector.class": "FileStreamSink", "file": str(sink_file), "topics": topic}
    with running_worker(props) as (_, client):
        assert client.post("/connectors", json={"name": "src", "config": source}).status_code == 201
        assert client.post("/connectors", json={"name": "sink", "config": sink}).status_code == 201
        wait_until(lambda: line_count(sink_file) >= 500, 90, "500 lines through the secured listener", interval=0.2)
        assert all_running(client, "src", 1) and all_running(client, "sink", 1)
    written, sent = sink_file.read_text(), source_file.read_text()
    if written != sent:
        # Say which side reordered the lines, the topic or the sink.
        held = [m.value().decode() for m in messages_to_end(to_librdkafka(keys, "consumer"), topic)]
        side = "in order" if "".join(f"{line}\n" for line in held) == sent else "out of order"
        pytest.fail(
            f"the sink file differs from the source file; the topic holds the lines {side}: "
            f"topic {_line_ranges(held)}, file {_line_ranges(written.splitlines())}"
        )


def _line_ranges(lines: list[str]) -> str:
    """'secured line N' lines as runs of consecutive N: "0-117, 0, 118-499"."""
    runs: list[list[int]] = []
    for number in (int(line.rpartition(" ")[2]) for line in lines):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_a_standalone_worker_whose_clients_kafka_refuses_says_so_in_health(
    secured_kafka_keys: dict[str, str], tmp_path: Path, isolation: str
) -> None:
    keys = {**secured_kafka_keys}
    keys["sasl.jaas.config"] = keys["sasl.jaas.config"].replace('password="', 'password="wrong-')
    security = {k: v for k, v in keys.items() if k != "bootstrap.servers"}
    props = worker_props(
        keys["bootstrap.servers"], tmp_path / "connect.offsets", **{f"producer.{k}": v for k, v in security.items()}
    )
    props["task.isolation"] = isolation  # in a task process, the failure reaches the worker over the channel
    source_file = tmp_path / "in.txt"
    source_file.write_text("a line\n")
    source = {"connector.class": "FileStreamSource", "file": str(source_file), "topic": "refused"}
    with running_worker(props) as (_, client):
        assert client.get("/health").status_code == 200
        assert client.post("/connectors", json={"name": "src", "config": source}).status_code == 201

        def unhealthy() -> dict[str, object] | None:
            response = client.get("/health")
            return response.json() if response.status_code == 500 else None

        health = wait_until(unhealthy, 60, "/health to report the refused clients", interval=0.5)
        assert health["status"] == "unhealthy"
        assert "SASL authentication error" in str(health["message"]), health
        assert "wrong-" not in str(health["message"])


def test_the_ssl_listener_wants_a_client_certificate_from_a_pkcs12_key_store(ssl_kafka_keys: dict[str, str]) -> None:
    keys = ssl_kafka_keys
    assert keys["security.protocol"] == "SSL"
    assert keys["ssl.keystore.type"] == "PKCS12"
    assert 1 in _admin(keys).list_topics(timeout=15).brokers
    without_certificate = {k: v for k, v in keys.items() if not k.startswith("ssl.keystore.")}
    with pytest.raises(KafkaException):
        _admin(without_certificate).list_topics(timeout=5)
