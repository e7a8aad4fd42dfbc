"""Kafka worker keys with no effect in kconnect are accepted, and each one given is named in a warning."""

from __future__ import annotations

import logging

import pytest

from connect.runtime.config.inert_worker_keys import INERT_KEYS
from connect.runtime.config.worker_config import WorkerConfig

CONVERTERS = {
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter",
}


def test_each_inert_key_given_is_named_in_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    given = {
        "plugin.path": "/opt/connectors",
        "metric.reporters": "com.example.Reporter",
        "plugin.discovery": "only_scan",
    }
    with caplog.at_level(logging.WARNING, logger="connect.runtime"):
        WorkerConfig.from_props({**CONVERTERS, **given})
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    for key in given:
        assert any(message.startswith(f"{key} is ignored: ") for message in warnings), key
    assert not any("metrics.num.samples" in message for message in warnings)


def test_no_warning_when_none_is_given(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="connect.runtime"):
        WorkerConfig.from_props(CONVERTERS)
    assert not [r for r in caplog.records if "is ignored" in r.getMessage()]


def test_every_inert_key_is_a_defined_worker_key() -> None:
    from connect.runtime.config.worker_config import worker_config_def

    assert set(INERT_KEYS) <= set(worker_config_def().keys)
