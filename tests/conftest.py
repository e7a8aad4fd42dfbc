"""Fixture plugins shared by every test tier."""

pytest_plugins = ["tests.fixtures.kafka", "tests.fixtures.hdfs.plugin"]
