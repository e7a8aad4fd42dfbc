"""The Kafka image's entry point (docker/kafka/run.py) and health check (docker/kafka/broker_api_versions.py):
what they make of the official apache/kafka image's variables, and the ApiVersions exchange, without an
engine. tests/containers/test_compose.py runs the image for real."""

from __future__ import annotations

import importlib.util
import socket
import struct
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"kafka_image_{name}", ROOT / "docker" / "kafka" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run = _load("run")
api_versions = _load("broker_api_versions")


@pytest.mark.parametrize(
    ("variable", "key"),
    [
        ("KAFKA_LOG_DIRS", "log.dirs"),
        ("KAFKA_CONTROLLER_QUORUM_VOTERS", "controller.quorum.voters"),
        (
            "KAFKA_LISTENER_NAME_CONTROLLER_SASL__ENABLED__MECHANISMS",
            "listener.name.controller.sasl_enabled_mechanisms",
        ),
        (
            "KAFKA_LISTENER_NAME_INTERNAL_SSL_ENDPOINT___IDENTIFICATION_ALGORITHM",
            "listener.name.internal.ssl.endpoint-identification.algorithm",
        ),
    ],
)
def test_a_variable_names_the_broker_setting_as_in_the_official_image(variable: str, key: str) -> None:
    assert run.property_name(variable) == key


def _compose_broker_environment(node: str) -> dict[str, str]:
    services: dict[str, Any] = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())["services"]
    return {name: str(value) for name, value in services[node]["environment"].items()}


def test_the_compose_files_variables_make_a_kraft_node_of_three_and_leave_the_jvm_options_out() -> None:
    properties = run.broker_properties(_compose_broker_environment("kafka-2"))
    assert properties["node.id"] == "2"
    assert properties["process.roles"] == "broker,controller"
    assert properties["controller.quorum.voters"] == "1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093"
    assert properties["listeners"] == "PLAINTEXT://:9092,CONTROLLER://:9093"
    assert properties["advertised.listeners"] == "PLAINTEXT://kafka-2:9092"
    assert properties["offsets.topic.replication.factor"] == "3"
    assert properties["log.dirs"] == "/tmp/kraft-combined-logs", "the official image's default"
    assert not any("opts" in key for key in properties), properties
    assert "cluster.id" not in properties, "CLUSTER_ID formats the storage; it is no broker setting"


def test_with_no_variables_the_image_is_the_official_images_single_node() -> None:
    properties = run.broker_properties({})
    assert properties["node.id"] == "1"
    assert properties["controller.quorum.voters"] == "1@localhost:29093"
    assert run.with_defaults({"CLUSTER_ID": ""})["CLUSTER_ID"] == "5L6g3nShT-eMCtK--X86sw", "empty is unset"
    rendered = run.render(properties)
    assert "node.id=1\n" in rendered and rendered.startswith("#")


def test_a_controller_only_node_refuses_advertised_listeners_as_the_official_image_does() -> None:
    environment = {"KAFKA_PROCESS_ROLES": "controller", "KAFKA_LISTENERS": "CONTROLLER://:9093"}
    assert "advertised.listeners" not in run.broker_properties(environment)
    with pytest.raises(run.ConfigurationError, match="KAFKA_ADVERTISED_LISTENERS"):
        run.broker_properties({**environment, "KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://c:9092"})


def test_jvm_options_default_to_kafkas_start_scripts_and_follow_the_variables() -> None:
    defaults = run.jvm_options({})
    assert defaults[:2] == ["-Xmx1G", "-Xms1G"] and "-XX:+UseG1GC" in defaults
    options = run.jvm_options({"KAFKA_HEAP_OPTS": "-Xmx512m -Xms512m", "KAFKA_OPTS": "-Dx=1"})
    assert options[:2] == ["-Xmx512m", "-Xms512m"] and options[-1] == "-Dx=1"


def _one_answer(error_code: int) -> tuple[str, threading.Thread]:
    """A listener that answers one ApiVersions v0 request (error_code, two APIs), checking what it got."""
    server = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []

    def answer() -> None:
        with server, server.accept()[0] as connection:
            (size,) = struct.unpack(">i", connection.recv(4))
            received.append(connection.recv(size))
            body = struct.pack(">ihi", api_versions.CORRELATION_ID, error_code, 2) + struct.pack(">hhh", 0, 0, 11) * 2
            connection.sendall(struct.pack(">i", len(body)) + body)
        api_key, version, _correlation, _client_length = struct.unpack_from(">hhih", received[0])
        assert (api_key, version) == (18, 0)

    thread = threading.Thread(target=answer)
    thread.start()
    return f"127.0.0.1:{server.getsockname()[1]}", thread


def test_the_health_check_passes_when_the_broker_answers_its_api_versions() -> None:
    address, thread = _one_answer(error_code=0)
    assert api_versions.main(["--bootstrap-server", address, "--timeout", "5"]) == 0
    thread.join(5)


def test_the_health_check_fails_on_an_error_answer_and_on_a_closed_port() -> None:
    address, thread = _one_answer(error_code=35)
    assert api_versions.main(["--bootstrap-server", address, "--timeout", "5"]) == 1
    thread.join(5)
    with socket.create_server(("127.0.0.1", 0)) as unused:
        port = unused.getsockname()[1]
    assert api_versions.main(["--bootstrap-server", f"127.0.0.1:{port}", "--timeout", "5"]) == 1
