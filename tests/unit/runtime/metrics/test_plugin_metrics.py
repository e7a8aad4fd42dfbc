"""A task's own metrics (KIP-877) are served with its tags, its descriptions and Kafka Connect's naming."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from connect.api.errors import ConfigError
from connect.runtime.metrics.groups import task_tags
from connect.runtime.metrics.plugin_metrics import TaskPluginMetrics
from connect.runtime.metrics.prometheus import render
from connect.runtime.metrics.windows import Windows


def test_counters_recorders_and_gauges_are_served_under_the_plugin_group() -> None:
    metrics = TaskPluginMetrics(task_tags("spark", 2), Windows())
    files = metrics.counter("files-committed-total", "Files committed.")
    flush = metrics.recorder("flush-time-ms", "Commit time")
    metrics.gauge("buffered-bytes", "Bytes buffered.", lambda: 42)
    metrics.gauge("broken", "A gauge that raises.", lambda: 1 / 0)
    files.add(3)
    flush.record(10)
    flush.record(30)
    text = render(metrics.groups()).decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    labels = {"connector": "spark", "task": "2"}
    assert families["kafka_connect_connector_plugin_files_committed"].type == "counter"
    assert families["kafka_connect_connector_plugin_files_committed"].documentation == "Files committed."
    samples = {s.name: s for f in families.values() for s in f.samples}
    assert samples["kafka_connect_connector_plugin_files_committed_total"].value == 3
    assert samples["kafka_connect_connector_plugin_files_committed_total"].labels == labels
    assert samples["kafka_connect_connector_plugin_flush_time_ms_avg"].value == 20
    assert samples["kafka_connect_connector_plugin_flush_time_ms_max"].value == 30
    assert samples["kafka_connect_connector_plugin_buffered_bytes"].value == 42
    assert "kafka_connect_connector_plugin_broken" not in samples


def test_names_and_descriptions_are_checked() -> None:
    metrics = TaskPluginMetrics(task_tags("c", 0), Windows())
    with pytest.raises(ConfigError, match="-total"):
        metrics.counter("files", "Files.")
    metrics.counter("files-total", "Files.")
    assert metrics.counter("files-total", "Files.") is not None  # the same again: the same counter
    with pytest.raises(ConfigError, match="another description"):
        metrics.counter("files-total", "Something else.")
