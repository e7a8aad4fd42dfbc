"""Fixture plugins shared by every test tier."""

import pytest

pytest_plugins = [
    "tests.fixtures.groups",
    "tests.fixtures.lifetimes",
    "tests.fixtures.kafka",
    "tests.fixtures.hdfs.plugin",
    "tests.fixtures.spark_standalone.plugin",
    "tests.fixtures.s3.plugin",
    "tests.fixtures.sql.plugin",
    "tests.fixtures.browser.plugin",
    "tests.fixtures.schema_registry.plugin",
    "tests.fixtures.containers.plugin",
]


@pytest.fixture
def kafka_harness_bootstrap(kafka_bootstrap: str) -> str:
    """The test kit's `kafka_connector_harness` runs on the session broker."""
    return kafka_bootstrap
