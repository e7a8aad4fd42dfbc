"""Static checks of docker/: no Docker engine runs here, so what can be checked without one is checked.

The images are built and run by tests/containers (with podman); these tests make sure the build files
point at things that exist, that the entry point knows every kconnect subcommand, and that the baked-in
worker config and the compose file's environment-only cluster config are valid.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import yaml

from connect.runtime.config.worker_config import WorkerConfig
from local_kafka.jars import default_version
from workers.cli import build_parser
from workers.common.env import key_of
from workers.common.properties import read_properties
from workers.distributed.settings import DistributedSettings

ROOT = Path(__file__).resolve().parents[3]
DOCKERFILE = ROOT / "docker" / "Dockerfile"


def _instructions(name: str) -> list[list[str]]:
    rows = []
    for line in DOCKERFILE.read_text().splitlines():
        words = line.split()
        if words and words[0] == name:
            rows.append(words[1:])
    return rows


def test_hadolint_finds_no_warnings() -> None:
    hadolint = shutil.which("hadolint") or str(Path(ROOT / ".venv" / "bin" / "hadolint"))
    result = subprocess.run(
        [hadolint, "--failure-threshold", "info", str(DOCKERFILE)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _copied_sources() -> list[str]:
    """The build-context paths of every COPY (not those copied from another stage)."""
    return [source for row in _instructions("COPY") if not row[0].startswith("--") for source in row[:-1]]


def test_every_copied_path_exists_in_the_repository() -> None:
    sources = _copied_sources()
    assert sources, "the Dockerfile copies the project"
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: no such path in the repository"
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    copied = {Path(s).name for s in sources}
    assert set(packages) <= copied, f"packages missing from the image: {set(packages) - copied}"


def test_the_build_context_admits_every_copied_path_and_leaves_out_the_virtual_environment() -> None:
    rules = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()]
    rules = [rule for rule in rules if rule and not rule.startswith("#")]
    assert rules[0] == "*", "everything is left out unless admitted"
    admitted = {rule[1:] for rule in rules if rule.startswith("!")}
    for source in _copied_sources():
        assert source in admitted, f"COPY {source}: left out of the build context by .dockerignore"
    assert not any(".venv" in path for path in admitted)


def test_the_entry_point_runs_kconnect_under_tini_and_its_default_command_is_a_distributed_worker() -> None:
    kconnect, kafka = (
        ['["/usr/bin/tini",', '"--",', '"/usr/local/bin/kconnect-entrypoint"]'],
        [
            '["/usr/bin/tini",',
            '"--",',
            '"/usr/local/bin/kafka-run"]',
        ],
    )
    assert sorted(_instructions("ENTRYPOINT")) == sorted([kconnect, kafka])
    assert ["docker/kafka/run.py", "/usr/local/bin/kafka-run"] in _instructions("COPY")
    assert ["docker/entrypoint.sh", "/usr/local/bin/kconnect-entrypoint"] in _instructions("COPY")
    assert _instructions("CMD")[-1] == ['["worker"]']  # the last CMD; a HEALTHCHECK continuation line has one too
    args = build_parser().parse_args(["worker"])
    assert args.command == "worker" and args.worker_properties is None, "no properties file: the environment only"


def test_the_entry_point_hands_every_kconnect_subcommand_to_kconnect() -> None:
    script = (ROOT / "docker" / "entrypoint.sh").read_text()
    (line,) = [line for line in script.splitlines() if "exec kconnect" in line]
    handed = {word.strip() for word in line.split(")")[0].split("|")} - {"-*"}
    parser = build_parser()
    subcommands = set(next(a for a in parser._actions if a.dest == "command").choices)  # type: ignore[arg-type]
    assert handed == subcommands


def test_both_images_are_targets_and_the_worker_image_is_the_default() -> None:
    stages = [row[-1] for row in _instructions("FROM")]
    assert {"kconnect", "kconnect-spark"} <= set(stages)
    assert stages[-1] == "kconnect", "a build without --target makes the worker image"
    assert _instructions("USER")[-1] == ["1000:1000"]
    assert _instructions("ARG")[0] == ["BASE_IMAGE=python:3.11-slim"]


def test_baked_worker_config_is_a_valid_standalone_config() -> None:
    props = read_properties(ROOT / "docker" / "worker.properties")
    config = WorkerConfig.from_props(props)
    assert config.bootstrap_servers == "kafka:9092"
    assert props["offset.storage.file.filename"].startswith("/var/lib/kconnect/")
    assert props["listeners"] == "http://0.0.0.0:8083", "the REST API must listen beyond the container's loopback"


COMPOSE = ROOT / "docker" / "compose.yaml"


def _services() -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = yaml.safe_load(COMPOSE.read_text())["services"]
    return services


def _default_of(variable_reference: str) -> str:
    """`${NAME:-default}` → default."""
    assert variable_reference.startswith("${") and ":-" in variable_reference, variable_reference
    return variable_reference[variable_reference.index(":-") + 2 : -1]


def test_compose_builds_both_images_from_this_dockerfile() -> None:
    targets = {"kconnect:local": "kconnect", "kconnect-spark:local": "kconnect-spark"}
    built = [service for service in _services().values() if "build" in service]
    assert {service["image"] for service in built} == set(targets)
    for service in built:
        context = (COMPOSE.parent / service["build"]["context"]).resolve()
        assert context == ROOT
        assert (context / service["build"]["dockerfile"]).resolve() == DOCKERFILE
        assert service["build"]["target"] == targets[service["image"]]


def test_compose_kafka_is_three_kraft_nodes_of_one_cluster_at_the_tests_version() -> None:
    # The main cluster; the `dr` profile's one-node cluster is the next test's.
    brokers = {name: s for name, s in _services().items() if name.startswith("kafka-") and "profiles" not in s}
    assert len(brokers) == 3
    assert {_default_of(s["image"]) for s in brokers.values()} == {f"apache/kafka:{default_version()}"}
    environments = [s["environment"] for s in brokers.values()]
    assert sorted(e["KAFKA_NODE_ID"] for e in environments) == ["1", "2", "3"]
    (cluster_id,) = {e["CLUSTER_ID"] for e in environments}
    assert len(base64.urlsafe_b64decode(cluster_id + "==")) == 16, "a cluster id is a base64 UUID"
    (voters,) = {e["KAFKA_CONTROLLER_QUORUM_VOTERS"] for e in environments}
    assert voters == ",".join(
        f"{e['KAFKA_NODE_ID']}@{name}:9093" for name, e in zip(brokers, environments, strict=True)
    )
    for name, environment in zip(brokers, environments, strict=True):
        assert environment["KAFKA_ADVERTISED_LISTENERS"] == f"PLAINTEXT://{name}:9092"
        assert environment["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"] == "3"


def test_the_dr_profile_is_a_one_node_cluster_of_its_own_and_kconnect_mirror_with_the_files_mm2_properties() -> None:
    services = _services()
    dr, mirror = services["kafka-dr"], services["mirror"]
    assert dr["profiles"] == mirror["profiles"] == ["dr"]
    environment = dr["environment"]
    main_cluster = services["kafka-1"]["environment"]["CLUSTER_ID"]
    assert environment["CLUSTER_ID"] != main_cluster, "a second cluster, not a fourth node of the first"
    assert environment["KAFKA_CONTROLLER_QUORUM_VOTERS"] == "1@kafka-dr:9093"
    assert environment["KAFKA_ADVERTISED_LISTENERS"] == "PLAINTEXT://kafka-dr:9092"
    assert environment["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"] == "1"
    assert mirror["image"] == "kconnect:local"
    assert mirror["command"] == ["mirror", "/etc/kconnect/mm2.properties"]
    (volume,) = mirror["volumes"]
    source = (COMPOSE.parent / volume.split(":")[0]).resolve()
    props = dict(
        (key.strip(), value.strip())
        for key, _, value in (line.partition("=") for line in source.read_text().splitlines())
        if key.strip() and not key.startswith("#")
    )
    assert props["clusters"] == "primary, dr"
    assert props["primary.bootstrap.servers"] == "kafka-1:9092,kafka-2:9092,kafka-3:9092"
    assert props["dr.bootstrap.servers"] == "kafka-dr:9092"
    assert set(mirror["depends_on"]) == {"kafka-1", "kafka-2", "kafka-3", "kafka-dr"}


def _cluster_settings(service: dict[str, Any]) -> DistributedSettings:
    environment = {name: str(value) for name, value in service["environment"].items()}
    keys = {name: key_of(name) for name in environment}
    assert None not in keys.values(), f"not worker settings: {[n for n, k in keys.items() if k is None]}"
    return DistributedSettings.load(None, environment)


def test_compose_workers_are_one_cluster_per_image_configured_by_the_environment_alone() -> None:
    services = _services()
    clusters: dict[str, list[str]] = {}
    for name, service in services.items():
        if service.get("image") not in ("kconnect:local", "kconnect-spark:local") or "command" in service:
            continue
        settings = _cluster_settings(service)
        clusters.setdefault(settings.group_id, []).append(name)
        assert settings.worker.bootstrap_servers == "kafka-1:9092,kafka-2:9092,kafka-3:9092"
        topics = [settings.config_topic, settings.offset_topic, settings.status_topic, settings.slots_topic]
        assert all(topic.replication_factor == 3 for topic in topics), "three brokers: Kafka Connect's default"
        spark = service["image"] == "kconnect-spark:local"
        # The Spark workers' sinks run their jobs on the profile's standalone master.
        assert set(service["depends_on"]) == {"kafka-1", "kafka-2", "kafka-3", *(["spark-master"] if spark else [])}
        # Not service_healthy: podman runs no health checks without systemd. The restart policy starts a
        # worker again until the brokers are there.
        assert all(d["condition"] == "service_started" for d in service["depends_on"].values())
        assert service["restart"] == "on-failure"
        assert service["hostname"] == name, "a worker advertises its host name to the others"
        assert service.get("profiles", []) == (["spark"] if spark else [])
    assert sorted(map(len, clusters.values())) == [2, 3], clusters
    published = {name: s["ports"][0].rsplit(":", 1)[0] for name, s in services.items() if "ports" in s}
    assert {name: _default_of(port) for name, port in published.items()} == {
        "worker-1": "8083",
        "worker-2": "8084",
        "worker-3": "8085",
        "spark-worker-1": "8086",
        "spark-worker-2": "8087",
        "mirror": "8088",
    }
    assert all(port.startswith(f"${{{name.upper().replace('-', '_')}_PORT:-") for name, port in published.items())


def test_compose_spark_profile_runs_a_standalone_master_and_worker_that_the_parquet_pipeline_uses() -> None:
    services = _services()
    master, executors = services["spark-master"], services["spark-executors"]
    for service in (master, executors):
        assert service["image"] == "kconnect-spark:local" and service["profiles"] == ["spark"]
    assert master["command"][:2] == ["spark-class", "org.apache.spark.deploy.master.Master"]
    assert executors["command"][:2] == ["spark-class", "org.apache.spark.deploy.worker.Worker"]
    pipeline = json.loads((COMPOSE.parent / "pipelines" / "orders-parquet.json").read_text())["config"]
    assert executors["command"][-1] == pipeline["spark.master"] == "spark://spark-master:7077"
    # The executors write the files: the volume at the same path as in the kconnect workers.
    assert executors["volumes"] == services["spark-worker-1"]["volumes"]
    assert pipeline["path"].startswith("file:///var/lib/kconnect/data/")


def test_compose_pipelines_are_applied_with_kconnect_ctl_from_files_that_exist_until_a_worker_accepts_them() -> None:
    services = _services()
    for name in ("pipeline", "spark-pipeline"):
        service = services[name]
        shell, flag, loop = service["command"]
        assert (shell, flag) == ("sh", "-c")
        assert loop == 'until kconnect ctl apply -f "$$PIPELINE"; do sleep 3; done', "$$: compose's escape of $"
        environment = service["environment"]
        args = build_parser().parse_args(["ctl", "apply", "-f", environment["PIPELINE"]])
        assert args.command == "ctl"
        (mount,) = service["volumes"]
        source, target, _mode = mount.split(":")
        local = COMPOSE.parent / source / Path(args.file).relative_to(target)
        pipeline = json.loads(local.read_text())
        assert {"name", "config"} <= set(pipeline)
        (worker,) = service["depends_on"]
        assert environment["KCONNECT_URL"] == f"http://{worker}:8083", "`kconnect ctl` reads $KCONNECT_URL"
