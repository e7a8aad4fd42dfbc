"""docs/connectors.md's example package (docs/examples/my-connectors), as its reader would use it: built into a
wheel, installed into a fresh virtual environment with kconnect, its own tests (unit tests on connect.testing's
fakes, the sink in the kit's harness) and `mypy --strict` pass there, and that environment's worker lists both
connectors (tests/integration/standalone/test_connector_guide.py runs them in a worker on a broker)."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from tests.support.connector_guide import EXAMPLE_PROJECT
from tests.support.plugin_projects import install_project, run_in
from tests.support.standalone_workers import KconnectProcess

pytestmark = pytest.mark.integration


@pytest.fixture
def example_project(tmp_path: Path) -> Path:
    """A copy of the example (a build writes into the project's folder)."""
    return Path(shutil.copytree(EXAMPLE_PROJECT, tmp_path / EXAMPLE_PROJECT.name))


def test_the_example_package_installed_beside_kconnect_passes_its_tests_and_mypy_strict(
    plugin_environment: Path, example_project: Path, tmp_path: Path
) -> None:
    install_project(plugin_environment, example_project, tmp_path / "wheels")

    # The pytest script (not `python -m`, which would put the project's folder first on the import path): the
    # tests import the installed package, found with its entry points.
    tests = run_in(plugin_environment, "pytest", "-q", "-p", "no:cacheprovider", cwd=example_project)
    typed = run_in(plugin_environment, "python", "-m", "mypy", "--no-incremental", cwd=example_project)

    assert tests.returncode == 0 and "3 passed" in tests.stdout, tests.stdout + tests.stderr
    assert typed.returncode == 0 and "Success" in typed.stdout, typed.stdout + typed.stderr


def test_the_environment_s_worker_lists_the_example_connectors(
    plugin_environment: Path, example_project: Path, kafka_bootstrap: str, tmp_path: Path
) -> None:
    install_project(plugin_environment, example_project, tmp_path / "wheels")
    worker_file = tmp_path / "worker.properties"
    worker_file.write_text(
        f"bootstrap.servers={kafka_bootstrap}\n"
        "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
        f"offset.storage.file.filename={tmp_path / 'connect.offsets'}\n"
        "listeners=http://127.0.0.1:0\n"
    )
    command = [str(plugin_environment / "kconnect"), "standalone"]
    worker = KconnectProcess(worker_file, [], tmp_path / "worker.log", command=command)
    try:
        plugins = httpx.get(f"{worker.url()}/connector-plugins", timeout=30).json()
    finally:
        worker.terminate()
    assert {"my_connectors.http_source.HttpSourceConnector", "my_connectors.jsonl_sink.JsonLinesSinkConnector"} <= {
        plugin["class"] for plugin in plugins
    }
