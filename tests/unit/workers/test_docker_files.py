"""Static checks of docker/: no Docker engine runs here, so what can be checked without one is checked.

The images are built and run by tests/containers (with podman); these tests make sure the build files
point at things that exist, that the entry point knows every kconnect subcommand, and that the baked-in
worker config and the compose file's environment-only cluster config are valid.
"""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import yaml

from connect.runtime.worker_config import WorkerConfig
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
    (entrypoint,) = _instructions("ENTRYPOINT")
    assert entrypoint == ['["/usr/bin/tini",', '"--",', '"/usr/local/bin/kconnect-entrypoint"]']
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


def test_compose_file_builds_this_image_next_to_a_broker() -> None:
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    worker = compose["services"]["worker"]
    assert build_parser().parse_args(worker["command"]).command == "standalone"
    context = (ROOT / "docker" / worker["build"]["context"]).resolve()
    assert context == ROOT
    assert (context / worker["build"]["dockerfile"]).resolve() == DOCKERFILE
    assert "kafka" in compose["services"] and "kafka" in worker["depends_on"]
    assert "8083:8083" in worker["ports"]


def test_compose_cluster_is_two_workers_of_the_same_image_configured_by_the_environment_alone() -> None:
    services = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())["services"]
    cluster, standalone = services["cluster-worker"], services["worker"]
    assert cluster["build"] == standalone["build"] and cluster["image"] == standalone["image"]
    assert cluster["deploy"]["replicas"] == 2
    assert "kafka" in cluster["depends_on"]
    args = build_parser().parse_args(cluster["command"])  # exits (fails the test) if unknown
    assert args.command == "worker" and args.worker_properties is None, "no properties file: the environment only"
    assert "volumes" not in cluster

    environment = {name: str(value) for name, value in cluster["environment"].items()}
    keys = {name: key_of(name) for name in environment}
    assert None not in keys.values(), f"not worker settings: {[n for n, k in keys.items() if k is None]}"
    required = {"bootstrap.servers", "group.id", "config.storage.topic", "offset.storage.topic", "status.storage.topic"}
    assert required <= set(keys.values()), f"missing: {required - set(keys.values())}"

    settings = DistributedSettings.load(None, environment)
    assert settings.worker.bootstrap_servers == "kafka:9092"
    assert sorted(settings.from_env) == sorted(k for k in keys.values() if k is not None)
    one_broker = [settings.config_topic, settings.offset_topic, settings.status_topic, settings.slots_topic]
    assert all(topic.replication_factor == 1 for topic in one_broker), "the compose file runs a single broker"
    assert settings.worker.listeners == ["http://0.0.0.0:8083"], "REST must listen beyond the container's loopback"
