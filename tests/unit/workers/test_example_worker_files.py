"""docs/examples' worker files start a worker as they are: every key known and parsed, none inert."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from connect.runtime.config.java_properties import read_properties
from connect.runtime.config.worker_config import WorkerConfig
from workers.distributed.settings import DistributedSettings

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def test_the_standalone_example_parses_with_every_key_known(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        config = WorkerConfig.from_props(read_properties(EXAMPLES / "connect-standalone.properties"))

    assert caplog.messages == []  # no unknown or inert key
    assert config.bootstrap_servers == "localhost:9092"
    assert config.value_converter == "org.apache.kafka.connect.json.JsonConverter"
    assert config.get("offset.storage.file.filename") == "/tmp/connect.offsets"


def test_the_distributed_example_parses_with_every_key_known(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        settings = DistributedSettings.from_props(read_properties(EXAMPLES / "connect-distributed.properties"))

    assert caplog.messages == []
    assert settings.group_id == "connect-cluster"
    assert [t.name for t in (settings.config_topic, settings.offset_topic, settings.status_topic)] == [
        "connect-configs",
        "connect-offsets",
        "connect-status",
    ]
    assert {t.replication_factor for t in (settings.config_topic, settings.slots_topic)} == {1}
