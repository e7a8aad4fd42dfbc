"""Fixture plugins shared by every test tier."""

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
