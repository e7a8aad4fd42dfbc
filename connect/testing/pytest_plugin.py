"""pytest fixtures for connector authors (registered through the `pytest11` entry point when kconnect is
installed, so a plug-in project's tests can ask for them without a conftest):

- `connector_harness`: a `ConnectorHarness` over Kafka in memory, closed after the test;
- `kafka_connector_harness`: one over a real cluster, named by `--kafka-bootstrap HOST:PORT` or the
  `KCONNECT_BOOTSTRAP_SERVERS` environment variable (the test fails, saying so, when neither is set). A
  project whose tests start their own broker overrides the `kafka_harness_bootstrap` fixture instead.

Both take worker settings from the `harness_worker_props` fixture (none by default): override it in a
conftest to change converters or error handling for every test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported by the fixtures only: every pytest run of a project with kconnect loads this module
    from connect.testing.harness import ConnectorHarness

BOOTSTRAP_OPTION = "--kafka-bootstrap"
BOOTSTRAP_VARIABLE = "KCONNECT_BOOTSTRAP_SERVERS"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("kconnect").addoption(
        BOOTSTRAP_OPTION,
        default=None,
        metavar="HOST:PORT",
        help=f"the Kafka cluster of the kafka_connector_harness fixture (default: ${BOOTSTRAP_VARIABLE})",
    )


@pytest.fixture
def harness_worker_props() -> Mapping[str, str]:
    """Worker settings for the harness fixtures, over `HARNESS_WORKER_DEFAULTS`."""
    return {}


@pytest.fixture
def kafka_harness_bootstrap(request: pytest.FixtureRequest) -> str:
    """The bootstrap servers of `kafka_connector_harness`."""
    bootstrap = request.config.getoption(BOOTSTRAP_OPTION) or os.environ.get(BOOTSTRAP_VARIABLE)
    if not bootstrap:
        pytest.fail(
            f"kafka_connector_harness needs a Kafka cluster: pass {BOOTSTRAP_OPTION} HOST:PORT or set "
            f"{BOOTSTRAP_VARIABLE} (or use connector_harness, which needs none)"
        )
    return str(bootstrap)


@pytest.fixture
def connector_harness(harness_worker_props: Mapping[str, str]) -> Iterator[ConnectorHarness]:
    from connect.testing.harness import ConnectorHarness

    with ConnectorHarness(harness_worker_props) as harness:
        yield harness


@pytest.fixture
def kafka_connector_harness(
    harness_worker_props: Mapping[str, str], kafka_harness_bootstrap: str
) -> Iterator[ConnectorHarness]:
    from connect.testing.harness import ConnectorHarness

    with ConnectorHarness(harness_worker_props, bootstrap_servers=kafka_harness_bootstrap) as harness:
        yield harness
